/**
 * The mirror's SQLite layer, which only the Effect 3 edition has (`DesignMirror` exports it):
 * `sqlite.effect4.ts` exports nothing.
 */
import type { SqlClient } from "#edition/internal/mirror/engines"
import { Effect, Predicate } from "effect"
import type { Layer, Redacted } from "effect"
import { databaseError } from "./model.js"
import type { MirrorDatabaseError, SqlDriverMissingError } from "./model.js"
import { loadDriver, reachable } from "./sharing.js"

/**
 * Options of `layerSqlite`.
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
  /**
   * Open a local file read-only (default false): a reader such as `changes` then reads a file, or a
   * folder, this process may not write, and writes nothing. In a folder it may not write, where
   * SQLite cannot make the index of the file's WAL, the file is read as it stands (`immutable`).
   */
  readonly readOnly?: boolean | undefined
}

/**
 * A local file's URL for SQLite itself, read-only: its own URI (`file:…?mode=ro`), which libSQL's
 * URL cannot carry, is the path of a `file:` URL.
 */
const readOnlyUrl = (url: string, immutable: boolean) =>
  `file:${encodeURIComponent(`${url.split("?")[0]}?mode=ro${immutable ? "&immutable=1" : ""}`)}`

/** What a defect of the driver says, where it has words. */
const said = (cause: unknown) => String(Predicate.hasProperty(cause, "message") ? cause.message : cause)

/**
 * A `SqlClient` on SQLite through `@effect/sql-libsql`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` for a URL that is
 * not libSQL's or a database that cannot be opened or reached. Not in the Effect 4 edition.
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
      const open = (url: string) =>
        LibsqlClient.make({ url, ...(options.authToken === undefined ? {} : { authToken: options.authToken }) }).pipe(
          // the driver checks the URL and opens a local file as it is made, and throws if it cannot
          Effect.catchAllDefect((cause) =>
            Effect.fail(opening(
              // SQLite's code 14 (SQLITE_CANTOPEN) is all the driver tells of a file it cannot open or make
              /: 14"\)$/.test(said(cause))
                ? { message: "cannot open the file: permission denied, or it or its folder is missing" }
                : { message: "cannot open", cause }
            ))
          )
        )
      if (!/^file:/i.test(options.url)) return yield* open(options.url)
      let url = options.url
      if (options.readOnly === true) {
        // A first read tells whether SQLite could make the index of the WAL: it says "readonly" if not.
        const indexed = yield* Effect.scoped(Effect.flatMap(
          open(readOnlyUrl(url, false)),
          (probe) =>
            Effect.catchAll(Effect.as(probe`SELECT count(*) FROM sqlite_master`, true), (e) =>
              Effect.succeed(!/readonly/i.test(said(e.cause))))
        ))
        url = readOnlyUrl(url, !indexed)
      }
      const client = yield* open(url)
      // The driver opens a connection after each transaction: the timeout, a connection's, is set again.
      const arm = Effect.ignore(client.unsafe(`PRAGMA busy_timeout = ${busy}`))
      yield* arm
      const { withTransaction } = client
      return Object.assign(client, {
        withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.ensuring(withTransaction(effect), arm)
      })
    }),
    "the SQLite database"
  )
