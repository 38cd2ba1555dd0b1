/**
 * How the mirror reaches and shares its database (docs/mirror.md): tables in a PostgreSQL schema of
 * their own, migrated in one transaction under a lock; a run at a time, under a lock the server or
 * the OS lets go of however the process ends; no SQL failure a defect.
 */
import { fileLock, isSqlError, Migrator, otherEngine, Reactivity, SqlClient } from "#edition/internal/mirror/engines"
import { catchDefect, layerScoped } from "#edition/internal/seam"
import { Effect, Layer, Schedule } from "effect"
import type { Scope } from "effect"
import { defaultSchema, earlierTables, migrationsTable, qualified } from "../../core/mirror/mirror.js"
import { schemaProblem, takesEarlier } from "../../core/mirror/mirror.js"
import { anotherSync, databaseError, isLocked, MirrorDatabaseError, SqlDriverMissingError } from "./model.js"

/**
 * The schema of the mirror's tables: on PostgreSQL the one named, or `design_search`; none elsewhere
 * (in Effect 4, a client of another engine is refused). A name PostgreSQL would refuse or cut is
 * refused on every engine, as an option out of range.
 */
export const schemaOf = (named: unknown) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const problem = schemaProblem(named)
    if (problem !== undefined) return Effect.fail(new MirrorDatabaseError({ detail: problem }))
    const schema = named as string | undefined
    return sql.onDialectOrElse({ pg: () => Effect.succeed(schema ?? defaultSchema), orElse: () => otherEngine })
  })

/** SQL failures that the client or the migrator raise as defects (a failed `COMMIT`, a failed migration), as failures. */
const sqlFailures = (doing: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  catchDefect(effect, (defect) =>
    isSqlError(defect) || defect instanceof Migrator.MigrationError
      ? Effect.fail(databaseError(doing)(defect))
      : Effect.die(defect))

/** The part of `@effect/sql-libsql`'s client used here: its `@libsql/client`, whose `transaction` takes its connection. */
type Libsql = { readonly sdk: { transaction(mode: "deferred"): Promise<{ close(): void }> } }

/** A statement that could not get a SQLite file's lock, its connection replaced (docs/mirror.md). */
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
 * `migrate` in one transaction, which leaves nothing behind if it fails; on PostgreSQL under an advisory
 * lock, the schema made, and a mirror of an earlier release (in the connection's schema) moved into it.
 */
export const migrateLocked = <E extends { readonly message: string }>(
  schema: string | undefined,
  migrate: Effect.Effect<unknown, E, SqlClient.SqlClient>,
  table = migrationsTable
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
      // Effect 3's migrator looks for its table by a statement that, failing, would abort the
      // transaction, and by its name unquoted: the table is made here, and found by the search path.
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(qualified(schema, table))} (
  migration_id integer primary key, created_at timestamp with time zone not null default now(), name text not null
)`
      yield* sql`SET LOCAL search_path TO ${sql(schema)}`
    })
    // A libSQL transaction that cannot begin never gives its client back: the write lock is waited for first.
    const free = sql.onDialectOrElse({
      sqlite: () => renewing(sql, Effect.andThen(sql`BEGIN IMMEDIATE`, sql`ROLLBACK`)),
      orElse: () => Effect.void
    })
    const creating = "creating the mirror's tables"
    return Effect.andThen(free, sql.withTransaction(Effect.andThen(prepare, migrate))).pipe(
      Effect.mapError(databaseError(creating)),
      sqlFailures(creating)
    )
  })

/** The sync lock for a run's scope, or `locked` at once: the schema's advisory lock on PostgreSQL, or `fileLock`. */
const syncLock = (
  sql: SqlClient.SqlClient,
  schema: string | undefined
): Effect.Effect<void, MirrorDatabaseError, Scope.Scope> =>
  sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function*() {
        const connection = yield* sql.reserve
        const held = yield* connection.executeValues("SELECT pg_try_advisory_lock(hashtext($1), 2)", [schema])
        if (held[0]?.[0] !== true) return yield* anotherSync
        yield* Effect.addFinalizer(() =>
          Effect.ignore(connection.executeValues("SELECT pg_advisory_unlock(hashtext($1), 2)", [schema]))
        )
      }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(databaseError("locking the mirror")(e)))),
    sqlite: () => fileLock(sql),
    orElse: () => Effect.void
  })

/** Runs a sync under the sync lock, its SQL failures failures. */
export const exclusively = (schema: string | undefined) =>
  Effect.map(
    SqlClient.SqlClient,
    (sql) => <A, E, R>(run: Effect.Effect<A, E, R>) =>
      Effect.scoped(Effect.andThen(syncLock(sql, schema), sqlFailures("writing designs")(run)))
  )

/** A driver, imported when first needed, or the error naming the package to install. */
export const loadDriver = <A>(packageName: string, load: () => Promise<A>) =>
  Effect.tryPromise({ try: load, catch: () => new SqlDriverMissingError({ packageName }) })

/** A client that answers, so that an unreachable database fails the layer, not the first sync. */
export const reachable = <E>(
  make: Effect.Effect<SqlClient.SqlClient, E, Reactivity.Reactivity | Scope.Scope>,
  what: string
) => {
  const answering = Effect.tap(make, (sql) => Effect.mapError(sql`SELECT 1`, databaseError(`connecting to ${what}`)))
  return Layer.provide(layerScoped(SqlClient.SqlClient, answering), Reactivity.layer)
}
