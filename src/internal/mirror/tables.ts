/**
 * The mirror's tables, their migrations and every statement the mirror runs on them: SQL that
 * SQLite (libSQL) and PostgreSQL both accept, through `@effect/sql`'s `SqlClient`. Every table the
 * mirror keeps is declared here, a migration each change, and named by `names`.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Array as Arr, Effect, Option } from "effect"
import type { DesignState } from "./model.js"

/** The table where the migrator records the migrations it has run. */
export const migrationsTable = "design_mirror_migrations"

/** `name`, in `schema` (a PostgreSQL schema) if one is named. */
export const qualified = (schema: string | undefined, name: string) => schema === undefined ? name : `${schema}.${name}`

/** The mirror's tables (and indexes), in `schema` if one is named. */
export const names = (sql: SqlClient.SqlClient, schema: string | undefined) => {
  const name = (table: string) => sql(qualified(schema, table))
  return { designs: name("designs"), syncState: name("design_sync_state"), name }
}
type Names = ReturnType<typeof names>

const withTables = <A, E>(schema: string | undefined, f: (sql: SqlClient.SqlClient, t: Names) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => f(sql, names(sql, schema)))

const migrations = (schema: string | undefined) => ({
  "1_designs_and_sync_state": withTables(schema, (sql, t) =>
    Effect.all([
      sql`CREATE TABLE ${t.designs} (
  number TEXT PRIMARY KEY NOT NULL,
  record TEXT NOT NULL,
  last_changed TEXT,
  synced_at TEXT NOT NULL,
  criteria_key TEXT NOT NULL,
  state TEXT NOT NULL
)`,
      sql`CREATE INDEX designs_criteria_key ON ${t.designs} (criteria_key, state)`,
      sql`CREATE TABLE ${t.syncState} (
  criteria_key TEXT PRIMARY KEY NOT NULL,
  criteria TEXT NOT NULL,
  watermark TEXT,
  run_day TEXT,
  run_since TEXT,
  run_position INTEGER NOT NULL,
  updated_at TEXT NOT NULL
)`
    ], { discard: true })),
  // The sweep of a criteria's current rows reads them in the order of their numbers, with no sort.
  "2_designs_by_criteria_in_order": withTables(schema, (sql, t) =>
    Effect.all([
      sql`DROP INDEX ${t.name("designs_criteria_key")}`,
      sql`CREATE INDEX designs_criteria_key_state_number ON ${t.designs} (criteria_key, state, number)`
    ], { discard: true }))
})

/** Creates the tables, or brings them up to date: run once when the mirror is made. */
export const migrate = (schema?: string) =>
  Migrator.make({})({ loader: Migrator.fromRecord(migrations(schema)), table: qualified(schema, migrationsTable) })

/** A design as a row of `designs`. */
export interface DesignRow {
  readonly number: string
  readonly record: string
  readonly last_changed: string | null
  readonly synced_at: string
  readonly criteria_key: string
  readonly state: DesignState
}

/** The sync state of one criteria. */
export interface SyncRow {
  readonly criteria_key: string
  readonly criteria: string
  /** The day (UTC, `YYYY-MM-DD`) the last complete run started: the next run asks for changes since it. */
  readonly watermark: string | null
  /** The day the run in progress started, if one is in progress (stopped before it finished). */
  readonly run_day: string | null
  /** The `changedSinceDate` the run in progress asks with; none for a full run. */
  readonly run_since: string | null
  /** How many designs of the run's search are committed, counted from its first. */
  readonly run_position: number
  readonly updated_at: string
}

/** Numbers a statement names at most (well under both engines' parameter caps). */
const chunks = (numbers: ReadonlyArray<string>) => Arr.chunksOf(numbers, 500)

/** The statements of the mirror, over the ambient `SqlClient`, on its tables in `schema` if one is named. */
export const make = (schema?: string) =>
  Effect.map(SqlClient.SqlClient, (sql) => {
    const t = names(sql, schema)
    const syncRow = (key: string) =>
      Effect.map(
        sql<SyncRow>`SELECT * FROM ${t.syncState} WHERE criteria_key = ${key}`,
        (rows) => Option.fromNullable(rows[0])
      )

    const putSyncRow = (row: SyncRow) =>
      Effect.asVoid(sql`INSERT INTO ${t.syncState} ${sql.insert({ ...row })}
ON CONFLICT (criteria_key) DO UPDATE SET criteria = excluded.criteria, watermark = excluded.watermark,
  run_day = excluded.run_day, run_since = excluded.run_since, run_position = excluded.run_position,
  updated_at = excluded.updated_at`)

    /** The rows of `numbers` that exist, with what decides whether a write changes them. */
    const existing = (numbers: ReadonlyArray<string>) =>
      Effect.map(
        Effect.forEach(chunks(numbers), (chunk) =>
          sql<
            Pick<DesignRow, "number" | "record" | "criteria_key" | "state">
          >`SELECT number, record, criteria_key, state
FROM ${t.designs} WHERE ${sql.in("number", chunk)}`),
        (parts) => new Map(parts.flat().map((row) => [row.number, row]))
      )

    const upsert = (rows: ReadonlyArray<DesignRow>) =>
      rows.length === 0 ?
        Effect.void :
        Effect.asVoid(sql`INSERT INTO ${t.designs} ${sql.insert(rows.map((r) => ({ ...r })))}
ON CONFLICT (number) DO UPDATE SET record = excluded.record, last_changed = excluded.last_changed,
  synced_at = excluded.synced_at, criteria_key = excluded.criteria_key, state = excluded.state`)

    const mark = (numbers: ReadonlyArray<string>, state: DesignState, at: string) =>
      Effect.forEach(
        chunks(numbers),
        (chunk) => sql`UPDATE ${t.designs} SET state = ${state}, synced_at = ${at} WHERE ${sql.in("number", chunk)}`,
        { discard: true }
      )

    /** Up to `limit` numbers of the rows current for `key`, after `after` in the database's order. */
    const currentAfter = (key: string, after: string, limit: number) =>
      Effect.map(
        sql<{ number: string }>`SELECT number FROM ${t.designs}
WHERE criteria_key = ${key} AND state = 'current' AND number > ${after} ORDER BY number LIMIT ${limit}`,
        (rows) => rows.map((r) => r.number)
      )

    return { syncRow, putSyncRow, existing, upsert, mark, currentAfter }
  })

/** The statements of the mirror. */
export type Tables = Effect.Effect.Success<ReturnType<typeof make>>
