/**
 * How the mirror shares its PostgreSQL database (docs/mirror.md): tables in a schema of their own,
 * migrated in one transaction under an advisory lock; a run at a time, under an advisory lock the
 * server lets go of however the process ends; no SQL failure a defect.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { Migrator, SqlClient, SqlError } from "effect/sql"
import {
  defaultSchema,
  earlierTables,
  migrationsTable,
  qualified,
  schemaProblem,
  takesEarlier
} from "../../../core/mirror.js"
import { databaseError, MirrorDatabaseError } from "./model.js"

/** The ambient `SqlClient` if it is PostgreSQL's: the mirror's SQL is PostgreSQL's. */
export const postgres = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.onDialectOrElse({
    pg: () => Effect.succeed(sql),
    orElse: () =>
      Effect.fail(new MirrorDatabaseError({ detail: "the Effect 4 edition's mirror is on PostgreSQL only" }))
  }))

/** The schema of the mirror's tables: the one named, or `design_search`; a name PostgreSQL would refuse or cut, refused. */
export const schemaOf = (named: unknown): Effect.Effect<string, MirrorDatabaseError> => {
  const problem = schemaProblem(named)
  return problem === undefined
    ? Effect.succeed((named as string | undefined) ?? defaultSchema)
    : Effect.fail(new MirrorDatabaseError({ detail: problem }))
}

/** SQL failures the client raises as defects (a `ROLLBACK` on a lost connection), as failures. */
const sqlFailures = (doing: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchDefect(
    effect,
    (defect) =>
      SqlError.isSqlError(defect) || defect instanceof Migrator.MigrationError
        ? Effect.fail(databaseError(doing)(defect))
        : Effect.die(defect)
  )

/**
 * `migrate` in one transaction, under an advisory lock, so that first syncs at once do not create
 * the same tables: one that fails (a table in the way) leaves nothing behind. The schema is made,
 * and a mirror of an earlier release (in the connection's schema) moved into it.
 */
export const migrateLocked = <E extends { readonly message: string }>(
  schema: string,
  migrate: Effect.Effect<unknown, E, SqlClient.SqlClient>
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const prepare = Effect.gen(function*() {
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
    })
    const creating = "creating the mirror's tables"
    return sql.withTransaction(Effect.andThen(prepare, migrate)).pipe(
      Effect.mapError(databaseError(creating)),
      sqlFailures(creating)
    )
  })

const running = new MirrorDatabaseError({ detail: "another sync into this mirror is running", locked: true })

/** The sync lock for a run's scope, or `locked` at once: the schema's advisory lock, on a reserved connection. */
const syncLock = (sql: SqlClient.SqlClient, schema: string): Effect.Effect<void, MirrorDatabaseError, Scope.Scope> =>
  Effect.gen(function*() {
    const connection = yield* sql.reserve
    const held = yield* connection.executeValues("SELECT pg_try_advisory_lock(hashtext($1), 2)", [schema])
    if (held[0]?.[0] !== true) return yield* running
    yield* Effect.addFinalizer(() =>
      Effect.ignore(connection.executeValues("SELECT pg_advisory_unlock(hashtext($1), 2)", [schema]))
    )
  }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(databaseError("locking the mirror")(e))))

/** Runs a sync under the sync lock, its SQL failures failures. */
export const exclusively = (sql: SqlClient.SqlClient, schema: string) => <A, E, R>(run: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.andThen(syncLock(sql, schema), sqlFailures("writing designs")(run)))
