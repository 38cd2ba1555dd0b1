/**
 * The mirror's engines, Effect 4's side: `effect/sql`'s modules; PostgreSQL only, as no stable
 * Effect 4 SQLite driver is published. The same exports as `engines.effect3.ts`.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { SqlError } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { MirrorDatabaseError } from "./model.js"

export { Reactivity } from "effect/reactivity"
export { Migrator, SqlClient } from "effect/sql"

/** Whether `u` is a failure of the SQL client. */
export const isSqlError = SqlError.isSqlError

/** A client not PostgreSQL's, refused: this edition's mirror is on PostgreSQL only. */
export const otherEngine: Effect.Effect<undefined, MirrorDatabaseError> = Effect.fail(
  new MirrorDatabaseError({ detail: "the Effect 4 edition's mirror is on PostgreSQL only" })
)

/** The sync lock on a SQLite file: none, as there is no SQLite here. */
export const fileLock = (_sql: SqlClient.SqlClient): Effect.Effect<void, MirrorDatabaseError, Scope.Scope> =>
  Effect.void
