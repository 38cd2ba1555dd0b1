/**
 * The sandbox's register as it moves on (docs/library.md, "A register that moves on"): each day's
 * events drawn by the seed and the day alone, so ten days twice are twenty days once.
 */
import { subclasses } from "../wire/locarno.js"
import type { Design } from "../wire/wire.js"
import { addYears, day, dayMillis, drawn, drawOwner, newness, pick, prng, titleOf } from "./dataset.js"
import type { SearchIndex } from "./searchIndex.js"

const inForce = ["REGISTERED", "CERTIFIED"] as const
/**
 * Each event's rate a year, the statuses it moves a design from, the status it moves it to, and the
 * term (years from filing) it sets the expiry at: registered for 5, lapsed unrenewed at 5, expired at 10;
 * the rate of `filed` per design the dataset was made with (7,500 a year for 100,000 designs, as the real
 * register's applications), each other per design of a status it moves from.
 */
const table = {
  filed: [0.075, []],
  registered: [3, ["FILED"], "REGISTERED"],
  refused: [0.15, ["FILED"], "REFUSED"],
  withdrawn: [0.3, ["FILED"], "WITHDRAWN"],
  certified: [0.03, ["REGISTERED"], "CERTIFIED"],
  lapsed: [0.06, inForce, "LAPSED", 5],
  expired: [0.05, inForce, "EXPIRED", 10],
  ceased: [0.01, inForce, "CEASED"],
  assigned: [0.02, ["FILED", ...inForce]],
  amended: [0.02, ["FILED", ...inForce]]
} as const satisfies Record<string, readonly [number, ReadonlyArray<string>, string?, number?]>

type Event = keyof typeof table
const events = Object.keys(table) as ReadonlyArray<Event>

/**
 * What a step of the register moved: how many days, and how many designs each event changed.
 * @since 0.5.0
 * @category models
 */
export type Summary = { readonly days: number } & { readonly [E in Event]: number }

/** `design` after `event` on the day `today` (epoch milliseconds, UTC midnight), drawing from `random`. */
const changed = (design: Design, event: Event, random: () => number, today: number): Design => {
  const [, , status, term]: readonly [number, unknown, string?, number?] = table[event]
  const expiry = term === undefined || design.filingDate === undefined ? {} : {
    expiryDate: day(addYears(Date.parse(design.filingDate), term))
  }
  const registered = event === "registered" ? { registrationDate: day(today) } : {}
  const base = { ...design, ...(status ? { status } : {}), ...registered, ...expiry, lastChanged: day(today) }
  switch (event) {
    case "assigned": {
      let name = drawOwner(random)
      while (name === design.owners?.[0]?.name) name = drawOwner(random)
      return { ...base, owners: [{ name }] }
    }
    case "amended": {
      const code = design.classifications?.[0]?.code
      const own = subclasses.find((s) => s.code === code)
      // a product's wording, nine times in ten; else a new classification
      const subclass = own !== undefined && random() < 0.9 ? own : pick(random, subclasses)
      const product = pick(random, subclass.products)
      const classifications = [{ code: subclass.code, title: subclass.title }]
      return { ...base, title: titleOf(random, product), productNames: [product], classifications }
    }
    default:
      return base
  }
}

/** A count drawn from a Poisson law of mean `mean`, Knuth's way. */
const poisson = (random: () => number, mean: number): number => {
  let n = 0
  for (let p = random(); p > Math.exp(-mean); p *= random()) n++
  return n
}

const none = (days: number) =>
  ({ days, ...Object.fromEntries(events.map((e) => [e, 0])) }) as { -readonly [K in keyof Summary]: number }

/**
 * The register of `designs` (as `index` holds them, touched or not), drawn by `seed`: `advance(millis, now)`
 * moves it on by `millis` more at `now`, starting it; `at(now)` brings a started one up to the clock's `now`,
 * each saying what moved; `reset` brings it back to where it stood before it started, and still.
 */
export const make = (index: SearchIndex, seed: number, designs: ReadonlyArray<Design>) => {
  // since `start`, `days` applied to `designs`: in the order first indexed, then filed
  let moving: { start: number; base: ReadonlyArray<Design>; offset: number; days: number } | undefined
  let moved: Array<Design> = []

  /** Applies the days after `moving.days` up to `target` to the designs, as `index` holds them (touched ones too). */
  const move = (start: number, base: ReadonlyArray<Design>, from: number, target: number): Summary => {
    moved = (from === 0 ? base : moved).map((d) => index.get(d.number) ?? d)
    const counts = new Map<string | undefined, number>()
    const count = (status: string | undefined, by: number) => counts.set(status, (counts.get(status) ?? 0) + by)
    for (const d of moved) count(d.status, 1)
    const summary = none(target - from)
    for (let k = from + 1; k <= target; k++) {
      const random = prng(seed ^ Math.imul(k, 0x9e3779b1))
      const today = (Math.floor(start / dayMillis) + k) * dayMillis
      const year = new Date(today).getUTCFullYear()
      for (const event of events) {
        const [rate, statuses] = table[event]
        const pool = event === "filed" ? designs.length : statuses.reduce((n: number, s) => n + (counts.get(s) ?? 0), 0)
        for (let n = poisson(random, rate * pool / 365); n > 0; n--) {
          // numbered after the year's generated ones (up to 17,692), by how many were filed before
          const sequence = 50000 + moved.length - base.length
          if (event === "filed" && sequence <= 99999) {
            const subclass = pick(random, subclasses)
            const product = pick(random, subclass.products)
            const [number, date] = [String(year * 100000 + sequence), day(today)]
            const filing = { filingDate: date, lastChanged: date, statementOfNewness: newness(product) }
            moved.push({ number, status: "FILED", ...drawn(random, subclass, product), ...filing })
            count("FILED", 1)
            summary.filed++
          }
          // a design of a status the event moves from, found in a few draws if the pool is not tiny
          for (let tries = 0; event !== "filed" && tries < 64; tries++) {
            const i = Math.floor(random() * moved.length)
            const design = moved[i]!
            if (!(statuses as ReadonlyArray<string | undefined>).includes(design.status)) continue
            moved[i] = changed(design, event, random, today)
            count(design.status, -1)
            count(moved[i].status, 1)
            summary[event]++
            break
          }
        }
      }
    }
    index.rebuild(moved)
    return summary
  }

  const at = (now: number): Summary => {
    if (moving === undefined) return none(0)
    const [from, target] = [moving.days, Math.floor((now + moving.offset - moving.start) / dayMillis)]
    moving.days = Math.max(from, target)
    return target <= from ? none(0) : move(moving.start, moving.base, from, target)
  }
  return {
    advance: (millis: number, now: number): Summary => {
      moving ??= { start: now, base: designs.map((d) => index.get(d.number) ?? d), offset: 0, days: 0 }
      moving.offset += millis
      return at(now)
    },
    at,
    reset: () => {
      if (moving !== undefined) index.rebuild(moving.base)
      moving = undefined
    }
  }
}

export type Register = ReturnType<typeof make>
