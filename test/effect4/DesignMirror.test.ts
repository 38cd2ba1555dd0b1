/**
 * The Effect 4 mirror on a real PostgreSQL server on loopback, fed by the in-process sandbox, with
 * time on the `TestClock` (compact ports of the PostgreSQL parts of test/DesignMirror.test.ts,
 * test/changes.test.ts and test/mirrorQueries.test.ts): the first sync and the incremental ones with
 * their request counts, the history, docs/mirror.md's queries, the tables the Effect 3 edition
 * shares, and a database that is away failing typed errors.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, DateTime, Deferred, Effect, Exit, Fiber, Layer, Option, Result, Scope, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import * as DesignMirror from "../../src/DesignMirror.js"
import type * as Designs from "../../src/Designs.js"
import * as DesignSearchClient from "../../src/DesignSearchClient.js"
import * as Sandbox from "../../src/Sandbox.js"
import { clientLayer } from "./support/layers.js"
import {
  apiRequests,
  counted,
  database,
  databaseUrl,
  day,
  dec1,
  designs,
  effect3Sync,
  everything,
  onPostgres,
  record,
  rows
} from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

/** Designs last changed before December: a touch takes a design out. */
const unchanged: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "LAST_CHANGED", to: "2026-11-30" } } }]
}

/** The changes the mirror holds of `kind`, since the start of time. */
const changesOf = (kind: DesignMirror.ChangeKind) =>
  Effect.flatMap(
    DesignMirror.DesignMirror,
    (mirror) => Stream.runCollect(mirror.changes({ kind, since: DateTime.makeUnsafe(0) }))
  )

layer(Pg.layer, { timeout: "120 seconds" })("DesignMirror (Effect 4) on PostgreSQL", (it) => {
  it.effect(
    "a first sync stores every matching design as get prints it; a second with nothing changed makes two requests",
    () =>
      onPostgres(Effect.gen(function*() {
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
        const news = yield* changesOf("new")
        expect(news).toHaveLength(designs)
        expect(news[0]).toMatchObject({ syncedAt: "2026-12-01T09:00:00.000Z", kind: "new", fields: {} })

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
        expect(requests).toBe(2)
        expect(yield* rows).toEqual(stored)
      })),
    120_000
  )

  it.effect(
    "after touch, exactly the touched designs are fetched again, their rows updated and their changes recorded",
    () =>
      onPostgres(Effect.gen(function*() {
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
        expect(after.filter((r, i) => r.record !== before[i]!.record).map((r) => r.number)).toEqual(touched)
        for (const n of touched) {
          const row = after.find((r) => r.number === n)!
          expect(JSON.parse(row.record)).toEqual(JSON.parse(yield* record(n)))
          expect(row.last_changed).toBe("2026-12-02")
        }
        // The history: each touched design once, with the fields that changed, old and new.
        const changed = yield* changesOf("changed")
        expect(changed.map((c) => c.number).sort()).toEqual([...touched].sort())
        for (const change of changed) {
          expect(change.syncedAt).toBe("2026-12-02T09:00:00.000Z")
          const title = change.fields["title"] as { readonly old: string; readonly new: string }
          expect(title.new).toBe(`${title.old} (amended)`)
        }
        // By default `changes` starts at the latest complete run: the touched designs only.
        const latest = yield* Stream.runCollect(mirror.changes())
        expect(latest.map((c) => c.kind)).toEqual(["changed", "changed", "changed"])
        // A sync the same day asks for that day again: the touched designs come back, unchanged.
        expect(yield* mirror.sync(everything)).toMatchObject({ changedSince: "2026-12-02", fetched: 3, unchanged: 3 })
      })),
    120_000
  )

  it.effect(
    "designs that no longer match are marked so, and current again when they match",
    () =>
      onPostgres(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        yield* mirror.sync(unchanged)
        const before = yield* rows
        const out = [before[10]!.number, before[20]!.number]
        yield* control.touch(out)
        const [report, requests] = yield* counted(mirror.sync(unchanged))
        expect(report).toMatchObject({ fetched: 0, noLongerMatching: 2, matching: designs - 2, requests: 2 })
        expect(requests).toBe(2)
        expect((yield* rows).filter((r) => r.state !== "current").map((r) => [r.number, r.state])).toEqual(
          out.map((n) => [n, "no_longer_matching"])
        )
        expect((yield* changesOf("no_longer_matching")).map((c) => c.number).sort()).toEqual([...out].sort())

        const again = yield* mirror.sync({ rows: [{ op: "AND", query: { designNumber: out[0]! } }] })
        expect(again).toMatchObject({ fetched: 1, updated: 1 })
        const row = (yield* rows).find((r) => r.number === out[0])!
        expect([row.state, JSON.parse(row.record)]).toEqual(["current", JSON.parse(yield* record(out[0]!))])
        expect((yield* changesOf("matching_again")).map((c) => c.number)).toEqual([out[0]])
      })),
    120_000
  )

  it.effect(
    "a run interrupted half-way, then one that fails, lose nothing; the next ends with every row",
    () =>
      onPostgres(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        // Interrupted once 100 designs (a page, a batch) are committed.
        const exit = yield* mirror.sync(everything, {
          concurrency: 1,
          onProgress: ({ committed }) => committed >= 100 ? Effect.interrupt : Effect.void
        }).pipe(Effect.forkChild, Effect.flatMap(Fiber.await))
        expect(Exit.hasInterrupts(exit)).toBe(true)
        expect(yield* rows).toHaveLength(100)
        const stopped = Option.getOrThrow(yield* mirror.state(everything))
        expect([stopped.watermark, stopped.inProgress]).toEqual([Option.none(), true])

        // The next day it goes on from there, and fails at the listing: every row is in, no watermark yet.
        yield* TestClock.adjust(day)
        yield* control.injectFault({ target: "advanced", status: 400 })
        const pagesBefore = (yield* control.stats).requests.page
        expect((yield* Effect.flip(mirror.sync(everything)))._tag).toBe("BadRequestError")
        expect((yield* control.stats).requests.page - pagesBefore).toBe(2)
        expect(yield* rows).toHaveLength(designs)

        const [resumed, requests] = yield* counted(mirror.sync(everything))
        expect(resumed).toMatchObject({ resumed: true, full: true, watermark: "2026-12-01", inserted: 0 })
        // the last page again (its rows were committed, the run was not), and the listing
        expect(requests).toBe(2)
        expect(Option.getOrThrow(yield* mirror.state(everything))).toMatchObject({
          watermark: Option.some("2026-12-01"),
          inProgress: false
        })
      })),
    120_000
  )

  it.effect(
    "a sync while another runs into the same mirror fails at once, locked; the first goes on",
    () =>
      onPostgres(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const first = yield* mirror.sync(everything, {
          onProgress: () => Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(release))
        }).pipe(Effect.forkChild)
        yield* Deferred.await(started)
        const second = yield* Effect.flip(mirror.sync({ query: "chair" }))
        expect(second).toMatchObject({ _tag: "MirrorDatabaseError", locked: true })
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(first)).toMatchObject({ fetched: designs })
      })),
    120_000
  )

  it.effect(
    "criteria that are not valid fail a client ValidationError before anything is written or sent",
    () =>
      onPostgres(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        for (const criteria of [null, { query: "" }, { rows: [] }]) {
          expect(yield* Effect.flip(mirror.sync(criteria as never))).toMatchObject({
            _tag: "ValidationError",
            origin: "client"
          })
        }
        expect(yield* Effect.flip(mirror.sync({ query: "chair" }, { concurrency: 0 }))).toMatchObject({
          _tag: "ValidationError"
        })
        expect(yield* apiRequests).toBe(0)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT * FROM design_sync_state`).toEqual([])
        expect(DesignMirror.criteriaKey({ query: "" })._tag).toBe("Failure")
        // `state` refuses what `sync` refuses, rather than answer "never synced"
        for (const criteria of [null, { query: "" }, { rows: [] }, { query: "\u0000" }]) {
          expect(yield* Effect.flip(mirror.state(criteria as never))).toMatchObject({
            _tag: "ValidationError",
            origin: "client"
          })
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
            expect(error._tag === "ValidationError" && error.errors.map((e) => e.source?.parameter), at).toEqual([at])
          }
        }
        // the documented forms: nothing, a `DateTime` (UTC or zoned), a kind
        const since = DateTime.makeZonedUnsafe(0, { timeZone: "Australia/Sydney" })
        for (const options of [undefined, {}, { since, kind: "new" as const }, { since: DateTime.makeUnsafe(0) }]) {
          expect(yield* Stream.runCollect(mirror.changes(options))).toEqual([])
        }
      })),
    120_000
  )

  it.effect(
    "a connection timeout out of range, or a schema PostgreSQL would refuse or cut, fails a MirrorDatabaseError",
    () =>
      Effect.gen(function*() {
        const url = yield* databaseUrl
        for (const connectTimeoutMillis of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "5000"]) {
          const layer = DesignMirror.layerPostgres({ url, connectTimeoutMillis: connectTimeoutMillis as number })
          const error = yield* Effect.flip(Effect.scoped(Layer.build(layer)))
          expect(error, String(connectTimeoutMillis)).toMatchObject({ _tag: "MirrorDatabaseError" })
          expect(error.message).toContain("connectTimeoutMillis must be a number of milliseconds")
        }
        const sql = DesignMirror.layerPostgres({ url, connectTimeoutMillis: 2000 })
        const deps = Layer.merge(sql, clientLayer({ sandbox: { designs: 1 } }))
        const schemas = Effect.flatMap(
          SqlClient.SqlClient,
          (s) => s<{ name: string }>`SELECT nspname AS name FROM pg_namespace`
        )
        const before = yield* Effect.provide(schemas, sql)
        // 64 bytes: PostgreSQL would keep 63, and two such names would be one schema
        for (const schema of ["", 5, "a\u0000b", "s".repeat(64), "é".repeat(32)]) {
          const made = Effect.scoped(Layer.build(DesignMirror.layer({ schema: schema as string })))
          expect(yield* Effect.flip(Effect.provide(made, deps)), String(schema)).toMatchObject({
            _tag: "MirrorDatabaseError",
            detail: expect.stringMatching(/^schema must be/)
          })
          const read = Stream.runCollect(DesignMirror.changes({ schema: schema as string }))
          expect(yield* Effect.flip(Effect.provide(read, sql))).toMatchObject({ _tag: "MirrorDatabaseError" })
        }
        expect(yield* Effect.provide(schemas, sql)).toEqual(before)
        // 63 bytes is a name PostgreSQL keeps whole
        const whole = "é".repeat(31) + "s"
        yield* Effect.provide(Effect.scoped(Layer.build(DesignMirror.layer({ schema: whole }))), deps)
        expect((yield* Effect.provide(schemas, sql)).map((r) => r.name)).toContain(whole)
        for (const options of [null, undefined, "postgres://x"]) {
          const error = yield* Effect.flip(Effect.scoped(Layer.build(DesignMirror.layerPostgres(options as never))))
          expect(error, String(options)).toMatchObject({ _tag: "MirrorDatabaseError" })
          expect(error.message).toContain("layerPostgres takes options { url, connectTimeoutMillis? }")
        }
      }),
    120_000
  )

  it.effect(
    "a mirror stays in its schema, public too, whatever the search_path; only the default takes in the release before schemas'",
    () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(dec1)
        const inSchema = (schema: string) =>
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.all([
              Effect.map(
                sql<
                  { name: string }
                >`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema} ORDER BY name`,
                (found) => found.map((t) => t.name)
              ),
              sql.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".designs`)
            ]))
        const mirrorTables = [
          "design_changes",
          "design_classifications",
          "design_designers",
          "design_listing",
          "design_mirror_migrations",
          "design_owners",
          "design_products",
          "design_sync_state",
          "designs"
        ]
        // The search_path docs/mirror.md suggests to analysts (the default mirror's schema first), then
        // a mirror built in public: a mirror in another schema starts empty, and takes nothing.
        for (const [sql, first] of [[yield* database, undefined], [yield* database, "public"]] as const) {
          const deps = Layer.merge(sql, clientLayer({ sandbox: { designs } }))
          const sync = (schema: string | undefined) =>
            Effect.flatMap(DesignMirror.DesignMirror, (m) => m.sync(everything)).pipe(
              Effect.provide(DesignMirror.layer({ schema }).pipe(Layer.provide(deps)))
            )
          yield* sync(first)
          expect(yield* sync("team_b"), first).toMatchObject({ full: true, inserted: designs })
          for (const schema of [first ?? "design_search", "team_b"]) {
            expect(yield* Effect.provide(inSchema(schema), sql), schema).toEqual([mirrorTables, [{ n: designs }]])
          }
        }
        // The release before schemas: its two migrations, its tables in the connection's schema.
        const sql = yield* database
        yield* Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (s) =>
            Effect.forEach([
              `CREATE TABLE public.design_mirror_migrations (migration_id integer PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(), name text NOT NULL)`,
              `INSERT INTO public.design_mirror_migrations (migration_id, name)
  VALUES (1, 'designs_and_sync_state'), (2, 'designs_by_criteria_in_order')`,
              `CREATE TABLE public.designs (number TEXT PRIMARY KEY NOT NULL, record TEXT NOT NULL, last_changed TEXT,
  synced_at TEXT NOT NULL, criteria_key TEXT NOT NULL, state TEXT NOT NULL)`,
              `CREATE INDEX designs_criteria_key_state_number ON public.designs (criteria_key, state, number)`,
              `CREATE TABLE public.design_sync_state (criteria_key TEXT PRIMARY KEY NOT NULL, criteria TEXT NOT NULL,
  watermark TEXT, run_day TEXT, run_since TEXT, run_position INTEGER NOT NULL, updated_at TEXT NOT NULL)`
            ], (statement) => s.unsafe(statement))),
          sql
        )
        const build = (schema?: string) =>
          Effect.scoped(
            Layer.build(DesignMirror.layer({ schema }).pipe(Layer.provide(Layer.merge(sql, clientLayer()))))
          )
        const publicTables = Effect.flatMap(
          SqlClient.SqlClient,
          (s) => s<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY name`
        ).pipe(Effect.map((found) => found.map((t) => t.name)))
        yield* build("team_b")
        expect(yield* Effect.provide(publicTables, sql)).toEqual([
          "design_mirror_migrations",
          "design_sync_state",
          "designs"
        ])
        yield* build()
        expect(yield* Effect.provide(publicTables, sql)).toEqual([])
        expect((yield* Effect.provide(inSchema("design_search"), sql))[0]).toEqual(mirrorTables)
      }),
    120_000
  )

  it.effect(
    "its tables are the Effect 3 edition's: the same schema, migrations table, migrations and criteria key",
    () =>
      onPostgres(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const migrations = yield* sql<{ migration_id: number; name: string }>`SELECT migration_id, name
  FROM design_search.design_mirror_migrations ORDER BY migration_id`
        expect(migrations.map((m) => [Number(m.migration_id), m.name])).toEqual([
          [1, "designs_and_sync_state"],
          [2, "designs_by_criteria_in_order"],
          [3, "typed_tables_and_history"]
        ])
        const tables = yield* sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
  WHERE table_schema = 'design_search' ORDER BY table_name`
        expect(tables.map((t) => t.table_name)).toEqual([
          "design_changes",
          "design_classifications",
          "design_designers",
          "design_listing",
          "design_mirror_migrations",
          "design_owners",
          "design_products",
          "design_sync_state",
          "designs"
        ])
        // The keys the Effect 3 edition writes for the same criteria, whatever their order and changedSinceDate.
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
      })),
    120_000
  )

  it.effect(
    "a mirror the Effect 3 edition synced is taken up: its rows as this edition writes them, its watermark",
    () =>
      Effect.gen(function*() {
        const url = yield* databaseUrl
        const written = yield* effect3Sync(url)
        expect(written.fetched).toBe(designs)
        yield* onPostgres(
          Effect.gen(function*() {
            const mirror = yield* DesignMirror.DesignMirror
            const before = yield* rows
            expect(before).toHaveLength(designs)
            for (const row of [before[0]!, before[designs - 1]!]) {
              expect(JSON.parse(row.record)).toEqual(JSON.parse(yield* record(row.number)))
            }
            const [report, requests] = yield* counted(mirror.sync(everything))
            expect(report).toMatchObject({
              criteriaKey: written.criteriaKey,
              full: false,
              changedSince: written.watermark,
              fetched: 0,
              inserted: 0,
              updated: 0,
              matching: designs
            })
            expect(requests).toBe(2)
            expect(yield* rows).toEqual(before)
            expect(yield* changesOf("new")).toHaveLength(designs)
          }),
          url
        )
      }),
    120_000
  )
})

/** docs/mirror.md's PostgreSQL queries, in the doc's order. */
const questions = (() => {
  const doc = readFileSync(new URL("../../docs/mirror.md", import.meta.url), "utf8")
  const section = doc.slice(doc.indexOf("\n## Queries\n")).split(/\n## /)[1] ?? ""
  return section.split("\n### ").slice(1).map((part) => {
    const blocks = [...part.matchAll(/^```sql\n(-- [^\n]*)\n([\s\S]*?)^```$/gm)]
    const postgres = blocks.find(([, engines]) => engines === "-- PostgreSQL" || engines === "-- SQLite and PostgreSQL")
    return { heading: part.split("\n")[0] ?? "", sql: postgres?.[2] ?? "" }
  })
})()

const now = Date.now()
const date = (millis: number) => new Date(millis).toISOString().slice(0, 10)
const iso = (d: DateTime.Utc | undefined) => (d === undefined ? "" : DateTime.formatIsoDate(d))
const before2020: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01", to: "2019-12-31" } } }]
}

/** A value of a row as text: a date at midnight as `YYYY-MM-DD`, an instant as ISO, a count as digits. */
const cell = (value: unknown): string =>
  value instanceof Date ? value.toISOString().replace("T00:00:00.000Z", "") : String(value)

/**
 * The mirror synced three times, the clock ten days ago: then (the designs filed before 2020), an hour ago (every
 * design), and now, after three registered designs were stored as `FILED` and changed in the
 * register. Answers the sandbox's designs and the times of the runs.
 */
const synced = Effect.gen(function*() {
  const mirror = yield* DesignMirror.DesignMirror
  const sql = yield* SqlClient.SqlClient
  yield* mirror.sync(before2020)
  const second = now - 3_600_000
  yield* TestClock.setTime(second)
  yield* mirror.sync(everything)
  const client = yield* DesignSearchClient.DesignSearchClient
  const registered = (yield* Stream.runCollect(client.advancedDesigns(everything)))
    .filter((d) => d.status === "REGISTERED" && iso(d.filingDate) >= "2020-01-01")
    .slice(0, 3).map((d) => d.number)
  for (const number of registered) {
    yield* sql`UPDATE designs SET record = jsonb_set(record, '{status}', '"FILED"'), status = 'FILED'
  WHERE number = ${number}`
  }
  yield* (yield* Sandbox.SandboxControl).touch(registered)
  yield* TestClock.setTime(now)
  yield* mirror.sync(everything)
  const designs = yield* Stream.runCollect(client.advancedDesigns(everything))
  return { designs, registered, second: new Date(second).toISOString(), third: new Date(now).toISOString() }
})

/** What each question should answer, from the sandbox's data, in the doc's order. */
const expected: ReadonlyArray<(data: Effect.Success<typeof synced>) => ReadonlyArray<ReadonlyArray<string>>> = [
  ({ designs }) =>
    designs.filter((d) =>
      d.status === "REGISTERED" && iso(d.filingDate) >= "2024-01-01" &&
      (d.owners ?? []).some((o) => o.name.toLowerCase().includes("wattle")) &&
      (d.classifications ?? []).some((c) => c.code.startsWith("06-01"))
    ).map((d) => [d.number, d.title ?? "", iso(d.filingDate)]).sort(),
  ({ designs, second }) =>
    designs.filter((d) => iso(d.filingDate) >= "2020-01-01").map((d) => [d.number, d.title ?? "", second]).sort(),
  ({ registered, third }) => registered.map((n) => [n, third, "FILED", "REGISTERED"]).sort(),
  ({ designs }) =>
    designs.filter((d) =>
      ["REGISTERED", "CERTIFIED"].includes(d.status ?? "") && iso(d.expiryDate) >= date(now) &&
      iso(d.expiryDate) <= date(now + 90 * day)
    ).sort((a, b) => iso(a.expiryDate).localeCompare(iso(b.expiryDate)) || a.number.localeCompare(b.number))
      .map((d) => [d.number, d.title ?? "", iso(d.expiryDate)]),
  ({ designs }) => {
    const counts = new Map<string, Set<string>>()
    for (const d of designs) {
      for (const c of d.classifications ?? []) {
        counts.set(c.code.slice(0, 2), (counts.get(c.code.slice(0, 2)) ?? new Set()).add(d.number))
      }
    }
    return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([code, numbers]) => [code, String(numbers.size)])
  }
]

layer(Pg.layer, { timeout: "180 seconds" })("docs/mirror.md's queries (Effect 4)", (it) => {
  it.effect("each of the five answers, on PostgreSQL, what the sandbox's data says", () =>
    Effect.gen(function*() {
      expect(questions.map((q) => q.heading)).toHaveLength(5)
      // The pool's idle timers run on the clock: it is set before the pool is made, not moved 56 years after.
      yield* TestClock.setTime(now - 10 * day)
      const deps = Layer.merge(yield* database, clientLayer({ sandbox: { designs: 2000 } }))
      yield* Effect.gen(function*() {
        const data = yield* synced
        const sql = yield* SqlClient.SqlClient
        for (const [i, question] of questions.entries()) {
          // As the doc says, the mirror's schema first.
          const answer = yield* sql.withTransaction(
            Effect.andThen(
              sql.unsafe("SET LOCAL search_path TO design_search, public"),
              sql.unsafe<Record<string, unknown>>(question.sql)
            )
          )
          const want = expected[i]!(data)
          expect(want.length, question.heading).toBeGreaterThan(0)
          expect(answer.map((row) => Object.values(row).map(cell)), question.heading).toEqual(want)
        }
      }).pipe(Effect.provide(DesignMirror.layer().pipe(Layer.provideMerge(deps))))
    }), 180_000)
})

describe("DesignMirror (Effect 4): a database that is away", () => {
  it.live(
    "a server that cannot be reached, or refuses the credentials, fails the layer, saying which",
    () =>
      Effect.gen(function*() {
        const build = (url: string) => Effect.flip(Layer.build(DesignMirror.layerPostgres({ url })))
        const unreachable = yield* build("postgres://nobody:secret@127.0.0.1:1/none")
        expect(unreachable._tag).toBe("MirrorDatabaseError")
        expect(unreachable.message).toContain("connecting to PostgreSQL: no connection: ")
        expect(unreachable.message).not.toContain("secret")
        const server = yield* Pg.postgresServer
        const stranger = yield* build(`postgres://stranger@127.0.0.1:${server.port}/postgres`)
        expect(stranger._tag).toBe("MirrorDatabaseError")
        expect(stranger.message).toContain("connecting to PostgreSQL: the server refused the credentials: ")
        expect(stranger.message).toContain("stranger")
      }),
    60_000
  )

  it.live(
    "a server that stops under a built mirror: sync, state and changes fail MirrorDatabaseError",
    () =>
      Effect.gen(function*() {
        const serverScope = yield* Scope.make()
        const server = yield* Scope.provide(Pg.postgresServer, serverScope)
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
        expect(failures.map((e) => e._tag)).toEqual([
          "MirrorDatabaseError",
          "MirrorDatabaseError",
          "MirrorDatabaseError"
        ])
      }),
    60_000
  )
})
