/**
 * The mirror on both engines it supports: SQLite files in a temporary folder (through
 * `@effect/sql-libsql`) and a real PostgreSQL server on loopback (through `@effect/sql-pg`), fed by
 * the in-process sandbox, with time on the `TestClock`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import { Chunk, DateTime, Effect, Exit, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DesignMirror from "../src/DesignMirror.js"
import type { ApiError, Designs } from "../src/index.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { apiRequests, counted, day, designs, everything, onEngine, record, rows, syncStates } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

layer(Pg.layer, { timeout: 120_000 })("DesignMirror", (it) => {
  for (const engine of ["sqlite", "postgres"] as const) {
    it.effect(`${engine}: a first sync stores every matching design as get prints it; a second with nothing changed makes two requests`, () =>
      onEngine(
        engine,
        Effect.gen(function*() {
          const mirror = yield* DesignMirror.DesignMirror
          const first = yield* mirror.sync(everything)
          expect(first).toMatchObject({
            full: true,
            resumed: false,
            watermark: "2026-12-01",
            searched: designs,
            matching: designs,
            fetched: designs,
            inserted: designs,
            updated: 0,
            unchanged: 0,
            noLongerMatching: 0,
            // three pages and the listing
            requests: 4
          })
          expect(yield* apiRequests).toBe(4)
          const stored = yield* rows
          expect(stored).toHaveLength(designs)
          expect(new Set(stored.map((r) => r.state))).toEqual(new Set(["current"]))
          expect(new Set(stored.map((r) => r.criteria_key))).toEqual(new Set([first.criteriaKey]))
          for (const row of [stored[0]!, stored[117]!, stored[designs - 1]!]) {
            expect(JSON.parse(row.record)).toEqual(JSON.parse(yield* record(row.number)))
          }
          expect(Option.map(yield* mirror.state(everything), (s) => [s.watermark, s.inProgress])).toEqual(
            Option.some([Option.some("2026-12-01"), false])
          )

          yield* TestClock.adjust(day)
          const [second, requests] = yield* counted(mirror.sync(everything))
          expect(second).toMatchObject({
            full: false,
            changedSince: "2026-12-01",
            watermark: "2026-12-02",
            fetched: 0,
            inserted: 0,
            updated: 0,
            matching: designs,
            requests: 2
          })
          expect(requests).toBeLessThanOrEqual(2)
          expect(yield* rows).toEqual(stored)
        })
      ))

    it.effect(`${engine}: after touch, exactly the touched designs are fetched again and their rows updated`, () =>
      onEngine(
        engine,
        Effect.gen(function*() {
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
        })
      ))

    it.effect(`${engine}: a run interrupted half-way, then one that fails, lose nothing; the next ends with every row and the first run's watermark`, () =>
      onEngine(
        engine,
        Effect.gen(function*() {
          const mirror = yield* DesignMirror.DesignMirror
          const control = yield* Sandbox.SandboxControl
          // Interrupted once 100 designs (a page, a transaction) are committed.
          const exit = yield* mirror.sync(everything, {
            concurrency: 1,
            onProgress: ({ committed }) => committed >= 100 ? Effect.interrupt : Effect.void
          }).pipe(Effect.fork, Effect.flatMap(Fiber.await))
          expect(Exit.isInterrupted(exit)).toBe(true)
          const half = yield* rows
          expect(half).toHaveLength(100)
          const stopped = Option.getOrThrow(yield* mirror.state(everything))
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
          expect(Option.getOrThrow(yield* mirror.state(everything)).watermark).toEqual(Option.none())

          const [resumed, requests] = yield* counted(mirror.sync(everything))
          expect(resumed).toMatchObject({ resumed: true, full: true, watermark: "2026-12-01", inserted: 0 })
          // the last page again (its rows were committed, the run was not), and the listing
          expect(requests).toBe(2)
          const all = yield* rows
          expect(all).toHaveLength(designs)
          expect(all.every((r) => r.state === "current")).toBe(true)
          expect(Option.getOrThrow(yield* mirror.state(everything))).toMatchObject({
            watermark: Option.some("2026-12-01"),
            inProgress: false
          })
        })
      ))

    it.effect(`${engine}: a sync stopped between its history and its rows, then resumed the next day, writes each change once, at the run's start`, () =>
      onEngine(
        engine,
        Effect.gen(function*() {
          const mirror = yield* DesignMirror.DesignMirror
          const control = yield* Sandbox.SandboxControl
          const sql = yield* SqlClient.SqlClient
          // A trigger that fails a write of `designs` (on `event`, where `when` holds), as a crash between statements would.
          const stopWrites = (event: "INSERT" | "UPDATE", when: string) =>
            engine === "sqlite"
              ? sql.unsafe(`CREATE TRIGGER stop BEFORE ${event} ON designs WHEN ${when}
  BEGIN SELECT RAISE(ABORT, 'stopped'); END`)
              : Effect.zipRight(
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
              sql<{ n: number | string; runs: number | string }>`SELECT COUNT(*) AS n, COUNT(DISTINCT synced_at) AS runs
  FROM design_changes WHERE kind = ${kind}`,
              ([row]) => [Number(row!.n), Number(row!.runs)]
            )
          const listed = (kind: "new" | "changed" | "no_longer_matching") =>
            Effect.map(Stream.runCollect(mirror.changes({ kind })), (c) => c.length)

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
          const unchanged: Designs.AdvancedSearchRequest = {
            rows: [{ op: "AND", query: { date: { type: "LAST_CHANGED", to: "2026-11-30" } } }]
          }
          yield* mirror.sync(unchanged)
          yield* control.touch((yield* rows).slice(3, 5).map((r) => r.number))
          yield* stopWrites("UPDATE", "true")
          yield* stoppedThenResumed(mirror.sync(unchanged))
          expect(yield* history("no_longer_matching")).toEqual([2, 1])
          expect(yield* listed("no_longer_matching")).toBe(2)
        })
      ))

    it.effect(`${engine}: designs that no longer match are marked no_longer_matching, and current again when they match`, () =>
      onEngine(
        engine,
        Effect.gen(function*() {
          const mirror = yield* DesignMirror.DesignMirror
          const control = yield* Sandbox.SandboxControl
          // Designs last changed before December: a touch takes a design out.
          const unchanged: Designs.AdvancedSearchRequest = {
            rows: [{ op: "AND", query: { date: { type: "LAST_CHANGED", to: "2026-11-30" } } }]
          }
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
        })
      ))

    it.effect(`${engine}: a quick search listing a number twice, or a get answering with another number, writes each design once`, () => {
      const numbers = { a: "", b: "", c: "" }
      return onEngine(
        engine,
        Effect.gen(function*() {
          const mirror = yield* DesignMirror.DesignMirror
          const report = yield* mirror.sync({ query: "table" })
          // a and b, then c again for the listing (it has no row): its get answers with a, unchanged
          expect(report).toMatchObject({ searched: 3, fetched: 3, inserted: 2, unchanged: 1, notFound: 0 })
          // the two searches, a get each for a, b and c, and c again
          expect(report.requests).toBe(6)
          expect((yield* rows).map((r) => r.number)).toEqual([numbers.a, numbers.b].sort())
        }),
        {
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
        }
      )
    })
  }

  it.effect("sqlite: a run that receives fewer designs than counted commits them, keeps the watermark and fails IncompleteSyncError", () => {
    let cut: "no" | "warned" | "silent" = "no"
    const fewer = {
      code: "FEWER_THAN_COUNTED",
      detail: "page 0 held 5 designs where 100 were asked for, though 240 were counted (3 pages)",
      severity: "warning"
    } as const
    return onEngine(
      "sqlite",
      Effect.gen(function*() {
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
        expect(Option.getOrThrow(yield* mirror.state(everything))).toMatchObject({
          watermark: Option.some("2026-12-01"),
          inProgress: false
        })

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
        expect(after).toMatchObject({
          changedSince: "2026-12-01",
          watermark: "2026-12-04",
          fetched: designs,
          updated: designs - 5,
          unchanged: 5
        })
        expect((yield* rows).every((r) => r.record.includes("(amended)"))).toBe(true)
      }),
      {
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
      }
    )
  })

  it.effect("sqlite: a quick search listing fewer numbers than it counts commits those and keeps the watermark unset", () =>
    onEngine(
      "sqlite",
      Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const table: Designs.QuickSearchRequest = { query: "table" }
        const listed = (yield* Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.quickSearch(table))).data
        expect(listed.count).toBeGreaterThan(2)
        const failed = yield* Effect.flip(mirror.sync(table))
        expect(failed).toMatchObject({ _tag: "IncompleteSyncError", fetched: 2, watermark: null })
        expect(failed.message).toContain(`the search counted ${listed.count} designs and listed 2`)
        expect(yield* rows).toHaveLength(2)
        expect(Option.getOrThrow(yield* mirror.state(table))).toMatchObject({
          watermark: Option.none(),
          inProgress: false
        })
      }),
      { sandbox: { resultCap: 2 } }
    ))

  it.effect("sqlite: criteria and options that are not valid fail a client ValidationError before anything is written or sent", () =>
    onEngine(
      "sqlite",
      Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const chair = { query: "chair" }
        const cases: ReadonlyArray<readonly [unknown, unknown, string]> = [
          [null, undefined, "criteria"],
          [undefined, undefined, "criteria"],
          [5, undefined, "criteria"],
          ["chair", undefined, "criteria"],
          [Symbol("chair"), undefined, "criteria"],
          [{ query: "" }, undefined, "/query"],
          [{ query: "chair", colour: "red" }, undefined, "/colour"],
          [{ rows: [] }, undefined, "/rows"],
          [chair, null, "options"],
          [chair, 5, "options"],
          [chair, { onProgress: 5 }, "onProgress"],
          [chair, { concurrency: 0 }, "concurrency"],
          [chair, { concurrency: Number.NaN }, "concurrency"],
          [chair, { concurrency: "4" }, "concurrency"],
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
        expect(yield* syncStates).toEqual([])
        expect(yield* apiRequests).toBe(0)
        expect(DesignMirror.criteriaKey({ query: "" })._tag).toBe("Left")
        // `state` refuses the criteria `sync` refuses, rather than answer "never synced"
        const refusedCriteria = [...cases.filter(([, options]) => options === undefined).map(([c]) => c), {
          query: "\u0000"
        }]
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
          for (
            const changes of [() => mirror.changes(options as never), () => DesignMirror.changes(options as never)]
          ) {
            const error = yield* Effect.flip(Stream.runCollect(Stream.suspend(changes)))
            expect(error, at).toMatchObject({ _tag: "ValidationError", origin: "client" })
            const pointed = (error as ApiError.ValidationError).errors.map((e) => e.source?.parameter)
            expect(pointed, at).toEqual([at])
          }
        }
        // the documented forms: nothing, a `DateTime` (UTC or zoned), a kind
        const since = DateTime.unsafeMakeZoned(0, { timeZone: "Australia/Sydney" })
        for (const options of [undefined, {}, { since, kind: "new" as const }, { since: DateTime.unsafeMake(0) }]) {
          expect(Chunk.toArray(yield* Stream.runCollect(mirror.changes(options)))).toEqual([])
        }
      })
    ))

  it.effect("postgres: a connection timeout out of range, or a schema PostgreSQL would refuse or cut, fails a MirrorDatabaseError before any connection", () =>
    Effect.gen(function*() {
      const url = yield* Effect.flatMap(Pg.Postgres, (server) => server.database(`mirror_options_${process.pid}`))
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
      const client = DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))
      const schemas = Effect.flatMap(
        SqlClient.SqlClient,
        (s) => s<{ name: string }>`SELECT nspname AS name FROM pg_namespace`
      )
      const before = yield* Effect.provide(schemas, sql)
      // 64 bytes: PostgreSQL would keep 63, and two such names would be one schema
      for (const schema of ["", 5, "a\u0000b", "s".repeat(64), "é".repeat(32)]) {
        const made = Effect.scoped(Layer.build(DesignMirror.layer({ schema: schema as string })))
        const error = yield* Effect.flip(Effect.provide(made, Layer.merge(sql, client)))
        expect(error, String(schema)).toMatchObject({
          _tag: "MirrorDatabaseError",
          detail: expect.stringMatching(/^schema must be/)
        })
        const read = Stream.runCollect(DesignMirror.changes({ schema: schema as string }))
        expect(yield* Effect.flip(Effect.provide(read, sql))).toMatchObject({ _tag: "MirrorDatabaseError" })
      }
      expect(yield* Effect.provide(schemas, sql)).toEqual(before)
      // 63 bytes is a name PostgreSQL keeps whole
      const whole = "é".repeat(31) + "s"
      yield* Effect.provide(Effect.scoped(Layer.build(DesignMirror.layer({ schema: whole }))), Layer.merge(sql, client))
      expect((yield* Effect.provide(schemas, sql)).map((r) => r.name)).toContain(whole)
    }))

  it.effect("sqlite: a quick search is mirrored by search and gets; a design the service no longer finds is marked not_found", () =>
    onEngine(
      "sqlite",
      Effect.gen(function*() {
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
      })
    ))

  it.effect("a libSQL URL that is none, or a database that cannot be opened, is a MirrorDatabaseError", () =>
    Effect.gen(function*() {
      const build = (
        l: Layer.Layer<SqlClient.SqlClient, DesignMirror.MirrorDatabaseError | DesignMirror.SqlDriverMissingError>
      ) => Effect.flip(Effect.scoped(Layer.build(l)))
      const notUrl = yield* build(DesignMirror.layerSqlite({ url: "mirror.db" }))
      expect(notUrl._tag).toBe("MirrorDatabaseError")
      const below = yield* build(DesignMirror.layerSqlite({ url: "file:/proc/no/such/dir/mirror.db" }))
      expect(below._tag).toBe("MirrorDatabaseError")
      const refused = yield* build(DesignMirror.layerPostgres({ url: "postgres://nobody@127.0.0.1:1/none" }))
      expect(refused).toMatchObject({ _tag: "MirrorDatabaseError" })
      expect(refused.message).toContain("PostgreSQL")
    }))
})

layer(Layer.empty)("a database that already holds a table of the mirror's name", (it) => {
  it.scoped("building the mirror is a MirrorDatabaseError, never a defect", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "mirror-test-"))),
        (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
      )
      const sql = DesignMirror.layerSqlite({ url: `file:${join(dir, "mirror.db")}` })
      yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (s) => s`CREATE TABLE designs (id INTEGER PRIMARY KEY, name TEXT)`),
        sql
      )
      const mirror = DesignMirror.layer().pipe(
        Layer.provide(sql),
        Layer.provide(DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer())))
      )
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(mirror)))
      expect(exit).toMatchObject({ _tag: "Failure", cause: { _tag: "Fail", error: { _tag: "MirrorDatabaseError" } } })
    }))
})
