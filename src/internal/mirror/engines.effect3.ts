/**
 * The mirror's engines, Effect 3's side: `@effect/sql`'s modules, and the sync lock of a SQLite file
 * through `@effect/sql-libsql`, which only this edition has. `engines.effect4.ts` has the same exports.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { Scope } from "effect"
import { pathToFileURL } from "node:url"
import { anotherSync, databaseError, isLocked } from "./model.js"
import type { MirrorDatabaseError } from "./model.js"

export { Migrator, Reactivity, SqlClient }

/** Whether `u` is a failure of the SQL client. */
export const isSqlError = (u: unknown): u is SqlError => u instanceof SqlError

/** The schema of the tables on a client not PostgreSQL's (SQLite): none. */
export const otherEngine: Effect.Effect<undefined, MirrorDatabaseError> = Effect.succeed(undefined)

/** A SQLite file's sync lock for the run's scope, or `locked` at once: an exclusive lock on `FILE-lock`. */
export const fileLock = (sql: SqlClient.SqlClient): Effect.Effect<void, MirrorDatabaseError, Scope.Scope> =>
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
      Effect.mapError((e) => isLocked(e) ? anotherSync : databaseError(`locking the mirror with ${main.file}-lock`)(e))
    )
  })
