/**
 * The tools over a mirror's `SqlClient` and its schema resource. A query is one `SELECT`, run as a subquery with a
 * row cap: on SQLite `query_only`, on PostgreSQL in a `READ ONLY` transaction with a statement timeout (docs/mcp.md).
 */
import { literals, Query } from "#edition/internal/domainSchemas"
import { describeAs as d, intBetween } from "#edition/internal/mcp/server"
import { SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe } from "#edition/internal/seam"
import { Effect, Schema, Stream } from "effect"
import { cap } from "../../core/mask/mask.js"
import { changeKinds, defaultSchema, tables } from "../../core/mirror/mirror.js"
import { readOnlySql } from "../../core/mirror/readOnlySql.js"
import { wireDate } from "../../core/wire/calendarDate.js"
import { databaseError } from "../mirror/model.js"
import * as Sync from "../mirror/sync.js"
import { readReport } from "../watch/watch.js"
import { bounded, refuse, tool } from "./tools.js"
import type { Spec } from "./tools.js"

/** Options of the mirror's tools: its PostgreSQL schema, and how long a query may run there. */
export interface MirrorOptions {
  readonly schema?: string | undefined
  readonly statementTimeoutMillis?: number | undefined
}

const limit = (what: string) => Schema.optional(d(intBetween(1, 1000), `${what} at most, 1 to 1000 (default 100)`))
const QueryArgs = Schema.Struct({
  sql: d(Query, "one SELECT (or WITH … SELECT) over the mirror's tables: see design-mirror://schema"),
  limit: limit("rows")
})
const [truncated, rows] = [Schema.optional(Schema.String), Schema.Array(Schema.Array(Schema.Unknown))]
const QueryAnswer = Schema.Struct({ columns: Schema.Array(Schema.String), rows, truncated })
const since = "changes seen since this day or instant, YYYY-MM-DD or ISO (default: the last sync)"
const ChangesArgs = Schema.Struct({
  since: Schema.optional(d(Query, since)),
  kind: Schema.optional(d(literals(...changeKinds), `one kind: ${changeKinds.join(", ")}`)),
  limit: limit("changes")
})
const { String: S, Unknown } = Schema
const Change = Schema.Struct({ number: S, syncedAt: S, kind: S, fields: Unknown })
const ChangesAnswer = Schema.Struct({ changes: Schema.Array(Change), truncated })

const jsonValue = (v: unknown): unknown =>
  typeof v === "bigint" ? Number(v) : v instanceof Date ? v.toISOString() : typeof v === "string" ? cap(v, 1000) : v
const capped = <A>(found: ReadonlyArray<A>, limit: number, what: string) =>
  found.length > limit ? { truncated: `more than ${limit} ${what}: the first ${limit} are shown` } : {}

const query = (options: MirrorOptions) => ({ limit = 100, sql: given }: typeof QueryArgs.Type) =>
  Effect.gen(function*() {
    // one SELECT calling only functions that compute: no file, large object or lock (readOnlySql.ts)
    const checked = readOnlySql(given)
    if ("refused" in checked) return yield* refuse("mirror_query", `${checked.refused}; the mirror is never changed`)
    const text = checked.sql
    const sql = yield* SqlClient.SqlClient
    const wrapped = sql.unsafe(`SELECT * FROM (\n${text}\n) AS mirror_query LIMIT ${limit + 1}`)
    const schema = (options.schema ?? defaultSchema).replaceAll("\"", "\"\"")
    const rows = yield* sql.onDialectOrElse({
      pg: () => {
        const timeout = `SET LOCAL statement_timeout = ${Math.trunc(options.statementTimeoutMillis ?? 5000)}`
        const set = ["SET TRANSACTION READ ONLY", timeout, `SET LOCAL search_path TO "${schema}", public`]
        return sql.withTransaction(Effect.andThen(Effect.forEach(set, (s) => sql.unsafe(s)), wrapped))
      },
      orElse: () =>
        Effect.ensuring(
          Effect.andThen(sql.unsafe("PRAGMA query_only = ON"), wrapped),
          Effect.ignore(sql.unsafe("PRAGMA query_only = OFF"))
        )
    }).pipe(Effect.mapError(databaseError("mirror_query")))
    const kept = rows.slice(0, limit) as ReadonlyArray<Readonly<Record<string, unknown>>>
    const columns = Object.keys(kept[0] ?? {})
    return { columns, rows: kept.map((row) => columns.map((c) => jsonValue(row[c]))), ...capped(rows, limit, "rows") }
  })

const changes = (options: MirrorOptions) => ({ kind, limit = 100, since }: typeof ChangesArgs.Type) =>
  Effect.gen(function*() {
    const at = since === undefined ? undefined : wireDate(since)
    if (since !== undefined && at === undefined) {
      return yield* refuse("mirror_changes", "since: expected YYYY-MM-DD or an ISO timestamp")
    }
    const all = Sync.changes({ since: at === undefined ? undefined : dateTimeUnsafe(at), kind, schema: options.schema })
    const found = Array.from(yield* Stream.runCollect(Stream.take(all, limit + 1)))
    return { changes: found.slice(0, limit), ...capped(found, limit, "changes") }
  })

const WatchArgs = Schema.Struct({
  name: d(Query, "the watch's name, as design-search watch list shows it"),
  since: Schema.optional(d(Query, "events at or after this day or instant, YYYY-MM-DD or ISO (default: all)")),
  until: Schema.optional(d(Query, "events before this day or instant, YYYY-MM-DD or ISO")),
  limit: limit("events")
})
const WatchAnswer = Schema.Struct({ events: Schema.Array(Schema.Unknown), truncated })

/** A watch's events as `design-search watch report` reads them (`readReport`), each bounded as a hit is. */
const watchReport = (options: MirrorOptions) => ({ limit = 100, name, since, until }: typeof WatchArgs.Type) =>
  Effect.gen(function*() {
    const [from, to] = [since, until].map((v) => (v === undefined ? undefined : wireDate(v)))
    if ((since !== undefined && from === undefined) || (until !== undefined && to === undefined)) {
      return yield* refuse("watch_report", "since and until: expected YYYY-MM-DD or an ISO timestamp")
    }
    const [start, end] = [from, to].map((ms) => (ms === undefined ? undefined : dateTimeUnsafe(ms)))
    const range = { since: start, until: end }
    const found = yield* readReport(yield* SqlClient.SqlClient, options.schema)(name, range, limit + 1)
    const shown = found.slice(0, limit).map(({ watch: _, ...event }) => bounded(event))
    return { events: shown, ...capped(found, limit, "events") }
  })

/** The tools over a mirror. */
export const mirrorTools = (options: MirrorOptions): ReadonlyArray<Spec<SqlClient.SqlClient>> => [
  tool(
    "mirror_query",
    "Runs one read-only SQL SELECT over the local mirror of the register (tables designs, design_owners, " +
      "design_designers, design_classifications, design_products, design_changes: read design-mirror://schema first) " +
      "and answers columns and rows, at most limit. Writes are refused. Example: " +
      "{\"sql\": \"SELECT status, count(*) AS designs FROM designs GROUP BY status\"}",
    [QueryArgs, QueryAnswer],
    query(options)
  ),
  tool(
    "mirror_changes",
    "What the mirror's syncs changed, newest first: each change's design number, when the sync saw it, " +
      "its kind, and for a changed design the fields with their old and new values. By default the changes of the " +
      "last sync. Example: {\"since\": \"2026-11-01\", \"kind\": \"changed\"}",
    [ChangesArgs, ChangesAnswer],
    changes(options)
  ),
  tool(
    "watch_report",
    "The events of a saved design watch (design-search watch), oldest first: each design's number, the event " +
      "(new, status, owner, classification, expiring, no_longer_matching), when, its old and new values, and the " +
      "design's title, status, owners and classes. Reads only. Example: {\"name\": \"chairs\", \"since\": \"2026-11-01\"}",
    [WatchArgs, WatchAnswer],
    watchReport(options)
  )
]

const examples = `Example queries (docs/mirror.md):
SELECT d.number, d.title FROM designs d WHERE d.status = 'REGISTERED' AND d.number IN (SELECT number FROM design_owners
  WHERE name LIKE 'wattle%') ORDER BY d.number -- PostgreSQL: to_tsvector('simple', name) @@ plainto_tsquery('simple', 'wattle')
SELECT number, synced_at, fields -> 'status' ->> 'old' AS old_status, fields -> 'status' ->> 'new' AS new_status
  FROM design_changes WHERE kind = 'changed' AND fields -> 'status' IS NOT NULL ORDER BY synced_at DESC
SELECT substr(c.code, 1, 2) AS locarno_class, count(DISTINCT c.number) AS designs FROM design_classifications c
  JOIN designs d ON d.number = c.number WHERE d.state = 'current' GROUP BY 1 ORDER BY 1`

/** The mirror's tables and columns as its engine has them, with example queries: `design-mirror://schema`. */
export const schemaText = (options: MirrorOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = yield* sql.onDialectOrElse({
      pg: () =>
        sql<
          Record<"t" | "c" | "y", string>
        >`SELECT table_name AS t, column_name AS c, data_type AS y FROM information_schema.columns
WHERE table_schema = ${options.schema ?? defaultSchema} ORDER BY table_name, ordinal_position`,
      orElse: () =>
        sql<
          Record<"t" | "c" | "y", string>
        >`SELECT m.name AS t, p.name AS c, p.type AS y FROM sqlite_master m JOIN pragma_table_info(m.name) p
WHERE m.type = 'table' ORDER BY m.name, p.cid`
    }).pipe(Effect.mapError(databaseError("reading the mirror's tables")))
    const shown = Object.values(tables).filter((t) => t !== tables.listing && t !== tables.syncState)
    const engine = sql.onDialectOrElse({ pg: () => "PostgreSQL", orElse: () => "SQLite" })
    return [
      `The mirror's tables (${engine}; days YYYY-MM-DD, instants ISO, record and fields JSON):`,
      ...shown.map((t) => `${t}(${columns.filter((r) => r.t === t).map((r) => `${r.c} ${r.y}`).join(", ")})`),
      `designs.state: current, no_longer_matching or not_found; design_changes.kind: ${changeKinds.join(", ")}`,
      examples
    ].join("\n")
  })
