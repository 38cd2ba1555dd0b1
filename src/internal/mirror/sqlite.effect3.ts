/**
 * The mirror's SQLite layer, which only the Effect 3 edition has (`DesignMirror` exports it):
 * `sqlite.effect4.ts` exports nothing.
 */
import type { SqlClient } from "#edition/internal/mirror/engines"
import { Effect } from "effect"
import type { Layer, Redacted } from "effect"
import { databaseError } from "./model.js"
import type { MirrorDatabaseError, SqlDriverMissingError } from "./model.js"
import { loadDriver, reachable } from "./sharing.js"

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
  /**
   * How long a statement on a local file waits for its lock while another process writes to it (a
   * mirror's file is in WAL mode: readers hold up no one), in milliseconds (default 5000); then
   * `MirrorDatabaseError`, `locked`. A value that is not a whole number of 0 or more fails the layer.
   */
  readonly busyTimeoutMillis?: number | undefined
}

/**
 * A `SqlClient` on SQLite through `@effect/sql-libsql`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` for a URL that is
 * not libSQL's or a database that cannot be opened or reached. Not in the Effect 4 edition.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerSqlite = (
  options: SqliteOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> =>
  reachable(
    Effect.gen(function*() {
      const opening = databaseError("opening the SQLite database")
      const busy = options.busyTimeoutMillis ?? 5000
      if (!Number.isSafeInteger(busy) || busy < 0) {
        return yield* opening({ message: `busyTimeoutMillis must be a whole number of milliseconds, got ${busy}` })
      }
      const { LibsqlClient } = yield* loadDriver("@effect/sql-libsql", () => import("@effect/sql-libsql"))
      const client = yield* LibsqlClient.make({
        url: options.url,
        ...(options.authToken === undefined ? {} : { authToken: options.authToken })
      }).pipe(
        // the driver checks the URL and opens a local file as it is made, and throws if it cannot
        Effect.catchAllDefect((cause) => Effect.fail(opening({ message: "cannot open", cause })))
      )
      if (!/^file:/i.test(options.url)) return client
      // The driver opens a connection after each transaction: the timeout, a connection's, is set again.
      const arm = Effect.ignore(client.unsafe(`PRAGMA busy_timeout = ${busy}`))
      yield* arm
      const { withTransaction } = client
      return Object.assign(client, {
        withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.ensuring(withTransaction(effect), arm)
      })
    }),
    "the SQLite database"
  )
