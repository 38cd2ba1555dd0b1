/**
 * The register that moves on (`SandboxControl.advance`, docs/library.md): still until advanced, then
 * a function of the seed, its start and the time elapsed on the clock plus the advances, whatever
 * the steps; what moved is found by `changedSinceDate` and served by every operation.
 */
import type { DurationInput } from "#edition/internal/seam"
import { schemaErrorTag, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import fc from "fast-check"
import { generateDesigns } from "../src/core/sandbox/dataset.js"
import * as Register from "../src/core/sandbox/register.js"
import * as SearchIndex from "../src/core/sandbox/searchIndex.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import type { Designs } from "../src/index.js"

const day = 86_400_000
const start = Date.UTC(2026, 11, 1)
const every = { rows: [{ op: "AND_NOT" as const, query: { designNumber: "none" } }] }

const TestLayer = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer()))
const inSandbox = <A, E>(effect: Effect.Effect<A, E, DesignSearchClient.DesignSearchClient | Sandbox.SandboxControl>) =>
  Effect.andThen(TestClock.setTime(start), effect).pipe(Effect.provide(TestLayer))

/** Every design of the sandbox, as its paged search serves them. */
const register = Effect.gen(function*() {
  const client = yield* DesignSearchClient.DesignSearchClient
  const designs: Array<Designs.Design> = []
  for (let page = 0;; page++) {
    const { data } = yield* client.searchPage({ ...every, pageNumber: page, pageSize: 100 })
    designs.push(...data.designs)
    if (designs.length >= data.count) return designs
  }
})

const control = Sandbox.SandboxControl
/** A date of a design as the client decodes it, as its day `YYYY-MM-DD`. */
const dayOf = (date: unknown) => String(JSON.stringify(date)).slice(1, 11)

describe("SandboxControl.advance", () => {
  it.effect("nothing moves until the register is advanced, however far the clock goes", () =>
    inSandbox(Effect.gen(function*() {
      const before = yield* register
      yield* TestClock.adjust(Duration.days(800))
      expect(yield* register).toEqual(before)
      expect(before.map((d) => d.number)).toEqual(generateDesigns(500, 1).map((d) => d.number).sort())
    })))

  it.effect("a year: each event's designs, in the service's words, found since the day before they moved", () =>
    inSandbox(Effect.gen(function*() {
      const before = new Map((yield* register).map((d) => [d.number, d]))
      const summary = yield* (yield* control).advance("365 days")
      const after = yield* register
      const moved = after.filter((d) => JSON.stringify(d) !== JSON.stringify(before.get(d.number)))
      const { days, ...events } = summary
      expect(days).toBe(365)
      // every kind of event happens in a year of the default dataset
      for (const [event, count] of Object.entries(events)) expect(count, event).toBeGreaterThan(0)
      const filed = after.filter((d) => !before.has(d.number))
      expect(filed).toHaveLength(summary.filed)
      expect(after).toHaveLength(500 + summary.filed)
      for (const design of filed) {
        // filed in the year, and perhaps moved on since
        expect(dayOf(design.filingDate) > "2026-12-01" && dayOf(design.filingDate) <= dayOf(design.lastChanged)).toBe(
          true
        )
        expect(design.number.slice(0, 4)).toBe(dayOf(design.filingDate).slice(0, 4))
        expect(design.owners?.[0]?.name).toMatch(/\w/)
        expect(design.classifications?.[0]?.code).toMatch(/^\d\d-\d\d$/)
      }
      const words = ["FILED", "REGISTERED", "CERTIFIED", "LAPSED", "CEASED", "EXPIRED", "REFUSED", "WITHDRAWN"]
      for (const design of moved) {
        expect(words).toContain(design.status)
        expect(dayOf(design.lastChanged) > "2026-12-01" && dayOf(design.lastChanged) <= "2027-12-01").toBe(true)
      }
      const was = (d: Designs.Design) => before.get(d.number)
      const changes = (status: string) =>
        moved.filter((d) => before.has(d.number) && d.status === status && was(d)?.status !== status)
      for (const design of changes("REGISTERED")) {
        expect(was(design)?.status).toBe("FILED")
        expect(dayOf(design.registrationDate) <= dayOf(design.lastChanged)).toBe(true)
        expect(dayOf(design.registrationDate) > "2026-12-01").toBe(true)
      }
      for (const design of changes("LAPSED")) {
        expect(["FILED", "REGISTERED", "CERTIFIED"]).toContain(was(design)?.status)
      }
      const assigned = moved.filter((d) => was(d) && d.owners?.[0]?.name !== was(d)?.owners?.[0]?.name)
      expect(assigned.length).toBeGreaterThanOrEqual(summary.assigned)
      // the search index and get-by-number serve the moved register, and `changedSinceDate` finds it
      const client = yield* DesignSearchClient.DesignSearchClient
      const since = yield* client.advancedSearch({ ...every, changedSinceDate: "2026-12-02" })
      expect([...since.data.designNumbers].sort()).toEqual(moved.map((d) => d.number).sort())
      const one = moved[0]!
      expect((yield* client.getDesign(one.number)).data).toEqual(one)
      const word = one.title!.split(" ").at(-1)!
      expect((yield* client.quickSearch({ query: word })).data.designNumbers).toContain(one.number)
      // advancing is no request: the journal and the counters hold the client's requests only
      const stats = yield* (yield* control).stats
      const journal = yield* (yield* control).requests()
      const sent = Object.values(stats.requests).reduce((a, b) => a + b, 0)
      expect(journal.entries).toHaveLength(sent)
    })))

  it.effect("ten days twice, twenty days once, and advance(0) then twenty days on the clock are one register", () =>
    Effect.gen(function*() {
      const twice = yield* inSandbox(Effect.gen(function*() {
        const c = yield* control
        const [a, b] = [yield* c.advance("10 days"), yield* c.advance(Duration.days(10))]
        expect(a.days + b.days).toBe(20)
        return yield* register
      }))
      const once = yield* inSandbox(Effect.andThen(Effect.flatMap(control, (c) => c.advance("20 days")), register))
      const clocked = yield* inSandbox(Effect.gen(function*() {
        yield* (yield* control).advance(0)
        yield* TestClock.adjust(Duration.days(20))
        return yield* register
      }))
      expect(twice).toEqual(once)
      expect(clocked).toEqual(once)
      expect(once.length).toBeGreaterThanOrEqual(500)
    }))

  it.effect("reset brings the register back to where it stood before it was advanced, and still", () =>
    inSandbox(Effect.gen(function*() {
      const c = yield* control
      yield* c.touch([Sandbox.fixedNumbers.chair])
      const before = yield* register
      yield* c.advance("200 days")
      expect(yield* register).not.toEqual(before)
      yield* c.reset
      expect(yield* register).toEqual(before)
      yield* TestClock.adjust(Duration.days(200))
      expect(yield* register).toEqual(before)
    })))

  it.effect("refuses a negative, infinite or unreadable duration, moving nothing", () =>
    inSandbox(Effect.gen(function*() {
      const c = yield* control
      const before = yield* register
      for (const bad of [-1, "-3 days", Infinity, Duration.infinity, Number.NaN, "soon"]) {
        const error = yield* Effect.flip(c.advance(bad as DurationInput))
        expect(error._tag, String(bad)).toBe(schemaErrorTag)
        expect(error.message).toContain("expected a finite duration of zero or more")
      }
      yield* TestClock.adjust(Duration.days(30))
      expect(yield* register).toEqual(before)
      expect(yield* c.advance(0)).toMatchObject({ days: 0, filed: 0, registered: 0 })
    })))
})

describe("the register's steps", () => {
  const designs = generateDesigns(200, 3)
  const run = (steps: ReadonlyArray<readonly ["advance" | "clock", number]>) => {
    const index = SearchIndex.make(designs)
    const r = Register.make(index, 3, designs)
    let now = start + 7 * 3_600_000
    r.advance(0, now)
    for (const [how, days] of steps) {
      if (how === "advance") r.advance(days * day, now)
      else r.at(now += days * day)
    }
    return JSON.stringify(index.advanced(every, 0, 1e6).designs)
  }

  it("are the same register, whatever the steps of advances and clock time that make up the days", () => {
    const whole = run([["advance", 90]])
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("advance" as const, "clock" as const), fc.integer({ min: 0, max: 30 })), {
          maxLength: 8
        }),
        (steps) => {
          const done = steps.reduce((n, [, d]) => n + d, 0)
          return done > 90 || run([...steps, ["advance", 90 - done]]) === whole
        }
      ),
      { numRuns: 40 }
    )
  })
})

describe("POST /__sandbox/advance", () => {
  /** A POST of `body` to the served sandbox's `route`: its status and JSON. */
  const post = (served: Sandbox.Served, body: string, type = "application/json", route = "advance") =>
    Effect.promise(async () => {
      const response = await fetch(`${served.url}/__sandbox/${route}`, {
        method: "POST",
        headers: { "content-type": type },
        body
      })
      const text = await response.text()
      return { status: response.status, json: text === "" ? undefined : JSON.parse(text) as Record<string, unknown> }
    })

  it.live("moves the served register as advance does in process; bad bodies are spec-shaped refusals", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const inProcess = yield* Sandbox.make()
      const [days, duration] = [yield* post(served, `{"days": 30}`), yield* post(served, `{"duration": "5 days"}`)]
      expect(days).toEqual({ status: 200, json: { data: yield* inProcess.control.advance("30 days") } })
      expect(duration).toEqual({ status: 200, json: { data: yield* inProcess.control.advance("5 days") } })
      expect(days.json?.["data"]).toMatchObject({ days: 30 })
      const refusals = [
        [`{"days": -1}`, 422, "/days"],
        [`{"days": 1.5}`, 422, "/days"],
        [`{"duration": "soon"}`, 422, ""],
        [`{"duration": "-3 days"}`, 422, ""],
        [`{"days": 1, "duration": "1 day"}`, 422, "/duration"],
        [`{}`, 422, "/days"],
        [`{"days": 1`, 400, undefined],
        [`[]`, 422, ""]
      ] as const
      for (const [body, status, pointer] of refusals) {
        const answer = yield* post(served, body)
        expect(answer.status, body).toBe(status)
        const [error] = answer.json?.["errors"] as ReadonlyArray<{ code: string; detail: string; source?: object }>
        expect(error?.detail, body).toMatch(/\w/)
        if (pointer !== undefined) expect(error?.source, body).toMatchObject({ pointer })
      }
      expect((yield* post(served, `{"days": 1}`, "text/plain")).status).toBe(415)
      // nothing refused moved it: it stands where the two steps left it
      const stats = yield* Effect.promise(() => fetch(`${served.url}/__sandbox/stats`).then((r) => r.json()))
      expect(stats).toMatchObject({ tokensIssued: 0 })
      const reset = yield* post(served, "", "application/json", "reset")
      expect(reset.status).toBe(204)
    })))
})
