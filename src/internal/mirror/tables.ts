/**
 * The mirror's tables, their migrations and every statement the mirror runs on them, through the
 * SQL client: the same SQL on SQLite (libSQL, in Effect 3 only) and PostgreSQL, but for the column
 * types, which are each engine's own; the same migrations, ids and names in both editions, so that
 * a database either made is the other's too (see docs/mirror.md). Every table is named here, by `names`.
 */
import { Migrator, SqlClient } from "#edition/internal/mirror/engines"
import { fromNullable, paginate } from "#edition/internal/seam"
import { Array as Arr, DateTime, Effect, Option, Stream } from "effect"
import { columnsOf, migrationsTable, parsed, qualified, tables } from "../../core/mirror/mirror.js"
import type { ChangeRow, DesignRows, SyncColumns } from "../../core/mirror/mirror.js"
import type { DesignNumber } from "../../Designs.js"
import { databaseError, MirrorDatabaseError } from "./model.js"
import type { Change, ChangesOptions, DesignState } from "./model.js"

/** The mirror's tables (and, by `table`, its indexes), in `schema` if one is named. */
export const names = (sql: SqlClient.SqlClient, schema: string | undefined) => {
  const table = (name: string) => sql(qualified(schema, name))
  const named = Object.fromEntries(Object.entries(tables).map(([key, name]) => [key, table(name)]))
  return { table, ...(named as { readonly [K in keyof typeof tables]: ReturnType<typeof table> }) }
}
type Names = ReturnType<typeof names>

/** The engine's types of a day, an instant and a JSON value. */
export const typesOf = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => ({ date: "DATE", time: "TIMESTAMPTZ", json: "JSONB" }),
    orElse: () => ({ date: "TEXT", time: "TEXT", json: "TEXT" })
  })

const withTables = <A, E, R>(
  schema: string | undefined,
  f: (sql: SqlClient.SqlClient, t: Names) => Effect.Effect<A, E, R>
) => Effect.flatMap(SqlClient.SqlClient, (sql) => f(sql, names(sql, schema)))

/** The tables of the first release, typed and normalized, filled from the records already stored. */
const typedTables = (schema: string | undefined) =>
  withTables(schema, (sql, t) => {
    const { date, json, time } = typesOf(sql)
    const [jsonType, timeType] = [sql.literal(json), sql.literal(time)]
    const party = (table: typeof t.owners) =>
      sql`CREATE TABLE ${table} (number TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
  party ${jsonType} NOT NULL, PRIMARY KEY (number, position))`
    const retype = sql.onDialectOrElse({
      pg: () =>
        sql`ALTER TABLE ${t.designs} ALTER COLUMN record TYPE JSONB USING record::jsonb,
  ALTER COLUMN last_changed TYPE DATE USING CAST(left(last_changed, 10) AS DATE),
  ALTER COLUMN synced_at TYPE TIMESTAMPTZ USING CAST(synced_at AS TIMESTAMPTZ)`,
      orElse: () => sql`UPDATE ${t.designs} SET last_changed = substr(last_changed, 1, 10)`
    })
    const added =
      `title TEXT,status TEXT,filing_date ${date},registration_date ${date},expiry_date ${date},statement_of_newness TEXT`
    return Effect.all([
      retype,
      ...added.split(",").map((column) => sql`ALTER TABLE ${t.designs} ADD COLUMN ${sql.literal(column)}`),
      sql`ALTER TABLE ${t.syncState} ADD COLUMN last_run_at ${timeType}`,
      sql`ALTER TABLE ${t.syncState} ADD COLUMN run_at ${timeType}`,
      party(t.owners),
      party(t.designers),
      sql`CREATE TABLE ${t.classifications} (number TEXT NOT NULL, code TEXT NOT NULL, title TEXT,
  PRIMARY KEY (number, code))`,
      sql`CREATE TABLE ${t.products} (number TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
  PRIMARY KEY (number, position))`,
      sql`CREATE TABLE ${t.changes} (number TEXT NOT NULL, synced_at ${timeType} NOT NULL, kind TEXT NOT NULL,
  fields ${jsonType}, PRIMARY KEY (number, synced_at, kind))`,
      sql`CREATE INDEX design_changes_synced_at ON ${t.changes} (synced_at)`,
      sql`CREATE TABLE ${t.listing} (criteria_key TEXT NOT NULL, number TEXT NOT NULL, PRIMARY KEY (criteria_key, number))`,
      ...["status", "filing_date", "registration_date", "expiry_date", "last_changed"].map((column) =>
        sql`CREATE INDEX ${sql(`designs_${column}`)} ON ${t.designs} (${sql(column)})`
      ),
      // Owner words (PostgreSQL's text search; on SQLite, names by their start, in any case) and class prefixes.
      sql.onDialectOrElse({
        pg: () => sql`CREATE INDEX design_owners_words ON ${t.owners} USING GIN (to_tsvector('simple', name))`,
        orElse: () => sql`CREATE INDEX design_owners_name ON ${t.owners} (name COLLATE NOCASE)`
      }),
      sql.onDialectOrElse({
        pg: () => sql`CREATE INDEX design_classifications_code ON ${t.classifications} (code text_pattern_ops)`,
        orElse: () => sql`CREATE INDEX design_classifications_code ON ${t.classifications} (code COLLATE NOCASE)`
      }),
      backfill(sql, t)
    ], { discard: true })
  })

/** The typed columns and the rows of each design already stored, read and written 500 at a time. */
const backfill = (sql: SqlClient.SqlClient, t: Names): Effect.Effect<void, unknown> => {
  const { writeDesigns } = statements(sql, t)
  const from = (after: string): Effect.Effect<void, unknown> =>
    Effect.flatMap(
      sql<SyncColumns & { number: string; record: string }>`SELECT number,
  CAST(record AS TEXT) AS record, synced_at, criteria_key, state
FROM ${t.designs} WHERE number > ${after} ORDER BY number LIMIT 500`,
      (rows) => {
        const last = rows.at(-1)
        if (last === undefined) return Effect.void
        return Effect.andThen(
          writeDesigns(rows.map((row) => columnsOf(parsed(row.record), row.record, row))),
          from(last.number)
        )
      }
    )
  return from("")
}

const migrations = (schema: string | undefined) => ({
  "1_designs_and_sync_state": withTables(schema, (sql, t) =>
    Effect.all([
      sql`CREATE TABLE ${t.designs} (number TEXT PRIMARY KEY NOT NULL, record TEXT NOT NULL, last_changed TEXT,
  synced_at TEXT NOT NULL, criteria_key TEXT NOT NULL, state TEXT NOT NULL)`,
      sql`CREATE INDEX designs_criteria_key ON ${t.designs} (criteria_key, state)`,
      sql`CREATE TABLE ${t.syncState} (criteria_key TEXT PRIMARY KEY NOT NULL, criteria TEXT NOT NULL,
  watermark TEXT, run_day TEXT, run_since TEXT, run_position INTEGER NOT NULL, updated_at TEXT NOT NULL)`
    ], { discard: true })),
  // The sweep of a criteria's current rows reads them in the order of their numbers, with no sort.
  "2_designs_by_criteria_in_order": withTables(schema, (sql, t) =>
    Effect.all([
      sql`DROP INDEX ${t.table("designs_criteria_key")}`,
      sql`CREATE INDEX designs_criteria_key_state_number ON ${t.designs} (criteria_key, state, number)`
    ], { discard: true })),
  "3_typed_tables_and_history": typedTables(schema)
})

/** Creates the tables, or brings them up to date, under `migrateLocked` (its search path names the migrator's table). */
export const migrate = (schema?: string) =>
  Migrator.make({})({ loader: Migrator.fromRecord(migrations(schema)), table: migrationsTable })

/** The sync state of one criteria (its columns: docs/mirror.md); `run_*`, of the run in progress. */
export interface SyncRow {
  readonly criteria_key: string
  readonly criteria: string
  readonly watermark: string | null
  readonly run_day: string | null
  /** The `changedSinceDate` the run asks with; none for a full run. */
  readonly run_since: string | null
  /** How many designs of the run's search are committed, counted from its first. */
  readonly run_position: number
  readonly updated_at: string
  readonly last_run_at: string | Date | null
  /** The `synced_at` of all the run writes, resumed or not. */
  readonly run_at: string | Date | null
}

/** Rows a statement writes or names at most (well under both engines' parameter caps). */
const chunks = <A>(items: ReadonlyArray<A>) => Arr.chunksOf(items, 500)

/** The statements of the mirror on the tables `t`. */
const statements = (sql: SqlClient.SqlClient, t: Names) => {
  const insert = (table: typeof t.designs, rows: ReadonlyArray<Record<string, unknown>>, then = sql``) =>
    Effect.forEach(chunks(rows), (c) => sql`INSERT INTO ${table} ${sql.insert(c)} ${then}`, { discard: true })

  /**
   * Writes designs with the rows of their parties, classes and products, which replace any the
   * numbers had: those first, so that a stopped write leaves the design's old record (or none),
   * which the next run finds different and writes again, over the rows the stopped one left.
   */
  const writeDesigns = (designs: ReadonlyArray<DesignRows>) => {
    if (designs.length === 0) return Effect.void
    const replaced = designs.map((d) => d.columns.number)
    const children = [
      [t.owners, designs.flatMap((d) => d.owners)],
      [t.designers, designs.flatMap((d) => d.designers)],
      [t.classifications, designs.flatMap((d) => d.classifications)],
      [t.products, designs.flatMap((d) => d.products)]
    ] as const
    return Effect.all([
      Effect.forEach(children, ([table, rows]) =>
        Effect.andThen(
          Effect.forEach(chunks(replaced), (chunk) => sql`DELETE FROM ${table} WHERE ${sql.in("number", chunk)}`),
          insert(table, rows)
        )),
      insert(
        t.designs,
        designs.map((d) => d.columns),
        sql`ON CONFLICT (number) DO UPDATE SET title = excluded.title, status = excluded.status,
  filing_date = excluded.filing_date, registration_date = excluded.registration_date,
  expiry_date = excluded.expiry_date, last_changed = excluded.last_changed,
  statement_of_newness = excluded.statement_of_newness, record = excluded.record, synced_at = excluded.synced_at,
  criteria_key = excluded.criteria_key, state = excluded.state`
      )
    ], { discard: true })
  }

  return { insert, writeDesigns }
}

/** The statements of the mirror, over the ambient `SqlClient`, on its tables in `schema` if one is named. */
export const make = (schema?: string) =>
  Effect.map(SqlClient.SqlClient, (sql) => {
    const t = names(sql, schema)
    const { insert, writeDesigns } = statements(sql, t)
    /**
     * Marks the rows `where` selects, but those already `state`, and writes their change to
     * history if `history` says so; tells how many it marked.
     */
    const mark = (where: ReturnType<typeof sql.and>, state: DesignState, at: string, history: boolean) => {
      const selected = sql`FROM ${t.designs} WHERE ${where} AND state <> ${state}`
      const time = sql.literal(typesOf(sql).time)
      return Effect.tap(
        Effect.map(sql<{ n: number | string }>`SELECT COUNT(*) AS n ${selected}`, ([row]) => Number(row?.n ?? 0)),
        Effect.all([
          history
            ? sql`INSERT INTO ${t.changes} (number, synced_at, kind) SELECT number, CAST(${at} AS ${time}), ${state} ${selected}
  ON CONFLICT DO NOTHING`
            : Effect.void,
          sql`UPDATE ${t.designs} SET state = ${state}, synced_at = ${at} WHERE ${where} AND state <> ${state}`
        ])
      )
    }

    return {
      writeDesigns,
      syncRow: (key: string) =>
        Effect.map(
          sql<SyncRow>`SELECT * FROM ${t.syncState} WHERE criteria_key = ${key}`,
          (rows) => fromNullable(rows[0])
        ),
      putSyncRow: (row: SyncRow) =>
        Effect.asVoid(sql`INSERT INTO ${t.syncState} ${sql.insert({ ...row })}
  ON CONFLICT (criteria_key) DO UPDATE SET criteria = excluded.criteria, watermark = excluded.watermark,
    run_day = excluded.run_day, run_since = excluded.run_since, run_position = excluded.run_position,
    updated_at = excluded.updated_at, last_run_at = excluded.last_run_at, run_at = excluded.run_at`),
      /** The rows of `numbers` that exist, with what decides whether a write changes them. */
      existing: (numbers: ReadonlyArray<string>) =>
        Effect.map(
          Effect.forEach(chunks(numbers), (chunk) =>
            sql<{ number: string; record: string; criteria_key: string; state: DesignState }>`SELECT number,
    CAST(record AS TEXT) AS record, criteria_key, state FROM ${t.designs} WHERE ${sql.in("number", chunk)}`),
          (parts) => new Map(parts.flat().map((row) => [row.number, row]))
        ),
      /** Marks the rows of `numbers` not found. */
      notFound: (numbers: ReadonlyArray<string>, at: string, history: boolean) =>
        Effect.forEach(chunks(numbers), (chunk) => mark(sql.and([sql.in("number", chunk)]), "not_found", at, history)),
      /**
       * Writes `numbers` to the listing of `key`, which holds the numbers its last search listed: as
       * one JSON parameter, as a statement of a parameter a number stays in libSQL's memory until collected.
       */
      list: (key: string, numbers: ReadonlyArray<string>) => {
        const json = JSON.stringify(numbers)
        return sql`INSERT INTO ${t.listing} (criteria_key, number) SELECT ${key}, value FROM ${
          sql.onDialectOrElse({
            pg: () => sql`json_array_elements_text(${json}::json) AS value`,
            orElse: () => sql`json_each(${json}) WHERE true`
          })
        } ON CONFLICT DO NOTHING`
      },
      clearListing: (key: string) => sql`DELETE FROM ${t.listing} WHERE criteria_key = ${key}`,
      /** Marks the current rows of `key` its listing leaves out; tells how many. */
      unlisted: (key: string, at: string, history: boolean) =>
        mark(
          sql.and([
            sql`criteria_key = ${key}`,
            sql`state = 'current'`,
            sql`NOT EXISTS (SELECT 1 FROM ${t.listing} l WHERE l.criteria_key = ${key} AND l.number = ${t.designs}.number)`
          ]),
          "no_longer_matching",
          at,
          history
        ),
      /**
       * Up to `limit` numbers of the listing of `key` after `after`, in order, without a row or whose
       * row no longer matched: a row current (for any criteria) or not found is left as it is.
       */
      listedToGet: (key: string, after: string, limit: number) =>
        Effect.map(
          sql<{ number: DesignNumber }>`SELECT l.number FROM ${t.listing} l WHERE l.criteria_key = ${key}
    AND l.number > ${after} AND NOT EXISTS (SELECT 1 FROM ${t.designs} d
      WHERE d.number = l.number AND d.state <> 'no_longer_matching')
  ORDER BY l.number LIMIT ${limit}`,
          (rows) => rows.map((r) => r.number)
        ),
      /** Writes history; a change the run already wrote (a write stopped, then resumed) is kept once. */
      recordChanges: (rows: ReadonlyArray<ChangeRow>) => insert(t.changes, rows, sql`ON CONFLICT DO NOTHING`)
    }
  })

/** The statements of the mirror. */
export type Tables = ReturnType<typeof make> extends Effect.Effect<infer A, infer _E, infer _R> ? A : never

/**
 * The changes of the mirror in `schema` (see `DesignMirror.changes`), read a page at a time; a
 * database without `design_changes` is not a mirror, and is told so before anything is read or made.
 */
export const changes = (schema: string | undefined, { kind, since }: ChangesOptions) =>
  Stream.unwrap(withTables(schema, (sql, t) =>
    Effect.gen(function*() {
      const found = yield* sql.onDialectOrElse({
        pg: () =>
          sql`SELECT 1 WHERE to_regclass(format('%I.%I', ${schema ?? ""}::text, ${tables.changes}::text)) IS NOT NULL`,
        orElse: () => sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ${tables.changes}`
      })
      if (found.length === 0) return yield* new MirrorDatabaseError({ detail: "not a mirror: no design_changes table" })
      const [last] = yield* sql<{ at: string | Date | null }>`SELECT MAX(last_run_at) AS at FROM ${t.syncState}`
      const from = since === undefined ? new Date(last?.at ?? 0).toISOString() : DateTime.formatIso(since)
      return paginate(undefined as readonly [string, string, string] | undefined, (after) =>
        Effect.map(
          sql<ChangeRow & { synced_at: string | Date }>`SELECT number, synced_at, kind, CAST(fields AS TEXT) AS fields
  FROM ${t.changes} WHERE ${
            sql.and([
              sql`synced_at >= ${from}`,
              ...(kind === undefined ? [] : [sql`kind = ${kind}`]),
              ...(after === undefined ? [] : [sql`(synced_at, number, kind) < (${after[0]}, ${after[1]}, ${after[2]})`])
            ])
          } ORDER BY synced_at DESC, number DESC, kind DESC LIMIT 500`,
          (rows) => {
            const page = rows.map((row): Change => ({
              number: row.number,
              syncedAt: new Date(row.synced_at).toISOString(),
              kind: row.kind,
              fields: parsed(row.fields) as Change["fields"]
            }))
            const end = page.length < 500 ? undefined : page.at(-1)
            const next = Option.map(fromNullable(end), (c) => [c.syncedAt, c.number, c.kind] as const)
            return [page, next] as const
          }
        ))
    }))).pipe(Stream.catchTag("SqlError", (e) => Stream.fail(databaseError("reading changes")(e))))
