/**
 * The mirror on the engines the edition has: SQLite files in a temporary folder (through
 * `@effect/sql-libsql`, Effect 3 only) and a real PostgreSQL server on loopback (through
 * `@effect/sql-pg`), fed by the in-process sandbox, with time on the `TestClock`: the first sync and
 * the incremental ones with their request counts, runs stopped and resumed, the options checked, what
 * the editions share (migrations, criteria keys, a mirror one wrote), and a database that is away.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { exitInterrupted, forkChild, Result } from "#edition/internal/seam"
import { edition, TestClock } from "#test-edition/support/seam"
import { describe, expect, it as plain, layer, vi } from "@effect/vitest"
import { Context, DateTime, Effect, Exit, Fiber, Layer, Option, Scope, Stream } from "effect"
import * as DesignMirror from "../src/DesignMirror.js"
import type { ApiError, Designs } from "../src/index.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"
import {
  apiRequests,
  changesOf,
  counted,
  databaseUrl,
  day,
  designs,
  engines,
  ever,
  everything,
  onEngine,
  postgresAt,
  record,
  rows,
  stateOf,
  unchanged
} from "./support/mirror.js"
import { effect3Sync } from "./support/mirrorSync.js"
import * as Pg from "./support/postgres.js"

// Each test builds a database and syncs it, on a machine other tests load too.
vi.setConfig({ testTimeout: 120_000 })

layer(Pg.layer, { timeout: "120 seconds" })("DesignMirror", (it) => {
  for (const engine of engines) {
    it.effect(`${engine}: a first sync stores every matching design as get prints it; a second with nothing changed makes two requests`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const first = yield* mirror.sync(everything)
        const counts = { searched: designs, matching: designs, fetched: designs, inserted: designs }
        // three pages and the listing
        const rest = { updated: 0, unchanged: 0, noLongerMatching: 0, requests: 4 }
        expect(first).toMatchObject({ full: true, resumed: false, watermark: "2026-12-01", ...counts, ...rest })
        expect(yield* apiRequests).toBe(4)
        const stored = yield* rows
        expect(stored).toHaveLength(designs)
        expect(new Set(stored.map((r) => r.state))).toEqual(new Set(["current"]))
        expect(new Set(stored.map((r) => r.criteria_key))).toEqual(new Set([first.criteriaKey]))
        for (const row of [stored[0]!, stored[117]!, stored[designs - 1]!]) {
          expect(JSON.parse(row.record)).toEqual(JSON.parse(yield* record(row.number)))
        }
        expect(yield* stateOf(everything)).toMatchObject({ watermark: Option.some("2026-12-01"), inProgress: false })

        yield* TestClock.adjust(day)
        const [second, requests] = yield* counted(mirror.sync(everything))
        expect(second).toMatchObject({
          full: false,
          changedSince: "2026-12-01",
          watermark: "2026-12-02",
          requests: 2
        })
        expect(second).toMatchObject({ fetched: 0, inserted: 0, updated: 0, matching: designs })
        expect(requests).toBe(2)
        expect(yield* rows).toEqual(stored)
      })))

    it.effect(`${engine}: after touch, exactly the touched designs are fetched again, their rows updated and their changes recorded`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        yield* mirror.sync(everything)
        const before = yield* rows
        const touched = [before[3]!.number, before[150]!.number, before[200]!.number]
        yield* TestClock.adjust(day)
        yield* control.touch(touched)
        const [report, requests] = yield* counted(mirror.sync(everything))
        expect(report).toMatchObject({ searched: 3, fetched: 3, updated: 3, inserted: 0, unchanged: 0, requests: 2 })
        expect(requests).toBe(2)
        const after = yield* rows
        const changed = after.filter((r, i) => r.record !== before[i]!.record).map((r) => r.number)
        expect(changed).toEqual(touched)
        for (const n of touched) {
          const row = after.find((r) => r.number === n)!
          expect(JSON.parse(row.record)).toEqual(JSON.parse(yield* record(n)))
          expect(JSON.parse(row.record).title).toMatch(/ \(amended\)$/)
          expect(row.last_changed).toBe("2026-12-02")
        }
        // A sync the same day asks for that day again: the touched designs come back, unchanged.
        const again = yield* mirror.sync(everything)
        expect(again).toMatchObject({ changedSince: "2026-12-02", fetched: 3, unchanged: 3, updated: 0 })
      })))

    it.effect(`${engine}: a run interrupted half-way, then one that fails, lose nothing; the next ends with every row and the first run's watermark`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        // Interrupted once 100 designs (a page, a transaction) are committed.
        const exit = yield* mirror.sync(everything, {
          concurrency: 1,
          onProgress: ({ committed }) => committed >= 100 ? Effect.interrupt : Effect.void
        }).pipe(forkChild, Effect.flatMap(Fiber.await))
        expect(exitInterrupted(exit)).toBe(true)
        const half = yield* rows
        expect(half).toHaveLength(100)
        const stopped = yield* stateOf(everything)
        expect([stopped.watermark, stopped.inProgress]).toEqual([Option.none(), true])

        // The next day it goes on from there, and fails at the listing: every row is in, no watermark yet.
        yield* TestClock.adjust(day)
        yield* control.injectFault({ target: "advanced", status: 400 })
        const pagesBefore = (yield* control.stats).requests.page
        const failed = yield* Effect.flip(mirror.sync(everything))
        expect(failed._tag).toBe("BadRequestError")
        // pages 1 and 2: the first was committed
        expect((yield* control.stats).requests.page - pagesBefore).toBe(2)
        expect(yield* rows).toHaveLength(designs)
        expect((yield* stateOf(everything)).watermark).toEqual(Option.none())

        const [resumed, requests] = yield* counted(mirror.sync(everything))
        expect(resumed).toMatchObject({ resumed: true, full: true, watermark: "2026-12-01", inserted: 0 })
        // the last page again (its rows were committed, the run was not), and the listing
        expect(requests).toBe(2)
        const all = yield* rows
        expect(all).toHaveLength(designs)
        expect(all.every((r) => r.state === "current")).toBe(true)
        expect(yield* stateOf(everything)).toMatchObject({ watermark: Option.some("2026-12-01"), inProgress: false })
      })))

    it.effect(`${engine}: a sync stopped between its history and its rows, then resumed the next day, writes each change once, at the run's start`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        const sql = yield* SqlClient.SqlClient
        // A trigger that fails a write of `designs` (on `event`, where `when` holds), as a crash between statements would.
        const stopWrites = (event: "INSERT" | "UPDATE", when: string) =>
          engine === "sqlite"
            ? sql.unsafe(`CREATE TRIGGER stop BEFORE ${event} ON designs WHEN ${when}
  BEGIN SELECT RAISE(ABORT, 'stopped'); END`)
            : Effect.andThen(
              sql.unsafe(`CREATE OR REPLACE FUNCTION stop() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN IF ${when} THEN RAISE EXCEPTION 'stopped'; END IF; RETURN NEW; END $$`),
              sql.unsafe(`CREATE TRIGGER stop BEFORE ${event} ON designs FOR EACH ROW EXECUTE FUNCTION stop()`)
            )
        const stoppedThenResumed = <A, E extends { readonly _tag: string }, R>(sync: Effect.Effect<A, E, R>) =>
          Effect.gen(function*() {
            expect((yield* Effect.flip(sync))._tag).toBe("MirrorDatabaseError")
            yield* sql.unsafe(engine === "sqlite" ? "DROP TRIGGER stop" : "DROP TRIGGER stop ON designs")
            yield* TestClock.adjust(day)
            expect(yield* sync).toMatchObject({ resumed: true })
          })
        const history = (kind: string) =>
          Effect.map(
            sql<
              { n: number | string; runs: number | string }
            >`SELECT COUNT(*) AS n, COUNT(DISTINCT synced_at) AS runs
  FROM design_changes WHERE kind = ${kind}`,
            ([row]) => [Number(row!.n), Number(row!.runs)]
          )
        const listed = (kind: DesignMirror.ChangeKind) => Effect.map(changesOf({ kind }), (c) => c.length)

        // The first batch is in; the second's history is written, its rows are not.
        yield* stopWrites("INSERT", "(SELECT COUNT(*) FROM designs) >= 100")
        yield* stoppedThenResumed(mirror.sync(everything))
        expect(yield* rows).toHaveLength(designs)
        expect(yield* history("new")).toEqual([designs, 1])
        // By default `changes` starts at the run's start, which is the first attempt's.
        expect(yield* listed("new")).toBe(designs)

        // A changed design's stopped write leaves its old record: the same difference is seen again.
        const touched = (yield* rows).slice(0, 3).map((r) => r.number)
        yield* TestClock.adjust(day)
        yield* control.touch(touched)
        yield* stopWrites("UPDATE", "true")
        yield* stoppedThenResumed(mirror.sync(everything))
        expect(yield* history("changed")).toEqual([3, 1])
        expect(yield* listed("changed")).toBe(3)

        // Rows marked no longer matching: the history of the stopped mark is not written twice.
        yield* mirror.sync(unchanged)
        yield* control.touch((yield* rows).slice(3, 5).map((r) => r.number))
        yield* stopWrites("UPDATE", "true")
        yield* stoppedThenResumed(mirror.sync(unchanged))
        expect(yield* history("no_longer_matching")).toEqual([2, 1])
        expect(yield* listed("no_longer_matching")).toBe(2)
      })))

    it.effect(`${engine}: designs that no longer match are marked no_longer_matching, and current again when they match`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        yield* mirror.sync(unchanged)
        const before = yield* rows
        const out = [before[10]!.number, before[20]!.number]
        yield* control.touch(out)
        const [report, requests] = yield* counted(mirror.sync(unchanged))
        expect(report).toMatchObject({ fetched: 0, noLongerMatching: 2, matching: designs - 2, requests: 2 })
        expect(requests).toBe(2)
        const after = yield* rows
        expect(after).toHaveLength(designs)
        expect(after.filter((r) => r.state !== "current").map((r) => [r.number, r.state])).toEqual(
          out.map((n) => [n, "no_longer_matching"])
        )

        // Another criteria that lists them again makes them current again, with their new record.
        const everyOne = yield* mirror.sync({ rows: [{ op: "AND", query: { designNumber: out[0]! } }] })
        expect(everyOne).toMatchObject({ fetched: 1, updated: 1 })
        const row = (yield* rows).find((r) => r.number === out[0])!
        expect([row.state, JSON.parse(row.record)]).toEqual(["current", JSON.parse(yield* record(out[0]!))])
      })))

    it.effect(`${engine}: a quick search listing a number twice, or a get answering with another number, writes each design once`, () => {
      const numbers = { a: "", b: "", c: "" }
      return onEngine(engine, {
        wrap: (client) => ({
          ...client,
          // the search lists a twice and c, whose get answers with a
          quickSearch: (request) =>
            Effect.map(client.quickSearch(request), (r) => {
              const [a, b, c] = r.data.designNumbers
              Object.assign(numbers, { a, b, c })
              return { ...r, data: { ...r.data, count: 3, designNumbers: [a!, a!, b!, c!] } }
            }),
          getDesign: (n) => client.getDesign(n === numbers.c ? numbers.a : n)
        })
      })(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const report = yield* mirror.sync({ query: "table" })
        // a and b, then c again for the listing (it has no row): its get answers with a, unchanged
        expect(report).toMatchObject({ searched: 3, fetched: 3, inserted: 2, unchanged: 1, notFound: 0 })
        // the two searches, a get each for a, b and c, and c again
        expect(report.requests).toBe(6)
        expect((yield* rows).map((r) => r.number)).toEqual([numbers.a, numbers.b].sort())
      }))
    })

    it.effect(`${engine}: a run that receives fewer designs than counted commits them, keeps the watermark and fails IncompleteSyncError`, () => {
      let cut: "no" | "warned" | "silent" = "no"
      const fewer = {
        code: "FEWER_THAN_COUNTED",
        detail: "page 0 held 5 designs where 100 were asked for, though 240 were counted (3 pages)",
        severity: "warning"
      } as const
      return onEngine(engine, {
        wrap: (client) => ({
          ...client,
          advancedDesigns: (request, options = {}) =>
            cut === "no" ? client.advancedDesigns(request, options) : Stream.take(
              client.advancedDesigns(request, {
                ...options,
                onPage: (page) =>
                  (options.onPage ?? (() => Effect.void))(
                    cut === "warned" ? { ...page, messages: [...page.messages, fewer] } : page
                  )
              }),
              5
            )
        })
      })(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        yield* mirror.sync(everything)
        const numbers = (yield* rows).map((r) => r.number)
        yield* TestClock.adjust(day)
        yield* control.touch(numbers)

        // Told 240 changed, 5 received, with the stream's warning.
        cut = "warned"
        const warned = yield* Effect.flip(mirror.sync(everything))
        expect(warned).toMatchObject({
          _tag: "IncompleteSyncError",
          fetched: 5,
          watermark: "2026-12-01",
          detail: fewer.detail
        })
        expect((yield* rows).filter((r) => r.record.includes("(amended)"))).toHaveLength(5)
        expect(yield* stateOf(everything)).toMatchObject({ watermark: Option.some("2026-12-01"), inProgress: false })

        // The same, though nothing warned of it: the designs received are counted.
        yield* TestClock.adjust(day)
        cut = "silent"
        const silent = yield* Effect.flip(mirror.sync(everything))
        expect(silent).toMatchObject({ _tag: "IncompleteSyncError", watermark: "2026-12-01" })
        expect(silent.message).toContain("counted 240 designs and 5 were received")

        // A later run asks again since the kept watermark, and gets every change.
        yield* TestClock.adjust(day)
        cut = "no"
        const after = yield* mirror.sync(everything)
        expect(after).toMatchObject({ changedSince: "2026-12-01", watermark: "2026-12-04", fetched: designs })
        expect(after).toMatchObject({ updated: designs - 5, unchanged: 5 })
        expect((yield* rows).every((r) => r.record.includes("(amended)"))).toBe(true)
      }))
    })

    it.effect(`${engine}: a quick search listing fewer numbers than it counts commits those and keeps the watermark unset`, () =>
      onEngine(engine, { sandbox: { resultCap: 2 } })(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const table: Designs.QuickSearchRequest = { query: "table" }
        const listed = (yield* Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.quickSearch(table))).data
        expect(listed.count).toBeGreaterThan(2)
        const failed = yield* Effect.flip(mirror.sync(table))
        expect(failed).toMatchObject({ _tag: "IncompleteSyncError", fetched: 2, watermark: null })
        expect(failed.message).toContain(`the search counted ${listed.count} designs and listed 2`)
        expect(yield* rows).toHaveLength(2)
        expect(yield* stateOf(table)).toMatchObject({ watermark: Option.none(), inProgress: false })
      })))

    it.effect(`${engine}: a quick search is mirrored by search and gets; a design the service no longer finds is marked not_found`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        const chair: Designs.QuickSearchRequest = { query: "chair" }
        const first = yield* mirror.sync(chair)
        const listed = (yield* Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.quickSearch(chair))).data
        expect(first).toMatchObject({ fetched: listed.count, inserted: listed.count, requests: listed.count + 2 })
        expect((yield* rows).map((r) => r.number)).toEqual([...listed.designNumbers].sort())

        // Touched designs are got again; one the service answers 404 for is marked.
        const [gone, amended] = listed.designNumbers
        yield* TestClock.adjust(day)
        yield* control.touch([gone!, amended!])
        yield* control.injectFault({ target: "design", status: 404 })
        const second = yield* mirror.sync(chair, { concurrency: 1 })
        expect(second).toMatchObject({ fetched: 1, updated: 1, notFound: 1 })
        expect((yield* rows).filter((r) => r.state !== "current").map((r) => r.number)).toEqual([gone])
      })))

    it.effect(`${engine}: criteria and options that are not valid fail a client ValidationError before anything is written or sent`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const chair = { query: "chair" }
        // criteria, options, and where the error points
        const badCriteria = (at: string, ...all: Array<unknown>) => all.map((c) => [c, undefined, at] as const)
        const badOptions = (at: string, ...all: Array<unknown>) => all.map((o) => [chair, o, at] as const)
        const cases: ReadonlyArray<readonly [unknown, unknown, string]> = [
          ...badCriteria("criteria", null, undefined, 5, "chair", Symbol("chair")),
          ...badCriteria("/query", { query: "" }),
          ...badCriteria("/colour", { query: "chair", colour: "red" }),
          ...badCriteria("/rows", { rows: [] }),
          ...badOptions("options", null, 5),
          ...badOptions("onProgress", { onProgress: 5 }),
          ...badOptions("concurrency", { concurrency: 0 }, { concurrency: Number.NaN }, { concurrency: "4" }),
          [everything, { concurrency: 1.5 }, "concurrency"]
        ]
        for (const [criteria, options, at] of cases) {
          const error = yield* Effect.flip(mirror.sync(criteria as never, options as never))
          expect(error, String(at)).toMatchObject({ _tag: "ValidationError", origin: "client" })
          const pointed = (error as ApiError.ValidationError).errors.map((e) =>
            e.source?.pointer ?? e.source?.parameter
          )
          expect(pointed, String(at)).toContain(at)
        }
        expect(yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM design_sync_state`)).toEqual([])
        expect(yield* apiRequests).toBe(0)
        expect(Result.isFailure(DesignMirror.criteriaKey({ query: "" }))).toBe(true)
        // `state` refuses the criteria `sync` refuses, rather than answer "never synced"
        const refusedCriteria = [...cases.filter(([, o]) => o === undefined).map(([c]) => c), { query: "\u0000" }]
        for (const criteria of refusedCriteria) {
          const error = yield* Effect.flip(mirror.state(criteria as never))
          expect(error, String(criteria)).toMatchObject({ _tag: "ValidationError", origin: "client" })
        }
        // `changes` checks its options alike, through the service and the accessor
        const changesCases: ReadonlyArray<readonly [unknown, string]> = [
          [null, "options"],
          [5, "options"],
          [{ since: "yesterday" }, "since"],
          [{ since: new Date() }, "since"],
          [{ kind: "bogus" }, "kind"]
        ]
        for (const [options, at] of changesCases) {
          for (const changes of [mirror.changes, DesignMirror.changes]) {
            const error = yield* Effect.flip(Stream.runCollect(Stream.suspend(() => changes(options as never))))
            expect(error, at).toMatchObject({ _tag: "ValidationError", origin: "client" })
            const pointed = (error as ApiError.ValidationError).errors.map((e) => e.source?.parameter)
            expect(pointed, at).toEqual([at])
          }
        }
        // the documented forms: nothing, a `DateTime` (UTC or zoned), a kind
        const since = Option.getOrThrow(DateTime.makeZoned(0, { timeZone: "Australia/Sydney" }))
        for (const options of [undefined, {}, { since, kind: "new" as const }, { since: ever }]) {
          expect(yield* changesOf(options)).toEqual([])
        }
      })))
  }

  it.effect("postgres: a connection timeout out of range, or a schema PostgreSQL would refuse, cut or keep for its catalogs, fails a MirrorDatabaseError before any connection; any other schema name works", () =>
    Effect.gen(function*() {
      const url = yield* databaseUrl
      for (const connectTimeoutMillis of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "5000"]) {
        const layer = DesignMirror.layerPostgres({ url, connectTimeoutMillis: connectTimeoutMillis as number })
        const error = yield* Effect.flip(Effect.scoped(Layer.build(layer)))
        expect(error, String(connectTimeoutMillis)).toMatchObject({ _tag: "MirrorDatabaseError" })
        expect(error.message).toContain("connectTimeoutMillis must be a number of milliseconds")
      }
      for (const options of [null, undefined, "postgres://x"]) {
        const error = yield* Effect.flip(Effect.scoped(Layer.build(DesignMirror.layerPostgres(options as never))))
        expect(error, String(options)).toMatchObject({ _tag: "MirrorDatabaseError" })
        expect(error.message).toContain("layerPostgres takes options { url, connectTimeoutMillis? }")
      }
      const sql = DesignMirror.layerPostgres({ url, connectTimeoutMillis: 2000 })
      const deps = Layer.merge(sql, clientLayer({ sandbox: { designs: 1 } }))
      const schemas = Effect.flatMap(
        SqlClient.SqlClient,
        (s) => s<{ name: string }>`SELECT nspname AS name FROM pg_namespace`
      )
      const before = yield* Effect.provide(schemas, sql)
      const badSchema = { _tag: "MirrorDatabaseError", detail: expect.stringMatching(/^schema must be/) }
      // 64 bytes: PostgreSQL would keep 63, and two such names would be one schema
      for (
        const schema of [
          "",
          5,
          "a\u0000b",
          "s".repeat(64),
          "é".repeat(32),
          "information_schema",
          "pg_catalog",
          "pg_x",
          "$user"
        ]
      ) {
        const made = Effect.scoped(Layer.build(DesignMirror.layer({ schema: schema as string })))
        const error = yield* Effect.flip(Effect.provide(made, deps))
        expect(error, String(schema)).toMatchObject(badSchema)
        const read = Stream.runCollect(DesignMirror.changes({ schema: schema as string }))
        expect(yield* Effect.flip(Effect.provide(read, sql))).toMatchObject({ _tag: "MirrorDatabaseError" })
      }
      expect(yield* Effect.provide(schemas, sql)).toEqual(before)
      // Any other name PostgreSQL keeps whole (63 bytes at most) is quoted as an identifier everywhere.
      yield* Effect.provide(SqlClient.SqlClient.pipe(Effect.flatMap((s) => s`CREATE TABLE canary (x int)`)), sql)
      for (const schema of ["DesignSearch", "A", "a b", `evil"; DROP TABLE canary; --`, "é".repeat(31) + "s"]) {
        yield* Effect.provide(Effect.scoped(Layer.build(DesignMirror.layer({ schema }))), deps)
        expect((yield* Effect.provide(schemas, sql)).map((r) => r.name)).toContain(schema)
        expect(yield* Effect.provide(Stream.runCollect(DesignMirror.changes({ schema })), sql)).toHaveLength(0)
      }
      const canary = SqlClient.SqlClient.pipe(Effect.flatMap((s) => s`SELECT count(*)::int AS n FROM canary`))
      expect(yield* Effect.provide(canary, sql)).toEqual([{ n: 0 }])
    }))

  it.effect("postgres: its migrations and criteria keys are the same in either edition", () =>
    onEngine("postgres")(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const migrations = yield* sql<{ migration_id: number; name: string }>`SELECT migration_id, name
  FROM design_search.design_mirror_migrations ORDER BY migration_id`
      expect(migrations.map((m) => [Number(m.migration_id), m.name])).toEqual([
        [1, "designs_and_sync_state"],
        [2, "designs_by_criteria_in_order"],
        [3, "typed_tables_and_history"]
      ])
      // The keys of the same criteria, whatever their order and changedSinceDate.
      const reordered = {
        rows: [{ query: { date: { from: "1900-01-01", type: "FILING" } }, op: "AND" }],
        changedSinceDate: "2026-01-01"
      } as const
      for (const criteria of [everything, reordered]) {
        expect(DesignMirror.criteriaKey(criteria)).toEqual(Result.succeed("7e5635679a5611e6f75cadb549ab45df"))
      }
      const mirror = yield* DesignMirror.DesignMirror
      const report = yield* mirror.sync({ query: "chair" })
      expect(report.criteriaKey).toBe("25b326be21e67d71b8f5f946d8238f55")
      // Building it again over the same database migrates nothing and keeps the rows.
      const stored = yield* rows
      yield* DesignMirror.make()
      expect(yield* rows).toEqual(stored)
    })))

  it.effect("postgres: a mirror the Effect 3 edition synced in a process of its own is taken up: its rows as they would be written here, its watermark", () =>
    Effect.gen(function*() {
      const url = yield* databaseUrl
      const written = yield* effect3Sync(url)
      expect(written.fetched).toBe(designs)
      yield* onEngine("postgres", { sql: postgresAt(url) })(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const before = yield* rows
        expect(before).toHaveLength(designs)
        for (const row of [before[0]!, before[designs - 1]!]) {
          expect(JSON.parse(row.record)).toEqual(JSON.parse(yield* record(row.number)))
        }
        const [report, requests] = yield* counted(mirror.sync(everything))
        expect(report).toMatchObject({ criteriaKey: written.criteriaKey, full: false, changedSince: written.watermark })
        expect(report).toMatchObject({ fetched: 0, inserted: 0, updated: 0, matching: designs })
        expect(requests).toBe(2)
        expect(yield* rows).toEqual(before)
        expect(yield* changesOf({ kind: "new", since: ever })).toHaveLength(designs)
      }))
    }))

  it.effect("postgres: so is one it synced in a schema of a name to quote, and only that schema is read", () =>
    Effect.gen(function*() {
      const url = yield* databaseUrl
      const schema = `Design "Search" é;`
      const written = yield* effect3Sync(url, schema)
      expect(written.fetched).toBe(designs)
      yield* onEngine("postgres", { sql: postgresAt(url), options: { schema } })(Effect.gen(function*() {
        const [report, requests] = yield* counted((yield* DesignMirror.DesignMirror).sync(everything))
        expect(report).toMatchObject({ criteriaKey: written.criteriaKey, full: false, changedSince: written.watermark })
        expect(report).toMatchObject({ fetched: 0, inserted: 0, matching: designs })
        expect(requests).toBe(2)
        expect(yield* changesOf({ kind: "new", since: ever })).toHaveLength(designs)
        const sql = yield* SqlClient.SqlClient
        const names = yield* sql<
          { name: string }
        >`SELECT nspname AS name FROM pg_namespace WHERE nspname = 'design_search'`
        expect(names).toEqual([])
      }))
    }))
})

/** Effect 4's `SqlError` has a reason, which the detail names first (`databaseError`); Effect 3's has none. */
const reason = (words: string) => ({ 3: "", 4: `${words}: ` })[edition]

describe("DesignMirror: a database that is away", () => {
  plain.live(
    "a server that cannot be reached, or refuses the credentials, fails the layer, saying which",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const build = (url: string) => Effect.flip(Layer.build(DesignMirror.layerPostgres({ url })))
        const unreachable = yield* build("postgres://nobody:secret@127.0.0.1:1/none")
        expect(unreachable._tag).toBe("MirrorDatabaseError")
        expect(unreachable.message).toContain(`connecting to PostgreSQL: ${reason("no connection")}`)
        expect(unreachable.message).not.toContain("secret")
        const server = yield* Pg.postgresServer
        const stranger = yield* build(`postgres://stranger@127.0.0.1:${server.port}/postgres`)
        expect(stranger._tag).toBe("MirrorDatabaseError")
        expect(stranger.message).toContain(`connecting to PostgreSQL: ${reason("the server refused the credentials")}`)
        expect(stranger.message).toContain("stranger")
      }))
  )

  plain.live(
    "a server that stops under a built mirror: sync, state and changes fail MirrorDatabaseError",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const serverScope = yield* Scope.make()
        const server = Context.get(yield* Layer.buildWithScope(Pg.layer, serverScope), Pg.Postgres)
        const url = yield* server.database("away")
        const deps = Layer.merge(DesignMirror.layerPostgres({ url }), clientLayer({ sandbox: { designs: 20 } }))
        const context = yield* Layer.build(DesignMirror.layer().pipe(Layer.provide(deps)))
        const mirror = Context.get(context, DesignMirror.DesignMirror)
        yield* mirror.sync(everything)
        yield* Scope.close(serverScope, Exit.void)
        const failures = [
          yield* Effect.flip(mirror.sync(everything)),
          yield* Effect.flip(mirror.state(everything)),
          yield* Effect.flip(Stream.runCollect(mirror.changes()))
        ]
        expect(failures.map((e) => e._tag)).toEqual(Array(3).fill("MirrorDatabaseError"))
      }))
  )
})
