/**
 * A mirror of the register in SQL: `sync(criteria)` keeps typed tables (`designs`, with its owners,
 * designers, classes and products) current with every design matching the criteria, at the lowest
 * cost in requests, and records each change it sees (`changes` reads them). The first run fetches
 * them all (a page of 100 a request where the paged search is allowed, else a search and a get
 * each); later runs ask only for designs changed since the day the last complete run started
 * (`changedSinceDate`, the service's only way to follow changes), plus one search that lists the
 * designs still matching; both editions make the same tables and rows. Written against `SqlClient`
 * (`@effect/sql`'s; `effect/sql`'s in Effect 4): SQLite through `@effect/sql-libsql` (`layerSqlite`,
 * Effect 3 only) and PostgreSQL through `@effect/sql-pg` (`layerPostgres`), each driver loaded only
 * when its layer is built. Import this module by its own path: the package's index does not load
 * it (`@effect/sql`, with `@effect/experimental`, is an optional peer dependency). See docs/mirror.md.
 * @since 0.3.0
 */
import type { SqlClient } from "#edition/internal/mirror/engines"
import { catchDefect, Service as Tag } from "#edition/internal/seam"
import { Effect, Layer, Redacted } from "effect"
import type { Option, Stream } from "effect"
import type { ValidationError } from "./ApiError.js"
import { postgresOptionsProblem } from "./core/mirror/mirror.js"
import type { DesignSearchClient } from "./DesignSearchClient.js"
import { databaseError, MirrorDatabaseError } from "./internal/mirror/model.js"
import type { Change, ChangesOptions, Criteria, SqlDriverMissingError, SyncError } from "./internal/mirror/model.js"
import type { SyncOptions, SyncReport, SyncState } from "./internal/mirror/model.js"
import { loadDriver, reachable } from "./internal/mirror/sharing.js"
import * as Sync from "./internal/mirror/sync.js"

export * from "#edition/internal/mirror/sqlite"

export { criteriaKey, recordOf } from "./internal/mirror/criteria.js"
export { IncompleteSyncError, MirrorDatabaseError, SqlDriverMissingError } from "./internal/mirror/model.js"
export type { Change, ChangeKind, ChangesOptions, Criteria, DesignState } from "./internal/mirror/model.js"
export type { SyncError, SyncOptions, SyncReport, SyncState } from "./internal/mirror/model.js"

/**
 * The mirror's operations.
 * @since 0.3.0
 * @category models
 */
export interface Service {
  /**
   * Brings the rows of `criteria` up to date (see the module's doc) and reports what it did. Rows
   * are committed at most `batchSize` designs at a time, with the run's progress; the watermark
   * moves only once every row is committed, so a run that fails or is interrupted loses nothing, and
   * the next one goes on from where it stopped; a run that got fewer designs than it was told of
   * keeps the watermark and fails with `IncompleteSyncError`. Criteria and options are checked first
   * (a client `ValidationError`). Fails with `SyncError`.
   */
  readonly sync: (criteria: Criteria, options?: SyncOptions) => Effect.Effect<SyncReport, SyncError>
  /**
   * The stored sync state of `criteria`, if it was ever synced. Criteria `sync` refuses are refused
   * alike (a client `ValidationError`); fails with `MirrorDatabaseError` too.
   */
  readonly state: (criteria: Criteria) => Effect.Effect<Option.Option<SyncState>, ValidationError | MirrorDatabaseError>
  /**
   * The changes syncs saw (`design_changes`), newest first, read a page at a time: see `changes`.
   * Options are checked first (a client `ValidationError`).
   */
  readonly changes: (options?: ChangesOptions) => Stream.Stream<Change, ValidationError | MirrorDatabaseError>
}

/**
 * `Service.changes` with nothing but a mirror's `SqlClient` (its PostgreSQL `schema` as in `Options`),
 * creating nothing: a database without `design_changes` fails `MirrorDatabaseError`, `not a mirror`.
 * @since 0.3.0
 * @category accessors
 */
export const changes = (
  options: ChangesOptions & Pick<Options, "schema"> = {}
): Stream.Stream<Change, ValidationError | MirrorDatabaseError, SqlClient.SqlClient> => Sync.changes(options)

/**
 * The mirror: provide it with `layer`, over a `SqlClient` (`layerSqlite` in Effect 3, `layerPostgres`,
 * or the application's own) and a `DesignSearchClient`.
 * @since 0.3.0
 * @category tags
 */
export class DesignMirror extends Tag<DesignMirror, Service>()("effect-design-search/DesignMirror") {}

/**
 * Options of `make` and `layer`.
 * @since 0.3.0
 * @category options
 */
export interface Options {
  /** Designs committed at once, 1 to 1,000 (default 100, a page): a stopped run loses at most these. */
  readonly batchSize?: number | undefined
  /**
   * On PostgreSQL, the schema of the mirror's tables (default `design_search`, made if absent), a
   * name of 1 to 63 bytes (PostgreSQL's limit); not on SQLite.
   */
  readonly schema?: string | undefined
}

/**
 * Builds the mirror over the ambient `SqlClient` and `DesignSearchClient`, creating or migrating its
 * tables first, in one transaction (a SQLite file is put in WAL mode). Fails with
 * `MirrorDatabaseError` if they cannot be (the engine's words name a table in the way), for a
 * `batchSize` out of range, or in Effect 4 for a client not PostgreSQL's. One sync runs at a time:
 * another, in any process, fails `MirrorDatabaseError` with `locked` (docs/mirror.md).
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> => Sync.make(options)

/**
 * The mirror over the ambient `SqlClient` and `DesignSearchClient`; building it creates or migrates
 * the tables.
 * @since 0.3.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<DesignMirror, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> =>
  Layer.effect(DesignMirror, make(options))

/**
 * Options of `layerPostgres`.
 * @since 0.3.0
 * @category options
 */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`; redacted, as it may hold a password. */
  readonly url: Redacted.Redacted | string
  /** How long to wait for a connection, in milliseconds (default 5000): more than 0, at most 2^31 - 1. */
  readonly connectTimeoutMillis?: number | undefined
}

/** `connectTimeoutMillis`, checked: one out of a timer's range would time every connection out at once. */
const connectTimeoutOf = (options: PostgresOptions) => {
  const problem = postgresOptionsProblem(options)
  return problem === undefined
    ? Effect.succeed(options.connectTimeoutMillis ?? 5000)
    : Effect.fail(new MirrorDatabaseError({ detail: problem }))
}

/**
 * A `SqlClient` on PostgreSQL through `@effect/sql-pg`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` if the server
 * cannot be reached or refuses the connection (in Effect 4, the detail says which).
 * @since 0.3.0
 * @category layers
 */
export const layerPostgres = (
  options: PostgresOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> =>
  reachable(
    Effect.gen(function*() {
      const connectTimeout = yield* connectTimeoutOf(options)
      const { PgClient } = yield* loadDriver("@effect/sql-pg", () => import("@effect/sql-pg"))
      const connecting = databaseError("connecting to PostgreSQL")
      return yield* PgClient.make({
        url: Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url),
        connectTimeout
      }).pipe(
        Effect.mapError(connecting),
        catchDefect((cause) => Effect.fail(connecting({ message: "bad connection URL", cause })))
      )
    }),
    "PostgreSQL"
  )
