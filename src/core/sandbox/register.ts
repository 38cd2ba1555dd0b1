/**
 * The sandbox's register as it moves on (docs/library.md, "A register that moves on"): still until
 * it is first advanced, then a pure function of the seed, the dataset, the instant of that first
 * advance (its start) and the time elapsed since, on the sandbox's clock plus every advance. Each day
 * of it draws its events from a source seeded by the seed and the day alone, applied day after day
 * in one order, so ten days twice are twenty days once. A step copies the designs' references,
 * applies the new days and indexes them again: memory grows with the filings only.
 */
import { subclasses } from "../wire/locarno.js"
import type { Design } from "../wire/wire.js"
import { addYears, day, dayMillis, drawn, drawOwner, pick, prng, titleOf } from "./dataset.js"
import type { SearchIndex } from "./searchIndex.js"

/**
 * Events a year: `filed` per design the dataset was made with (7,500 a year for 100,000 designs, as
 * the real register's applications), each other per design of a status it moves from.
 *
 * @since 0.4.0
 * @category constants
 */
export const rates = {
  filed: 0.075,
  registered: 3,
  refused: 0.15,
  withdrawn: 0.3,
  certified: 0.03,
  lapsed: 0.06,
  expired: 0.05,
  ceased: 0.01,
  assigned: 0.02,
  amended: 0.02
} as const

export type Event = keyof typeof rates

/**
 * What a step of the register moved: how many days, and how many designs each event changed.
 *
 * @since 0.4.0
 * @category models
 */
export type Summary = { readonly days: number } & { readonly [E in Event]: number }

const inForce = ["REGISTERED", "CERTIFIED"]
/** The statuses each event moves a design from (a filing none), and the status it moves it to. */
const moves: { readonly [E in Event]: readonly [ReadonlyArray<string>, string?] } = {
  filed: [[]],
  registered: [["FILED"], "REGISTERED"],
  refused: [["FILED"], "REFUSED"],
  withdrawn: [["FILED"], "WITHDRAWN"],
  certified: [["REGISTERED"], "CERTIFIED"],
  lapsed: [inForce, "LAPSED"],
  expired: [inForce, "EXPIRED"],
  ceased: [inForce, "CEASED"],
  assigned: [["FILED", ...inForce]],
  amended: [["FILED", ...inForce]]
}
const events = Object.keys(rates) as ReadonlyArray<Event>

const termEnd = (design: Design, years: number) =>
  design.filingDate === undefined ? {} : { expiryDate: day(addYears(Date.parse(design.filingDate), years)) }

/** `design` after `event` on the day `today` (epoch milliseconds, UTC midnight), drawing from `random`. */
const changed = (design: Design, event: Event, random: () => number, today: number): Design => {
  const status = moves[event][1]
  const base = { ...design, ...(status === undefined ? {} : { status }), lastChanged: day(today) }
  switch (event) {
    case "registered":
      return { ...base, registrationDate: day(today), ...termEnd(design, 5) }
    case "lapsed":
      return { ...base, ...termEnd(design, 5) } // not renewed at the end of its first term
    case "expired":
      return { ...base, ...termEnd(design, 10) } // its second term ended
    case "assigned": {
      const before = design.owners?.[0]?.name
      let name = drawOwner(random)
      while (name === before) name = drawOwner(random)
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

/** A count drawn from a Poisson law of mean `mean` (Knuth's way: means here are small). */
const poisson = (random: () => number, mean: number): number => {
  const floor = Math.exp(-mean)
  let n = 0
  for (let p = random(); p > floor; p *= random()) n++
  return n
}

/** A register: `designs` in a fixed order (the order they were first indexed, then filing order), and counts. */
interface Moving {
  readonly start: number
  readonly base: ReadonlyArray<Design>
  offset: number
  days: number
  designs: ReadonlyArray<Design>
}

export interface Register {
  /** Moves the register on by `millis` more, read at `now` (epoch milliseconds): what moved. Starts it if still. */
  readonly advance: (millis: number, now: number) => Summary
  /** Brings a moving register up to `now`, the clock's time: what moved (nothing if it stands still). */
  readonly at: (now: number) => Summary
  /** Brings the register back to where it stood before it was first advanced, and still. */
  readonly reset: () => void
}

const none = (days: number): { days: number } & { [E in Event]: number } =>
  ({ days, ...Object.fromEntries(events.map((e) => [e, 0])) }) as { days: number } & { [E in Event]: number }

/** Applies the days after `r.days` up to `target` to the designs, as `index` holds them (touched ones too). */
const move = (r: Moving, index: SearchIndex, seed: number, size: number, target: number): Summary => {
  const designs = r.designs.map((d) => index.get(d.number) ?? d)
  const counts = new Map<string, number>()
  const sequences = new Map<number, number>()
  for (const d of designs) {
    counts.set(d.status ?? "", (counts.get(d.status ?? "") ?? 0) + 1)
    if (/^\d{9}$/.test(d.number)) {
      const year = Number(d.number.slice(0, 4))
      sequences.set(year, Math.max(sequences.get(year) ?? 9999, Number(d.number.slice(4))))
    }
  }
  const summary = none(target - r.days)
  const startDay = Math.floor(r.start / dayMillis) * dayMillis
  for (let k = r.days + 1; k <= target; k++) {
    const random = prng(seed ^ Math.imul(k, 0x9e3779b1))
    const today = startDay + k * dayMillis
    for (const event of events) {
      const [from] = moves[event]
      const pool = event === "filed" ? size : from.reduce((n, s) => n + (counts.get(s) ?? 0), 0)
      for (let n = poisson(random, rates[event] * pool / 365); n > 0; n--) {
        if (event === "filed") {
          const year = new Date(today).getUTCFullYear()
          const sequence = (sequences.get(year) ?? 9999) + 1
          if (sequence > 99999) continue
          sequences.set(year, sequence)
          const subclass = pick(random, subclasses)
          const product = pick(random, subclass.products)
          const { statementOfNewness, title, productNames, ...parties } = drawn(random, subclass, product)
          const [number, date] = [String(year * 100000 + sequence), day(today)]
          const filing = { filingDate: date, lastChanged: date, statementOfNewness }
          designs.push({ number, title, productNames, status: "FILED", ...parties, ...filing })
          counts.set("FILED", (counts.get("FILED") ?? 0) + 1)
          summary.filed++
          continue
        }
        // a design of a status the event moves from, found in a few draws if the pool is not tiny
        for (let tries = 0; tries < 64; tries++) {
          const i = Math.floor(random() * designs.length)
          const design = designs[i]!
          if (!from.includes(design.status ?? "")) continue
          const after = changed(design, event, random, today)
          designs[i] = after
          counts.set(design.status ?? "", counts.get(design.status ?? "")! - 1)
          counts.set(after.status ?? "", (counts.get(after.status ?? "") ?? 0) + 1)
          summary[event]++
          break
        }
      }
    }
  }
  r.designs = designs
  r.days = target
  index.rebuild(designs)
  return summary
}

/** The register over the designs `index` holds, drawn by `seed`. */
export const make = (index: SearchIndex, seed: number): Register => {
  const size = index.size
  let moving: Moving | undefined
  const at = (now: number): Summary => {
    if (moving === undefined) return none(0)
    const target = Math.floor((now + moving.offset - moving.start) / dayMillis)
    return target > moving.days ? move(moving, index, seed, size, target) : none(0)
  }
  return {
    advance: (millis, now) => {
      if (moving === undefined) {
        const base = index.all()
        moving = { start: now, base, offset: 0, days: 0, designs: base }
      }
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
