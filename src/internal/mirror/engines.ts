/**
 * The `SqlClient`s the mirror is tested on: SQLite through `@effect/sql-libsql` and PostgreSQL
 * through `@effect/sql-pg`, each driver imported when its layer is built (optional peers).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Either, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import { databaseError, MirrorDatabaseError, SqlDriverMissingError } from "./model.js"

/**
 * Options of `layerSqlite`.
 *
 * @since 0.3.0
 * @category options
 */
export interface SqliteOptions {
  /** `file:PATH` (the file is created when absent), `libsql://…`, `http(s)://…` or `ws(s)://…` for a libSQL server. */
  readonly url: string
  /** The libSQL server's token, if it wants one. */
  readonly authToken?: Redacted.Redacted | undefined
}

/**
 * Options of `layerPostgres`.
 *
 * @since 0.3.0
 * @category options
 */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`; redacted, as it may hold a password. */
  readonly url: Redacted.Redacted | string
  /** How long to wait for a connection (default 5 seconds). */
  readonly connectTimeoutMillis?: number | undefined
}

/** A driver, imported when first needed, or the error naming the package to install. */
const loadDriver = <A>(packageName: string, load: () => Promise<A>) =>
  Effect.tryPromise({ try: load, catch: () => new SqlDriverMissingError({ packageName }) })

/** A client that answers, so that an unreachable database fails the layer, not the first sync. */
const reachable = <E>(make: Effect.Effect<SqlClient.SqlClient, E, Reactivity.Reactivity | Scope.Scope>, what: string) =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.flatMap(
      make,
      (client) => Effect.as(Effect.mapError(client`SELECT 1`, databaseError(`connecting to ${what}`)), client)
    )
  ).pipe(Layer.provide(Reactivity.layer))

const libsqlSchemes = new Set(["file:", "libsql:", "http:", "https:", "ws:", "wss:"])

/** A `SqlClient` on SQLite, or libSQL by URL. */
export const sqlite = (options: SqliteOptions) =>
  reachable(
    Effect.gen(function*() {
      const scheme = Either.getOrUndefined(Either.try(() => new URL(options.url).protocol))
      if (scheme === undefined || !libsqlSchemes.has(scheme)) {
        return yield* new MirrorDatabaseError({
          detail: "a SQLite database is named by a file: URL, or libsql:, http(s): or ws(s): for a libSQL server"
        })
      }
      const { LibsqlClient } = yield* loadDriver("@effect/sql-libsql", () => import("@effect/sql-libsql"))
      return yield* LibsqlClient.make({
        url: options.url,
        ...(options.authToken === undefined ? {} : { authToken: options.authToken })
      }).pipe(
        // the driver opens a local file as it is made, and throws if it cannot
        Effect.catchAllDefect((cause) =>
          Effect.fail(databaseError("opening the SQLite database")({ message: "cannot open", cause }))
        )
      )
    }),
    "the SQLite database"
  )

/** A `SqlClient` on PostgreSQL. */
export const postgres = (options: PostgresOptions) =>
  reachable(
    Effect.gen(function*() {
      const { PgClient } = yield* loadDriver("@effect/sql-pg", () => import("@effect/sql-pg"))
      const connecting = databaseError("connecting to PostgreSQL")
      return yield* PgClient.make({
        url: Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url),
        connectTimeout: options.connectTimeoutMillis ?? 5000
      }).pipe(
        Effect.mapError(connecting),
        Effect.catchAllDefect((cause) => Effect.fail(connecting({ message: "bad connection URL", cause })))
      )
    }),
    "PostgreSQL"
  )
