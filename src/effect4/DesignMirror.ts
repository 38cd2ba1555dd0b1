/**
 * A mirror of the register in PostgreSQL: `sync(criteria)` keeps typed tables (`designs`, with its
 * owners, designers, classes and products) current with every design matching the criteria, at the
 * lowest cost in requests, and records each change it sees (`changes` reads them). The same tables
 * and rows as the Effect 3 edition's PostgreSQL mirror: a database either edition wrote, the other
 * reads and syncs on. Written against `effect/sql`'s `SqlClient`: PostgreSQL through
 * `@effect/sql-pg` (`layerPostgres`, the driver loaded only when its layer is built), or the
 * application's own client. SQLite is not in this edition: no stable Effect 4 SQLite driver is
 * published. Import this module by its own path (`effect-design-search/effect4/DesignMirror`). See
 * docs/mirror.md.
 *
 * @since 0.4.0
 */
import { Context, Effect, Layer, Redacted } from "effect"
import type { Option, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { postgresOptionsProblem } from "../core/mirror.js"
import type { ValidationError } from "./ApiError.js"
import type { DesignSearchClient } from "./DesignSearchClient.js"
import { databaseError, MirrorDatabaseError, SqlDriverMissingError } from "./internal/mirror/model.js"
import type { Change, ChangesOptions, Criteria, SyncError } from "./internal/mirror/model.js"
import type { SyncOptions, SyncReport, SyncState } from "./internal/mirror/model.js"
import * as Sync from "./internal/mirror/sync.js"

export { criteriaKey, recordOf } from "./internal/mirror/criteria.js"
export { IncompleteSyncError, MirrorDatabaseError, SqlDriverMissingError } from "./internal/mirror/model.js"
export type { Change, ChangeKind, ChangesOptions, Criteria, DesignState } from "./internal/mirror/model.js"
export type { SyncError, SyncOptions, SyncReport, SyncState } from "./internal/mirror/model.js"

/**
 * The mirror's operations.
 *
 * @since 0.4.0
 * @category models
 */
export interface Service {
  /**
   * Brings the rows of `criteria` up to date (see the module's doc) and reports what it did. Rows
   * are committed at most `batchSize` designs at a time, with the run's progress; the watermark
   * moves only once every row is committed, so a run that fails or is interrupted loses nothing;
   * a run that got fewer designs than it was told of keeps the watermark and fails with
   * `IncompleteSyncError`. Criteria and options are checked first (a client `ValidationError`).
   */
  readonly sync: (criteria: Criteria, options?: SyncOptions) => Effect.Effect<SyncReport, SyncError>
  /**
   * The stored sync state of `criteria`, if it was ever synced. Criteria `sync` refuses are refused
   * alike (a client `ValidationError`); fails with `MirrorDatabaseError` too.
   */
  readonly state: (
    criteria: Criteria
  ) => Effect.Effect<Option.Option<SyncState>, ValidationError | MirrorDatabaseError>
  /**
   * The changes syncs saw (`design_changes`), newest first, read a page at a time: see `changes`.
   * Options are checked first (a client `ValidationError`).
   */
  readonly changes: (options?: ChangesOptions) => Stream.Stream<Change, ValidationError | MirrorDatabaseError>
}

/**
 * `Service.changes` with nothing but a mirror's `SqlClient` (its `schema` as in `Options`), creating
 * nothing: a database without `design_changes` fails `MirrorDatabaseError`, `not a mirror`.
 *
 * @since 0.4.0
 * @category accessors
 */
export const changes = (
  options: ChangesOptions & Pick<Options, "schema"> = {}
): Stream.Stream<Change, ValidationError | MirrorDatabaseError, SqlClient.SqlClient> => Sync.changes(options)

/**
 * The mirror: provide it with `layer`, over a `SqlClient` (`layerPostgres`, or the application's
 * own) and a `DesignSearchClient`.
 *
 * @since 0.4.0
 * @category tags
 */
export class DesignMirror extends Context.Service<DesignMirror, Service>()("effect-design-search/DesignMirror") {}

/**
 * Options of `make` and `layer`.
 *
 * @since 0.4.0
 * @category options
 */
export interface Options {
  /** Designs committed at once, 1 to 1,000 (default 100, a page): a stopped run loses at most these. */
  readonly batchSize?: number | undefined
  /**
   * The PostgreSQL schema of the mirror's tables (default `design_search`, made if absent), a name
   * of 1 to 63 bytes (PostgreSQL's limit).
   */
  readonly schema?: string | undefined
}

/**
 * Builds the mirror over the ambient `SqlClient` (PostgreSQL) and `DesignSearchClient`, creating or
 * migrating its tables first, in one transaction. Fails with `MirrorDatabaseError` if they cannot be
 * (the engine's words name a table in the way), for a client of another engine, or for a
 * `batchSize` out of range. One sync runs at a time: another, in any process, fails
 * `MirrorDatabaseError` with `locked`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> => Sync.make(options)

/**
 * The mirror over the ambient `SqlClient` and `DesignSearchClient`; building it creates or migrates
 * the tables.
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<DesignMirror, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> =>
  Layer.effect(DesignMirror, make(options))

/**
 * Options of `layerPostgres`.
 *
 * @since 0.4.0
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
 * A `SqlClient` on PostgreSQL through `@effect/sql-pg`'s `PgClient`, imported when the layer is
 * built. Fails with `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` if
 * the server cannot be reached or refuses the connection (the detail says which).
 *
 * @since 0.4.0
 * @category layers
 */
export const layerPostgres = (
  options: PostgresOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const connectTimeout = yield* connectTimeoutOf(options)
      const { PgClient } = yield* Effect.tryPromise({
        try: () => import("@effect/sql-pg"),
        catch: () => new SqlDriverMissingError({ packageName: "@effect/sql-pg" })
      })
      const connecting = databaseError("connecting to PostgreSQL")
      const client = yield* PgClient.make({
        url: Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url),
        connectTimeout
      }).pipe(
        Effect.mapError(connecting),
        Effect.catchDefect((cause) => Effect.fail(connecting({ message: "bad connection URL", cause })))
      )
      // A client that answers, so that an unreachable database fails the layer, not the first sync.
      yield* Effect.mapError(client`SELECT 1`, connecting)
      return client
    })
  ).pipe(Layer.provide(Reactivity.layer))
