/**
 * The MCP toolkit's tools over a mirror's `SqlClient` (`mirror_query`, `mirror_changes`) and its
 * schema resource. A query is one read-only `SELECT`: on SQLite with `query_only`, on PostgreSQL in
 * a `READ ONLY` transaction with a statement timeout, capped in rows; it never changes the mirror.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { describeAs, intBetween } from "#edition/internal/mcp/schemas"
import { dateTimeUnsafe } from "#edition/internal/seam"
import { literals } from "#edition/internal/domainSchemas"
import { Effect, Schema, Stream } from "effect"
import { changeKinds, defaultSchema, tables } from "../../core/mirror/mirror.js"
import { wireDate } from "../../core/wire/calendarDate.js"
import { Query } from "#edition/internal/domainSchemas"
import { databaseError } from "../mirror/model.js"
import * as Sync from "../mirror/sync.js"
import { cut, Refused, tool } from "./tools.js"
import type { Explain, Spec } from "./tools.js"

/** Options of the mirror's tools: its PostgreSQL schema, and how long a query may run there. */
export interface MirrorOptions {
  readonly schema?: string | undefined
  readonly statementTimeoutMillis?: number | undefined
}

const QueryArgs = Schema.Struct({
  sql: describeAs(Query, "one SELECT (or WITH … SELECT) over the mirror's tables; see design-mirror://schema"),
  limit: Schema.optional(describeAs(intBetween(1, 1000), "rows to answer at most, 1 to 1000 (default 100)"))
})
const QueryAnswer = Schema.Struct({
  columns: Schema.Array(Schema.String),
  rows: Schema.Array(Schema.Array(Schema.Unknown)),
  truncated: Schema.optional(Schema.String)
})
const ChangesArgs = Schema.Struct({
  since: Schema.optional(describeAs(Query, "changes seen since this day or instant, YYYY-MM-DD or ISO; default the last sync")),
  kind: Schema.optional(describeAs(literals(...changeKinds), `one kind: ${changeKinds.join(", ")}`)),
  limit: Schema.optional(describeAs(intBetween(1, 1000), "changes to answer at most, 1 to 1000 (default 100)"))
})
const ChangesAnswer = Schema.Struct({
  changes: Schema.Array(Schema.Struct({ number: Schema.String, syncedAt: Schema.String, kind: Schema.String, fields: Schema.Unknown })),
  truncated: Schema.optional(Schema.String)
})

/** A value of a row as JSON holds it: whole numbers past 2^53 and bytes as text, long texts cut. */
const jsonValue = (v: unknown): unknown =>
  typeof v === "bigint"
    ? (Number.isSafeInteger(Number(v)) ? Number(v) : String(v))
    : v instanceof Date
    ? v.toISOString()
    : v instanceof Uint8Array
    ? `(${v.length} bytes)`
    : typeof v === "string"
    ? cut(v, 1000)
    : v

const refuse = (message: string) => Effect.fail(new Refused({ message: `mirror_query: ${message}` }))

const query = (options: MirrorOptions) => ({ limit = 100, sql: given }: typeof QueryArgs.Type) =>
  Effect.gen(function*() {
    const text = given.trim().replace(/;\s*$/, "")
    const first = text.replace(/^(?:\s+|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, "").split(/[\s(]/)[0]?.toUpperCase()
    if (first !== "SELECT" && first !== "WITH") {
      return yield* refuse("only one read-only SELECT (or WITH … SELECT) runs here; the mirror is never changed")
    }
    if (text.includes(";")) return yield* refuse("one statement only: no ';' but at its end")
    const sql = yield* SqlClient.SqlClient
    // Wrapped, the text is one statement, a subquery: a second one, or a write, is not SQL there.
    const wrapped = `SELECT * FROM (\n${text}\n) AS mirror_query LIMIT ${limit + 1}`
    const schema = (options.schema ?? defaultSchema).replaceAll("\"", "\"\"")
    const rows = yield* sql.onDialectOrElse({
      pg: () =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql.unsafe("SET TRANSACTION READ ONLY")
          yield* sql.unsafe(`SET LOCAL statement_timeout = ${Math.trunc(options.statementTimeoutMillis ?? 5000)}`)
          yield* sql.unsafe(`SET LOCAL search_path TO "${schema}", public`)
          return yield* sql.unsafe(wrapped)
        })),
      orElse: () =>
        Effect.ensuring(
          Effect.andThen(sql.unsafe("PRAGMA query_only = ON"), sql.unsafe(wrapped)),
          Effect.ignore(sql.unsafe("PRAGMA query_only = OFF"))
        )
    }).pipe(Effect.mapError(databaseError("mirror_query")))
    const kept = rows.slice(0, limit) as ReadonlyArray<Readonly<Record<string, unknown>>>
    const columns = Object.keys(kept[0] ?? {})
    return {
      columns,
      rows: kept.map((row) => columns.map((c) => jsonValue(row[c]))),
      ...(rows.length > limit ? { truncated: `more than ${limit} rows: the first ${limit} are shown` } : {})
    }
  })

const changes = (options: MirrorOptions) => ({ kind, limit = 100, since }: typeof ChangesArgs.Type) =>
  Effect.gen(function*() {
    const at = since === undefined ? undefined : wireDate(since)
    if (since !== undefined && at === undefined) {
      return yield* Effect.fail(new Refused({ message: "mirror_changes: since: expected YYYY-MM-DD or an ISO timestamp" }))
    }
    const found: Array<object> = []
    yield* Sync.changes({
      ...(at === undefined ? {} : { since: dateTimeUnsafe(at) }),
      ...(kind === undefined ? {} : { kind }),
      ...(options.schema === undefined ? {} : { schema: options.schema })
    }).pipe(Stream.take(limit + 1), Stream.runForEach((change) => Effect.sync(() => void found.push(change))))
    return {
      changes: found.slice(0, limit),
      ...(found.length > limit ? { truncated: `more than ${limit} changes: the newest ${limit} are shown` } : {})
    }
  })

/** The tools over a mirror, failures told by `explain`. */
export const mirrorTools = (explain: Explain, options: MirrorOptions): ReadonlyArray<Spec<SqlClient.SqlClient>> => [{
  name: "mirror_query",
  description: "Runs one read-only SQL SELECT over the local mirror of the register (tables designs, " +
    "design_owners, design_designers, design_classifications, design_products, design_changes; read " +
    "design-mirror://schema first) and answers columns and rows, at most limit. Writes are refused. Example: " +
    "{\"sql\": \"SELECT status, count(*) AS designs FROM designs GROUP BY status\"}",
  parameters: QueryArgs,
  output: QueryAnswer,
  run: tool("mirror_query", QueryArgs, explain, query(options))
}, {
  name: "mirror_changes",
  description: "What the mirror's syncs changed, newest first: each change's design number, when the sync saw " +
    "it, its kind, and for changed designs the fields with their old and new values. By default the changes of " +
    "the last sync. Example: {\"since\": \"2026-11-01\", \"kind\": \"changed\"}",
  parameters: ChangesArgs,
  output: ChangesAnswer,
  run: tool("mirror_changes", ChangesArgs, explain, changes(options))
}]

const examples = [
  "-- registered designs of an owner (PostgreSQL: to_tsvector('simple', name) @@ plainto_tsquery('simple', 'wattle'))",
  "SELECT d.number, d.title, d.filing_date FROM designs d WHERE d.status = 'REGISTERED' AND d.number IN " +
  "(SELECT number FROM design_owners WHERE name LIKE 'wattle%') ORDER BY d.number",
  "-- status changes",
  "SELECT number, synced_at, fields -> 'status' ->> 'old' AS old_status, fields -> 'status' ->> 'new' AS " +
  "new_status FROM design_changes WHERE kind = 'changed' AND fields -> 'status' IS NOT NULL ORDER BY synced_at DESC",
  "-- designs by Locarno class",
  "SELECT substr(c.code, 1, 2) AS locarno_class, count(DISTINCT c.number) AS designs FROM design_classifications c " +
  "JOIN designs d ON d.number = c.number WHERE d.state = 'current' GROUP BY 1 ORDER BY 1"
]

/** The mirror's tables and columns as its engine has them, with example queries: `design-mirror://schema`. */
export const schemaText = (options: MirrorOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const names = Object.values(tables).filter((t) => t !== tables.listing && t !== tables.syncState)
    const rows = yield* sql.onDialectOrElse({
      pg: () =>
        sql<{ readonly t: string; readonly c: string; readonly y: string }>`SELECT table_name AS t, column_name AS c,
data_type AS y FROM information_schema.columns WHERE table_schema = ${options.schema ?? defaultSchema}
ORDER BY table_name, ordinal_position`,
      orElse: () =>
        sql<{ readonly t: string; readonly c: string; readonly y: string }>`SELECT m.name AS t, p.name AS c,
p.type AS y FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY m.name, p.cid`
    }).pipe(Effect.mapError(databaseError("reading the mirror's tables")))
    const engine = sql.onDialectOrElse({ pg: () => "PostgreSQL", orElse: () => "SQLite" })
    const lines = names.map((t) => `${t}(${rows.filter((r) => r.t === t).map((r) => `${r.c} ${r.y}`).join(", ")})`)
    return [
      `The mirror's tables (${engine}; dates are YYYY-MM-DD, instants ISO, record and fields JSON):`,
      ...lines,
      "designs.state is current, no_longer_matching or not_found; design_changes.kind is " + changeKinds.join(", "),
      "Example queries:",
      ...examples
    ].join("\n")
  })
