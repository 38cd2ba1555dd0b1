/**
 * The mirror's typed tables and its history, on both engines: the columns and rows a design is
 * written to, the changes a sync records and `changes` reads back, and the migration of a mirror
 * made by the first release (its tables and rows, as its code wrote them) without a request.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe, layerUnwrap, Result } from "#edition/internal/seam"
import { TestClock } from "#test-edition/support/seam"
import { expect, layer } from "@effect/vitest"
import { DateTime, Effect, Layer, Stream } from "effect"
import * as DesignMirror from "../src/DesignMirror.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"
import {
  apiRequests,
  changesOf,
  counted,
  database,
  day,
  dec1,
  designs,
  engines,
  ever,
  everything,
  firstRelease,
  onEngine,
  rows,
  syncAll,
  unchanged
} from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

/** Every row of `table`, its JSON and dates as text, in the order of `order`. */
const all = (table: string, order: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql.unsafe<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY ${order}`)
  )

/** Rows to insert, at least one (as `sql.insert` takes them in Effect 4). */
const nonEmpty = <A>([first, ...rest]: ReadonlyArray<A>) => [first!, ...rest] as const

layer(Pg.layer, { timeout: "120 seconds" })("DesignMirror's tables", (it) => {
  for (const engine of engines) {
    it.effect(`${engine}: a design's columns, parties, classes and products are its record's; a field the schema does not know stays in the record`, () =>
      onEngine(engine, {
        wrap: (client) => ({
          ...client,
          advancedDesigns: (request, options) =>
            Stream.map(client.advancedDesigns(request, options), (d) => ({ ...d, colour: "red" }))
        })
      })(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* (yield* DesignMirror.DesignMirror).sync(everything)
        const typed = yield* sql<Record<string, string | null>>`SELECT number, title, status,
  CAST(filing_date AS TEXT) AS filing_date, CAST(registration_date AS TEXT) AS registration_date,
  CAST(expiry_date AS TEXT) AS expiry_date, CAST(last_changed AS TEXT) AS last_changed, statement_of_newness,
  CAST(record AS TEXT) AS record FROM designs ORDER BY number`
        const owners = yield* sql<{ number: string; name: string; party: string }>`SELECT number, name,
  CAST(party AS TEXT) AS party FROM design_owners ORDER BY number, position`
        const designers = yield* sql<{ number: string; name: string }>`SELECT number, name FROM design_designers
ORDER BY number, position`
        const classes = yield* sql<{ number: string; code: string; title: string | null }>`SELECT number, code, title
FROM design_classifications ORDER BY number, code`
        const products = yield* sql<{ number: string; name: string }>`SELECT number, name FROM design_products
ORDER BY number, position`
        expect(typed).toHaveLength(designs)
        const of = <A extends { number: string }>(list: ReadonlyArray<A>, n: string) =>
          list.filter((r) => r.number === n)
        for (const row of typed) {
          const r = JSON.parse(row.record!)
          expect(r.colour).toBe("red")
          expect(row).toMatchObject({
            title: r.title ?? null,
            status: r.status ?? null,
            filing_date: r.filingDate?.slice(0, 10) ?? null,
            registration_date: r.registrationDate?.slice(0, 10) ?? null,
            expiry_date: r.expiryDate?.slice(0, 10) ?? null,
            last_changed: r.lastChanged?.slice(0, 10) ?? null,
            statement_of_newness: r.statementOfNewness ?? null
          })
          const n = row.number!
          expect(of(owners, n).map((o) => [o.name, JSON.parse(o.party)])).toEqual(
            (r.owners ?? []).map(({ name, ...rest }: { name: string }) => [name, rest])
          )
          expect(of(designers, n).map((d) => d.name)).toEqual((r.designers ?? []).map((d: { name: string }) => d.name))
          expect(of(classes, n).map((c) => [c.code, c.title])).toEqual(
            (r.classifications ?? []).map((c: { code: string; title?: string }) => [c.code, c.title ?? null]).sort()
          )
          expect(of(products, n).map((p) => p.name)).toEqual(r.productNames ?? [])
        }
        expect(owners.length).toBeGreaterThan(designs / 2)
        expect(classes.length).toBeGreaterThan(designs / 2)
        expect(products.length).toBeGreaterThan(designs / 2)

        // A question of the README in plain SQL: an owner's word, a class, a status, a date range.
        const one = typed.find((r) => r.status !== null && r.filing_date !== null && of(owners, r.number!).length > 0)!
        const word = of(owners, one.number!)[0]!.name.split(" ")[0]!.toLowerCase()
        const prefix = of(classes, one.number!)[0]!.code.slice(0, 3)
        const answer = yield* sql<{ number: string }>`SELECT DISTINCT d.number FROM designs d
JOIN design_owners o ON o.number = d.number JOIN design_classifications c ON c.number = d.number
WHERE lower(o.name) LIKE ${`%${word}%`} AND c.code LIKE ${`${prefix}%`} AND d.status = ${one.status}
  AND d.filing_date >= ${one.filing_date} ORDER BY d.number`
        const expected = typed.filter((r) =>
          r.status === one.status && r.filing_date! >= one.filing_date! &&
          of(owners, r.number!).some((o) => o.name.toLowerCase().includes(word)) &&
          of(classes, r.number!).some((c) => c.code.startsWith(prefix))
        ).map((r) => r.number)
        expect(answer.map((r) => r.number)).toEqual(expected)
        expect(expected).toContain(one.number)
      })))

    it.effect(`${engine}: each change a sync sees is recorded once, with the fields that differ; changes reads them newest first`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        yield* mirror.sync(everything)
        const first = yield* changesOf()
        expect(first).toHaveLength(designs)
        expect(new Set(first.map((c) => `${c.kind} ${c.syncedAt} ${JSON.stringify(c.fields)}`))).toEqual(
          new Set(["new 2026-12-01T09:00:00.000Z {}"])
        )
        const numbers = (yield* rows).map((r) => r.number)

        // Unchanged designs write nothing; a touched one its title and its lastChanged.
        yield* TestClock.adjust(day)
        yield* mirror.sync(everything)
        expect(yield* changesOf()).toEqual([])
        const touched = [numbers[5]!, numbers[77]!]
        const before = (yield* rows).filter((r) => touched.includes(r.number)).map((r) => JSON.parse(r.record))
        yield* TestClock.adjust(day)
        const parties = all("design_owners", "number, position")
        const owners = yield* parties
        yield* control.touch(touched)
        yield* mirror.sync(everything)
        // Their rows of owners are written again, the same.
        expect(yield* parties).toEqual(owners)
        const second = yield* changesOf()
        expect(second).toEqual(
          before.map((old) => ({
            number: old.number,
            syncedAt: "2026-12-03T09:00:00.000Z",
            kind: "changed",
            fields: {
              title: { old: old.title, new: `${old.title} (amended)` },
              lastChanged: { old: old.lastChanged, new: "2026-12-03" }
            }
          })).reverse()
        )
        // Newest first, every change since a date, or of a kind.
        const every = yield* changesOf({ since: ever })
        expect(every).toHaveLength(designs + 2)
        expect(every.slice(0, 2)).toEqual(second)
        expect(yield* changesOf({ since: ever, kind: "changed" })).toEqual(second)
        expect(yield* changesOf({ since: dateTimeUnsafe(dec1 + 3 * day), kind: "changed" })).toEqual([])

        // Without history, the rows change and nothing is recorded.
        yield* TestClock.adjust(day)
        yield* control.touch([numbers[9]!])
        const quiet = yield* mirror.sync(everything, { history: false })
        expect(quiet).toMatchObject({ updated: 1 })
        expect(yield* changesOf({ since: ever })).toHaveLength(designs + 2)
        const invalid = yield* Effect.flip(mirror.sync(everything, { history: "no" as never }))
        expect(invalid).toMatchObject({ _tag: "ValidationError", origin: "client" })
      })))

    it.effect(`${engine}: a design no longer matching, then matching again changed, is recorded as each`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        yield* mirror.sync(unchanged)
        const out = [(yield* rows)[10]!.number, (yield* rows)[20]!.number]
        yield* control.touch(out)
        yield* TestClock.adjust(1000)
        const report = yield* mirror.sync(unchanged)
        expect(report.noLongerMatching).toBe(2)
        expect((yield* changesOf()).map((c) => [c.number, c.kind])).toEqual(
          [...out].sort().reverse().map((n) => [n, "no_longer_matching"])
        )
        yield* TestClock.adjust(1000)
        yield* mirror.sync({ rows: [{ op: "AND", query: { designNumber: out[0]! } }] })
        const again = yield* changesOf()
        expect(again.map((c) => c.kind)).toEqual(["matching_again", "changed"])
        expect(Object.keys(again[1]!.fields).sort()).toEqual(["lastChanged", "title"])
      })))

    it.effect(`${engine}: DesignMirror.changes reads a mirror with its SqlClient alone, in its schema; a database that is not a mirror is told so and left as it was`, () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(dec1)
        const sql = yield* SqlClient.SqlClient
        const read = (options?: Parameters<typeof DesignMirror.changes>[0]) =>
          Effect.map(Stream.runCollect(DesignMirror.changes(options)), (read) => Array.from(read))
        const tablesNow = engine === "sqlite"
          ? sql`SELECT name FROM sqlite_master`
          : sql`SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'
  UNION ALL SELECT tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`
        const before = yield* tablesNow
        const notAMirror = new DesignMirror.MirrorDatabaseError({ detail: "not a mirror: no design_changes table" })
        expect(yield* Effect.flip(read())).toEqual(notAMirror)
        expect(yield* tablesNow).toEqual(before)
        // On PostgreSQL, a mirror in a schema of its own is read there, and only there.
        const schema = engine === "postgres" ? "watch" : undefined
        const mirror = yield* DesignMirror.make({ schema })
        yield* mirror.sync(everything)
        const seen = Array.from(yield* Stream.runCollect(mirror.changes()))
        expect(seen).toHaveLength(designs)
        expect(yield* read({ schema })).toEqual(seen)
        expect(yield* read({ schema, since: dateTimeUnsafe(dec1 + 1) })).toEqual([])
        if (schema !== undefined) expect(yield* Effect.flip(read())).toEqual(notAMirror)
      }).pipe(
        Effect.provide(Layer.merge(layerUnwrap(database(engine)), clientLayer({ sandbox: { designs } }))),
        Effect.scoped
      ))

    it.effect(`${engine}: changes are read a page at a time, newest first, every one once`, () =>
      onEngine(engine)(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* DesignMirror.DesignMirror
        const written = Array.from({ length: 1_234 }, (_, i) => ({
          number: String(100_000 + (i % 617)),
          synced_at: new Date(dec1 + Math.floor(i / 617) * day).toISOString(),
          kind: i % 3 === 0 ? "new" : "changed",
          fields: null
        }))
        yield* sql`INSERT INTO design_changes ${sql.insert(nonEmpty(written.slice(0, 600)))}`
        yield* sql`INSERT INTO design_changes ${sql.insert(nonEmpty(written.slice(600)))}`
        const read = yield* changesOf({ since: ever })
        const key = (c: { readonly syncedAt: string; readonly number: string; readonly kind: string }) =>
          `${c.syncedAt} ${c.number} ${c.kind}`
        expect(read.map(key)).toEqual(written.map((w) => key({ ...w, syncedAt: w.synced_at })).sort().reverse())
      })))

    it.effect(`${engine}: a mirror made by the first release is moved to the new tables without a request`, () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(dec1)
        const sql = yield* database(engine)
        const deps = Layer.merge(sql, clientLayer({ sandbox: { designs } }))
        yield* Effect.gen(function*() {
          // The first release's tables and rows, as its code wrote them.
          const client = yield* DesignSearchClient.DesignSearchClient
          const db = yield* SqlClient.SqlClient
          yield* firstRelease
          const fetched = yield* Stream.runCollect(client.advancedDesigns(everything))
          const key = Result.getOrUndefined(DesignMirror.criteriaKey(everything))!
          const old = Array.from(fetched, (d) => ({
            number: d.number,
            record: Result.getOrUndefined(DesignMirror.recordOf(d))!,
            last_changed: d.lastChanged === undefined ? null : DateTime.formatIso(d.lastChanged),
            synced_at: "2026-11-30T09:00:00.000Z",
            criteria_key: key,
            state: d.number.endsWith("7") ? "no_longer_matching" : "current"
          }))
          yield* db`INSERT INTO designs ${db.insert(nonEmpty(old))}`
          const state = { criteria_key: key, criteria: "{}", watermark: "2026-11-30", run_day: null, run_since: null }
          const at = { run_position: 0, updated_at: "2026-11-30T09:01:00.000Z" }
          yield* db`INSERT INTO design_sync_state ${db.insert({ ...state, ...at })}`
          const before = yield* apiRequests

          const [typed, owners] = yield* Effect.provide(
            Effect.all([
              all("designs", "number"),
              Effect.flatMap(SqlClient.SqlClient, (s) => s`SELECT COUNT(*) AS n FROM design_owners`)
            ]),
            DesignMirror.layer()
          )
          expect(yield* apiRequests).toBe(before)
          expect(typed).toHaveLength(designs)
          expect(Number(owners[0]!.n)).toBe(old.reduce((n, d) => n + (JSON.parse(d.record).owners?.length ?? 0), 0))
          const migrated = yield* rows
          expect(migrated.map((r) => [r.number, JSON.parse(r.record), r.last_changed, r.state])).toEqual(
            old.map((d) => [d.number, JSON.parse(d.record), d.last_changed?.slice(0, 10) ?? null, d.state])
          )
          const titles = yield* db<{ title: string | null }>`SELECT title FROM designs ORDER BY number`
          expect(titles.map((t) => t.title)).toEqual(old.map((d) => JSON.parse(d.record).title ?? null))

          // The migrated mirror goes on from its watermark: the listing, a search of changes, nothing fetched
          // but the designs that were no longer matching and are listed again.
          const [report, requests] = yield* counted(Effect.provide(syncAll, DesignMirror.layer()))
          const relisted = old.filter((d) => d.state !== "current").length
          expect(report).toMatchObject({ full: false, changedSince: "2026-11-30", fetched: relisted, inserted: 0 })
          expect(requests).toBe(2 + relisted)
        }).pipe(Effect.provide(deps))
      }).pipe(Effect.scoped))
  }
})
