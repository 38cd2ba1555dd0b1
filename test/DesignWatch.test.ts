/**
 * `DesignWatch` over the mirror, on the engines the edition has, fed by the in-process sandbox with
 * time on the `TestClock`: the baseline, each kind of event, each reported once per watch across
 * overlapping runs, shared syncs and their request counts, a run stopped part-way, and `report`.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe, forkChild, yieldNow } from "#edition/internal/seam"
import { TestClock } from "#test-edition/support/seam"
import { describe, expect, layer, vi } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as DesignWatch from "../src/DesignWatch.js"
import type { Designs } from "../src/index.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { counted, day, dec1, engines, everything, onEngine, unchanged } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

vi.setConfig({ testTimeout: 120_000 })

const wattle: Designs.AdvancedSearchRequest = { rows: [{ op: "AND", query: { owner: "wattle" } }] }
/** Designs changed in December: a touch brings one in. */
const december: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "LAST_CHANGED", from: "2026-12-01" } } }]
}

const watching = (engine: (typeof engines)[number]) =>
<A, E>(
  test: Effect.Effect<
    A,
    E,
    DesignWatch.DesignWatch | Sandbox.SandboxControl | SqlClient.SqlClient | DesignSearchClient.DesignSearchClient
  >
) => onEngine(engine)(Effect.provide(test, DesignWatch.layer()))

const run = (names?: ReadonlyArray<string>) => Effect.flatMap(DesignWatch.DesignWatch, (w) => w.run(names))
const add = (input: DesignWatch.WatchInput) => Effect.flatMap(DesignWatch.DesignWatch, (w) => w.add(input))
const eventsOf = (report: DesignWatch.RunReport, watch: string) =>
  (report.watches.find((w) => w.watch === watch)?.events ?? []).map((e) => `${e.event} ${e.number}`)

/** The current designs of a search, by the client. */
const matching = (criteria: Designs.AdvancedSearchRequest) =>
  Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => Effect.map(c.advancedSearch(criteria), (r) => r.data))

layer(Pg.layer, { timeout: "120 seconds" })("DesignWatch", (it) => {
  for (const engine of engines) {
    it.effect(`${engine}: the first run is a baseline; a run with nothing changed makes 2 requests per criteria, watches of equal criteria share one sync`, () =>
      watching(engine)(Effect.gen(function*() {
        yield* add({ name: "daily", criteria: wattle, note: "Wattle's designs" })
        yield* add({ name: "weekly", criteria: { rows: [{ query: { owner: "wattle" }, op: "AND" }] } })
        yield* add({ name: "mine", numbers: ["202000002", "201900001"], expiringWithin: 30 })
        const [first, requests] = yield* counted(run())
        const { count } = yield* matching(wattle)
        expect(first.syncs).toBe(2)
        expect(first.requests).toBe(requests)
        expect(first.watches.map((w) => [w.watch, w.baseline, w.following, w.events.length])).toEqual([
          ["daily", true, count, 0],
          ["mine", true, 2, 0],
          ["weekly", true, count, 0]
        ])
        yield* TestClock.adjust(day)
        const [second, again] = yield* counted(run())
        expect([second.syncs, second.requests, again]).toEqual([2, 4, 4])
        expect(second.watches.every((w) => !w.baseline && w.events.length === 0)).toBe(true)
        const [one, alone] = yield* counted(run(["weekly"]))
        expect([one.syncs, alone, one.watches.length]).toEqual([1, 2, 1])
        const listed = yield* Effect.flatMap(DesignWatch.DesignWatch, (w) => w.list)
        expect(listed.map((w) => [w.name, w.numbers, w.expiringWithin, w.note])).toEqual([
          ["daily", [], 90, "Wattle's designs"],
          ["mine", ["201900001", "202000002"], 30, undefined],
          ["weekly", [], 90, undefined]
        ])
      })))

    it.effect(`${engine}: new and no longer matching, each reported once per watch across a daily and a weekly run`, () =>
      watching(engine)(Effect.gen(function*() {
        const control = yield* Sandbox.SandboxControl
        for (const name of ["daily", "weekly"]) yield* add({ name, criteria: december })
        yield* add({ name: "old", criteria: unchanged })
        yield* run()
        const { designNumbers } = yield* matching(unchanged)
        const [a, b] = [designNumbers[5]!, designNumbers[9]!]
        yield* TestClock.adjust(day)
        yield* control.touch([a])
        const monday = yield* run(["daily", "old"])
        expect(eventsOf(monday, "daily")).toEqual([`new ${a}`])
        expect(eventsOf(monday, "old")).toEqual([`no_longer_matching ${a}`])
        yield* TestClock.adjust(day)
        yield* control.touch([b])
        const tuesday = yield* run(["daily"])
        expect(eventsOf(tuesday, "daily")).toEqual([`new ${b}`])
        // The weekly run overlaps the daily ones: it tells both, the daily one neither again.
        yield* TestClock.adjust(5 * day)
        const week = yield* run()
        expect(eventsOf(week, "weekly")).toEqual([`new ${a}`, `new ${b}`])
        expect(eventsOf(week, "daily")).toEqual([])
        expect(eventsOf(week, "old")).toEqual([`no_longer_matching ${b}`])
        expect(eventsOf(yield* run(), "weekly")).toEqual([])
        // `report` reads them again, for any range.
        const watch = yield* DesignWatch.DesignWatch
        const [all, requests] = yield* counted(watch.report("daily"))
        expect(requests).toBe(0)
        expect(all.map((e) => [e.event, e.number, e.at])).toEqual([
          ["new", a, new Date(dec1 + day).toISOString()],
          ["new", b, new Date(dec1 + 2 * day).toISOString()]
        ])
        expect(all[0]!.design.title).toMatch(/\(amended\)$/)
        // as the run told them, the design's owners and classes too
        expect(yield* watch.report("weekly")).toEqual(week.watches.find((w) => w.watch === "weekly")?.events)
        expect(all[0]!.design.owners.every((o) => o !== "")).toBe(true)
        const since = dateTimeUnsafe(dec1 + 2 * day)
        expect((yield* watch.report("daily", { since })).map((e) => e.number)).toEqual([b])
        expect((yield* watch.report("daily", { until: since })).map((e) => e.number)).toEqual([a])
      })))

    it.effect(`${engine}: as the register moves on, each status, owner and classification change and each filing is one event, once`, () =>
      watching(engine)(Effect.gen(function*() {
        const control = yield* Sandbox.SandboxControl
        const sql = yield* SqlClient.SqlClient
        const snapshot = Effect.map(
          sql<{ number: string; record: string }>`SELECT number, CAST(record AS TEXT) AS record FROM designs`,
          (rows) => new Map(rows.map((r) => [r.number, JSON.parse(r.record) as Designs.Design]))
        )
        yield* add({ name: "all", criteria: everything, expiringWithin: 0 })
        yield* run()
        const before = yield* snapshot
        yield* control.advance("0 days")
        yield* TestClock.adjust(365 * day)
        const moved = yield* run()
        const after = yield* snapshot
        const names = (d: Designs.Design | undefined, key: "owners" | "classifications") =>
          (key === "owners" ? d?.owners?.map((o) => o.name) : d?.classifications?.map((c) => c.code)) ?? []
        const expected: Array<string> = []
        for (const [number, now] of after) {
          const old = before.get(number)
          if (old === undefined) expected.push(`new ${number}`)
          else if (old.status !== now.status) expected.push(`status ${number} ${old.status} ${now.status}`)
          for (const [key, event] of [["owners", "owner"], ["classifications", "classification"]] as const) {
            const [o, n] = [names(old, key), names(now, key)]
            if (old !== undefined && o.join() !== n.join()) expected.push(`${event} ${number} ${o} ${n}`)
          }
        }
        const events = moved.watches[0]!.events.filter((e) => e.event !== "expiring").map((e) =>
          [e.event, e.number, ...(e.event === "new" ? [] : [e.fields.old, e.fields.new].map(String))].join(" ")
        )
        expect(events.sort()).toEqual(expected.sort())
        for (const kind of ["new", "status", "owner", "classification"]) {
          expect(events.some((e) => e.startsWith(`${kind} `))).toBe(true)
        }
        expect(eventsOf(yield* run(), "all")).toEqual([])
      })))

    it.effect(`${engine}: an expiry within the horizon is told once per term, not at the baseline`, () =>
      watching(engine)(Effect.gen(function*() {
        yield* add({ name: "all", criteria: everything, expiringWithin: 365 })
        const sql = yield* SqlClient.SqlClient
        const expiring = (from: string, to: string) =>
          Effect.map(
            sql<{ number: string }>`SELECT number FROM designs WHERE status IN ('REGISTERED', 'CERTIFIED')
  AND expiry_date >= ${from} AND expiry_date <= ${to} ORDER BY expiry_date, number`,
            (rows) => rows.map((r) => `expiring ${r.number}`)
          )
        expect(eventsOf(yield* run(), "all")).toEqual([])
        expect((yield* expiring("2026-12-01", "2027-12-01")).length).toBeGreaterThan(0)
        yield* TestClock.adjust(365 * day)
        const later = yield* run()
        // Those within a year of 1 December 2027 that were not within a year of 1 December 2026.
        const told = yield* expiring("2027-12-02", "2028-11-30")
        expect(told.length).toBeGreaterThan(0)
        expect(eventsOf(later, "all")).toEqual(told)
        expect(later.watches[0]!.events[0]!.fields).toHaveProperty("expiryDate")
        expect(eventsOf(yield* run(), "all")).toEqual([])
        yield* TestClock.adjust(day)
        expect(eventsOf(yield* run(), "all")).toEqual(yield* expiring("2028-12-01", "2028-12-01"))
        // A new term (the expiry date moved, as a renewal moves it) is told again.
        const renewed = told[0]!.slice("expiring ".length)
        yield* sql`UPDATE designs SET expiry_date = ${"2028-11-30"} WHERE number = ${renewed}`
        expect(eventsOf(yield* run(), "all")).toContain(`expiring ${renewed}`)
        expect(eventsOf(yield* run(), "all")).toEqual([])
      })))

    it.effect(`${engine}: a run stopped part-way, then run again, loses nothing and tells nothing twice`, () =>
      watching(engine)(Effect.gen(function*() {
        const control = yield* Sandbox.SandboxControl
        yield* add({ name: "a", criteria: december })
        yield* add({ name: "b", criteria: unchanged })
        yield* run()
        const { designNumbers } = yield* matching(unchanged)
        yield* TestClock.adjust(day)
        yield* control.touch([designNumbers[3]!])
        // The second sync waits on a retry's backoff, which the TestClock never reaches: stopped there.
        const second = { body: { "rows[0].query.date.to": "2026-11-30" } }
        yield* control.injectFault({ target: "advanced", status: 503, count: 10, match: second })
        const fiber = yield* forkChild(run())
        const faulted = Effect.map(control.requests({ target: "advanced" }), (j) => j.entries.some((e) => e.fault))
        yield* Effect.repeat(Effect.tap(faulted, () => yieldNow), { until: (yes) => yes })
        yield* Fiber.interrupt(fiber)
        yield* control.reset
        // A run that fails part-way, after the first sync, then loses nothing either.
        yield* control.injectFault({ target: "advanced", status: 400, match: second })
        expect((yield* Effect.flip(run()))._tag).toBe("BadRequestError")
        const again = yield* run()
        expect(eventsOf(again, "a")).toEqual([`new ${designNumbers[3]}`])
        expect(eventsOf(again, "b")).toEqual([`no_longer_matching ${designNumbers[3]}`])
        expect(eventsOf(yield* run(), "a")).toEqual([])
      })))
  }

  describe("refusals", () => {
    it.effect("bad watches are refused before anything is stored; an unknown name is WatchNotFoundError", () =>
      watching(engines[0]!)(Effect.gen(function*() {
        const watch = yield* DesignWatch.DesignWatch
        const refused = (input: unknown) =>
          Effect.map(Effect.flip(watch.add(input as DesignWatch.WatchInput)), (e) => e._tag)
        expect(yield* refused({ name: "x" })).toBe("ValidationError")
        expect(yield* refused({ name: "", numbers: ["1"] })).toBe("ValidationError")
        expect(yield* refused({ name: "x", numbers: ["12a"] })).toBe("ValidationError")
        expect(yield* refused({ name: "x", criteria: { rows: "no" } })).toBe("ValidationError")
        expect(yield* refused({ name: "x", numbers: ["1"], expiringWithin: -1 })).toBe("ValidationError")
        yield* watch.add({ name: "x", numbers: ["201900001"] })
        expect(yield* refused({ name: "x", numbers: ["1"] })).toBe("ValidationError")
        expect((yield* Effect.flip(watch.run(["y"])))._tag).toBe("WatchNotFoundError")
        expect((yield* Effect.flip(watch.report("y")))._tag).toBe("WatchNotFoundError")
        yield* watch.remove("x")
        expect(yield* watch.list).toEqual([])
        expect((yield* Effect.flip(watch.remove("x")))._tag).toBe("WatchNotFoundError")
      })))
  })
})
