/**
 * How the mirror shares its database (docs/mirror.md): tables in a PostgreSQL schema of their own,
 * migrated in one transaction under a lock; a run at a time, under a lock the server or the OS lets
 * go of however the process ends; no SQL failure a defect.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { MigrationError } from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Schedule } from "effect"
import type { Scope } from "effect"
import { pathToFileURL } from "node:url"
import {
  defaultSchema,
  earlierTables,
  migrationsTable,
  qualified,
  schemaProblem,
  takesEarlier
} from "../../core/mirror.js"
import { databaseError, isLocked, MirrorDatabaseError } from "./model.js"

/**
 * The schema of the mirror's tables: on PostgreSQL the one named, or `design_search`; none elsewhere.
 * A name PostgreSQL would refuse or cut is refused on every engine, as an option out of range.
 */
export const schemaOf = (named: unknown) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const problem = schemaProblem(named)
    if (problem !== undefined) return Effect.fail(new MirrorDatabaseError({ detail: problem }))
    const schema = named as string | undefined
    return Effect.succeed(sql.onDialectOrElse({ pg: () => schema ?? defaultSchema, orElse: () => undefined }))
  })

/** SQL failures that the client or the migrator raise as defects (a failed `COMMIT`, a failed migration), as failures. */
const sqlFailures = (doing: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchSomeDefect(effect, (defect) =>
    defect instanceof SqlError || defect instanceof MigrationError
      ? Option.some(Effect.fail(databaseError(doing)(defect)))
      : Option.none())

/** The part of `@effect/sql-libsql`'s client used here: its `@libsql/client`, whose `transaction` takes its connection. */
type Libsql = { readonly sdk: { transaction(mode: "deferred"): Promise<{ close(): void }> } }

/**
 * A statement that could not get a SQLite file's lock, its connection replaced (same busy timeout):
 * libSQL leaves the statement in progress, and every later write on that connection uncommitted.
 */
const renewing = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (e) =>
    !isLocked(e) || !("sdk" in sql) ? Effect.void : Effect.ignore(Effect.gen(function*() {
      const [busy] = yield* sql<{ readonly timeout: number }>`PRAGMA busy_timeout`
      yield* Effect.tryPromise(() => (sql as unknown as Libsql).sdk.transaction("deferred").then((tx) => tx.close()))
      yield* sql.unsafe(`PRAGMA busy_timeout = ${busy?.timeout ?? 0}`)
    })))

const retries = { schedule: Schedule.exponential("100 millis"), times: 2, while: isLocked }

/** A statement that could not get a SQLite file's lock tried twice more: SQLite does not wait where two writers could deadlock. */
export const retryLocked = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.retry(renewing(sql, effect), retries))

/**
 * `migrate` in one transaction: one that fails (a table in the way) leaves nothing behind. On
 * PostgreSQL under an advisory lock, so that first syncs at once do not create the same tables; the
 * schema made, and a mirror of an earlier release (in the connection's schema) moved into it.
 */
export const migrateLocked = <E extends { readonly message: string }>(
  schema: string | undefined,
  migrate: Effect.Effect<unknown, E, SqlClient.SqlClient>
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const prepare = schema === undefined ? Effect.void : Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${schema}), 1)`
      // Made only if absent: a role may use a schema made for it without being allowed to make one.
      const [found] = yield* sql<{ readonly made: boolean; readonly home: string | null }>`SELECT
  to_regnamespace(quote_ident(${schema})) IS NOT NULL AS made, (SELECT nspname FROM pg_class JOIN pg_namespace n
  ON n.oid = relnamespace WHERE pg_class.oid = to_regclass(${migrationsTable})) AS home`
      const home = found?.home ?? schema
      // A mirror found through the search_path moves in only if the release before schemas made it.
      const [last] = home === schema || schema !== defaultSchema ? [] : yield* sql<{ readonly id: number | null }>`
SELECT max(migration_id) AS id FROM ${sql(qualified(home, migrationsTable))}`
      if (found?.made !== true) yield* sql`CREATE SCHEMA ${sql(schema)}`
      for (const table of last !== undefined && takesEarlier(schema, last.id) ? earlierTables : []) {
        yield* sql`ALTER TABLE IF EXISTS ${sql(qualified(home, table))} SET SCHEMA ${sql(schema)}`
      }
      // The migrator looks for its table by a statement that, failing, would abort the transaction.
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(qualified(schema, migrationsTable))} (
  migration_id integer primary key, created_at timestamp with time zone not null default now(), name text not null
)`
    })
    // A libSQL transaction that cannot begin never gives its client back (every later statement would
    // wait for ever): the write lock is waited for first.
    const free = sql.onDialectOrElse({
      sqlite: () => renewing(sql, Effect.zipRight(sql`BEGIN IMMEDIATE`, sql`ROLLBACK`)),
      orElse: () => Effect.void
    })
    const creating = "creating the mirror's tables"
    return Effect.zipRight(free, sql.withTransaction(Effect.zipRight(prepare, migrate))).pipe(
      Effect.mapError(databaseError(creating)),
      sqlFailures(creating)
    )
  })

const running = new MirrorDatabaseError({ detail: "another sync into this mirror is running", locked: true })

/**
 * The sync lock for a run's scope, or `locked` at once: on PostgreSQL the schema's advisory lock, on a
 * reserved connection; on a SQLite file an exclusive lock on `FILE-lock` (none in memory or on a server).
 */
const syncLock = (
  sql: SqlClient.SqlClient,
  schema: string | undefined
): Effect.Effect<void, MirrorDatabaseError, Scope.Scope> =>
  sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function*() {
        const connection = yield* sql.reserve
        const held = yield* connection.executeValues("SELECT pg_try_advisory_lock(hashtext($1), 2)", [schema])
        if (held[0]?.[0] !== true) return yield* running
        yield* Effect.addFinalizer(() =>
          Effect.ignore(connection.executeValues("SELECT pg_advisory_unlock(hashtext($1), 2)", [schema]))
        )
      }).pipe(Effect.catchTag("SqlError", databaseError("locking the mirror"))),
    sqlite: () =>
      Effect.gen(function*() {
        const [main] = yield* Effect.orElseSucceed(sql<{ readonly file: string }>`PRAGMA database_list`, () => [])
        const driver = yield* Effect.option(Effect.tryPromise(() => import("@effect/sql-libsql")))
        if (main === undefined || main.file === "" || Option.isNone(driver)) return
        yield* driver.value.LibsqlClient.make({ url: pathToFileURL(`${main.file}-lock`).href }).pipe(
          // Closing the connection would wait for the collector to finalize its statements: rolled back now.
          Effect.tap((lock) => Effect.addFinalizer(() => Effect.ignore(lock`ROLLBACK`))),
          Effect.flatMap((lock) => lock`BEGIN EXCLUSIVE`),
          Effect.provide(Reactivity.layer),
          // the driver throws if it cannot open the file
          Effect.catchAllDefect((cause) => Effect.fail(new SqlError({ cause, message: "cannot open" }))),
          Effect.mapError((e) => isLocked(e) ? running : databaseError(`locking the mirror with ${main.file}-lock`)(e))
        )
      }),
    orElse: () => Effect.void
  })

/** Runs a sync under the sync lock, its SQL failures failures. */
export const exclusively = (schema: string | undefined) =>
  Effect.map(
    SqlClient.SqlClient,
    (sql) => <A, E, R>(run: Effect.Effect<A, E, R>) =>
      Effect.scoped(Effect.zipRight(syncLock(sql, schema), sqlFailures("writing designs")(run)))
  )
