/**
 * The sandbox's designs: a deterministic, seeded generator of realistic records (nine-digit
 * numbers with the filing year first, real Locarno classes with fitting products, owners,
 * designers, statuses, and dates where filing ≤ registration ≤ expiry ≤ … and `lastChanged` after
 * them all), plus fixed records that docs and tests can name.
 */
import { wireDateText } from "../wire/calendarDate.js"
import { subclasses } from "../wire/locarno.js"
import type { LocarnoSubclass } from "../wire/locarno.js"
import type { Design } from "../wire/wire.js"

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same dataset everywhere. */
export const prng = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const pick = <A>(random: () => number, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

/** Names and words the generator draws from. */
const firstNames =
  ("Olivia Jack Charlotte William Amelia Noah Isla Oliver Mia Leo Ava Henry Grace Lucas Chloe Thomas " +
    "Zoe James Ruby Liam Wei Priya Mohammed Sofia Hiroshi Anh Mateo Aisha").split(" ")
const lastNames = ("Smith Jones Williams Brown Wilson Taylor Nguyen Johnson Martin White Anderson Walker Thompson " +
  "Chen Kelly Harris Lee Ryan Patel Singh Murphy King Robinson Wright Campbell Mitchell").split(" ")
const ownerWords = ("Southern, Coastal, Harbour, Eucalypt, Outback, Wattle, Banksia, Pacific, Summit, Red Gum, " +
  "Kookaburra, Meridian, Boomerang, Ironbark, Coral, Granite, Silverline, Tasman").split(", ")
const ownerKinds = "Designs Industries Products Manufacturing Innovations Homewares Engineering Studio Group Brands"
  .split(" ")
const ownerForms = ["Pty Ltd", "Pty Ltd", "Pty Ltd", "Limited", "Inc.", "GmbH", "Co., Ltd."]
const qualifiers = ["", "", ""].concat(
  "Modular Folding Compact Portable Stackable Ergonomic Outdoor Children's Smart".split(" ").map((q) => `${q} `)
)

/** How statuses are spread, by cumulative weight. */
const statusWeights: ReadonlyArray<readonly [string, number]> = [
  ["REGISTERED", 0.55],
  ["CERTIFIED", 0.67],
  ["FILED", 0.77],
  ["LAPSED", 0.86],
  ["CEASED", 0.91],
  ["EXPIRED", 0.97],
  ["REFUSED", 0.985],
  ["WITHDRAWN", 1]
]

const pickStatus = (random: () => number): string => {
  const r = random()
  return statusWeights.find(([, w]) => r < w)![0]
}

export const dayMillis = 86_400_000
/** The dataset's "today": nothing changes after it, so the data is the same whenever it is made. */
export const datasetToday = Date.UTC(2026, 10, 1)

/** The day (UTC) of `millis`, written `YYYY-MM-DD`. */
export const day = (millis: number) => wireDateText(Math.floor(millis / dayMillis) * dayMillis)
export const addYears = (millis: number, years: number) => {
  const d = new Date(millis)
  d.setUTCFullYear(d.getUTCFullYear() + years)
  return d.getTime()
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

const person = (random: () => number) => `${pick(random, firstNames)} ${pick(random, lastNames)}`

/** One generated design, numbered `year * 100000 + sequence`. */
const generate = (random: () => number, year: number, sequence: number): Design => {
  const subclass: LocarnoSubclass = pick(random, subclasses)
  const product = pick(random, subclass.products)
  const status = pickStatus(random)
  const yearStart = Date.UTC(year, 0, 1)
  const yearEnd = Math.min(Date.UTC(year + 1, 0, 1), datasetToday - 60 * dayMillis)
  const filing = yearStart + Math.floor(random() * Math.max(1, (yearEnd - yearStart) / dayMillis)) * dayMillis
  const registered = status !== "FILED" && status !== "REFUSED" && status !== "WITHDRAWN"
  const registration = registered
    ? Math.min(filing + (20 + Math.floor(random() * 160)) * dayMillis, datasetToday)
    : undefined
  const expiry = registered ? addYears(filing, status === "LAPSED" || status === "CEASED" ? 5 : 10) : undefined
  const latest = Math.max(
    filing,
    registration ?? 0,
    status === "EXPIRED" && expiry !== undefined ? Math.min(expiry, datasetToday) : 0
  )
  const lastChanged = Math.min(datasetToday, latest + Math.floor(random() * 400) * dayMillis)
  const { productNames, title, ...parts } = drawn(random, subclass, product)
  return {
    number: String(year * 100000 + sequence),
    title,
    productNames,
    status,
    ...parts,
    filingDate: day(filing),
    ...(registration === undefined ? {} : { registrationDate: day(registration) }),
    ...(expiry === undefined ? {} : { expiryDate: day(expiry) }),
    lastChanged: day(lastChanged),
    statementOfNewness: newness(product)
  }
}

/** An owner drawn as the dataset draws one: a company four times in five, else a person. */
export const drawOwner = (random: () => number): string =>
  random() < 0.8
    ? `${pick(random, ownerWords)} ${pick(random, ownerKinds)} ${pick(random, ownerForms)}`
    : person(random)

/** A title for `product`, with a qualifier or not. */
export const titleOf = (random: () => number, product: string): string => capitalize(pick(random, qualifiers) + product)

/** What a design of `subclass` and `product` is drawn with beside its number, status, dates and newness. */
export const drawn = (random: () => number, subclass: LocarnoSubclass, product: string) => {
  const owners = [{ name: drawOwner(random) }]
  const designers = Array.from({ length: 1 + Math.floor(random() * 2) }, () => ({ name: person(random) }))
  const products = random() < 0.3 ? [product, pick(random, subclass.products)] : [product]
  const [title, classifications] = [titleOf(random, product), [{ code: subclass.code, title: subclass.title }]]
  return { title, productNames: [...new Set(products)], classifications, owners, designers }
}

export const newness = (product: string) =>
  `Newness and distinctiveness is claimed in the shape and configuration of the ${product} as shown in the representations.`

/** A fixed design: its title names its product too; dates are filing, last change, then registration and expiry. */
const fixedDesign = (
  [number, title, code, status, owner, designer]: readonly [string, string, string, string, string, string],
  [filing, lastChanged, registration, expiry]: readonly [string, string, string?, string?]
): Design => ({
  number,
  title,
  productNames: [title.toLowerCase()],
  status,
  classifications: [{ code, title: subclasses.find((s) => s.code === code)!.title }],
  owners: [{ name: owner }],
  designers: [{ name: designer }],
  filingDate: filing,
  ...(registration === undefined ? {} : { registrationDate: registration }),
  ...(expiry === undefined ? {} : { expiryDate: expiry }),
  lastChanged,
  statementOfNewness:
    `Newness and distinctiveness is claimed in the shape and configuration of the ${title.toLowerCase()}.`
})

/**
 * Records that exist in every dataset, whatever its size or seed, so docs and tests can name them.
 * Their numbers end in 0000-0002, which the generator never uses (its sequences start at 10000).
 */
export const fixedDesigns: ReadonlyArray<Design> = [
  fixedDesign(
    ["201900001", "Chair", "06-01", "REGISTERED", "Wattle Furniture Pty Ltd", "Olivia Chen"],
    ["2019-03-14", "2019-06-02", "2019-06-02", "2029-03-14"]
  ),
  fixedDesign(
    ["202000002", "Bottle", "09-01", "CERTIFIED", "Harbour Packaging Limited", "Jack Nguyen"],
    ["2020-08-01", "2021-02-11", "2020-10-20", "2030-08-01"]
  ),
  fixedDesign(
    ["202300001", "Wrist watch", "10-02", "FILED", "Meridian Time Co., Ltd.", "Aisha Patel"],
    ["2023-11-30", "2023-11-30"]
  )
]

/**
 * The numbers of the records every dataset holds, whatever its size and seed: for docs and tests.
 * @since 0.1.0
 * @category constants
 */
export const fixedNumbers = {
  chair: "201900001",
  bottle: "202000002",
  wristWatch: "202300001"
} as const

/**
 * A few owners, products and Locarno classes to try, taken from the fixed records: every dataset
 * holds them, whatever its size and seed, so help text can name them before a sandbox is made.
 * @since 0.3.0
 * @category constants
 */
export const samples: {
  readonly owners: ReadonlyArray<string>
  readonly products: ReadonlyArray<string>
  readonly classes: ReadonlyArray<string>
} = {
  owners: fixedDesigns.flatMap((design) => (design.owners ?? []).map((owner) => owner.name)),
  products: fixedDesigns.flatMap((design) => design.productNames ?? []),
  classes: fixedDesigns.flatMap((design) => (design.classifications ?? []).map((c) => c.code))
}

/**
 * `count` designs (at least the fixed ones), the same for the same `seed`. Generated numbers are
 * spread over the filing years 2000–2025 with sequences from 10000.
 */
export const generateDesigns = (count: number, seed: number): ReadonlyArray<Design> => {
  const random = prng(seed)
  const generated = Math.max(0, count - fixedDesigns.length)
  const designs: Array<Design> = [...fixedDesigns]
  for (let i = 0; i < generated; i++) {
    designs.push(generate(random, 2000 + (i % 26), 10000 + Math.floor(i / 26)))
  }
  return designs
}
