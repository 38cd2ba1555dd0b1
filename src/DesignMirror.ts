/**
 * A mirror of the register in SQL: `sync(criteria)` keeps a table `designs` current with every
 * design matching the criteria, at the lowest cost in requests. The first run fetches them all (a
 * page of 100 a request where the paged search is allowed, else a search and a get each); later
 * runs ask only for designs changed since the day the last complete run started
 * (`changedSinceDate`, the service's only way to follow changes), plus one search that lists the
 * designs still matching. Written against `@effect/sql`'s `SqlClient`: SQLite through
 * `@effect/sql-libsql` (`layerSqlite`) and PostgreSQL through `@effect/sql-pg` (`layerPostgres`),
 * each driver loaded only when its layer is built. `@effect/sql` (with `@effect/experimental`) is an
 * optional peer dependency, needed only here: import this module by its own path
 * (`effect-design-search/DesignMirror`); the package's index does not load it. See docs/mirror.md.
 *
 * @since 0.3.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Context, Layer } from "effect"
import type { Effect, Option } from "effect"
import type { DesignSearchClient } from "./DesignSearchClient.js"
import * as Engines from "./internal/mirror/engines.js"
import type { PostgresOptions, SqliteOptions } from "./internal/mirror/engines.js"
import type {
  Criteria,
  MirrorDatabaseError,
  SqlDriverMissingError,
  SyncError,
  SyncOptions,
  SyncReport,
  SyncState
} from "./internal/mirror/model.js"
import * as Sync from "./internal/mirror/sync.js"

export { criteriaKey, recordOf } from "./internal/mirror/criteria.js"
export type { PostgresOptions, SqliteOptions } from "./internal/mirror/engines.js"
export { IncompleteSyncError, MirrorDatabaseError, SqlDriverMissingError } from "./internal/mirror/model.js"
export type { Criteria, DesignState, SyncError, SyncOptions, SyncReport, SyncState } from "./internal/mirror/model.js"

/**
 * The mirror's operations.
 *
 * @since 0.3.0
 * @category models
 */
export interface Service {
  /**
   * Brings the rows of `criteria` up to date (see the module's doc) and reports what it did. Rows
   * are committed a transaction of at most `batchSize` designs at a time, with the run's progress;
   * the watermark moves only once every row is committed, so a run that fails or is interrupted
   * loses nothing, and the next one goes on from where it stopped; a run that got fewer designs
   * than it was told of keeps the watermark and fails with `IncompleteSyncError`. Criteria and
   * options are checked first (a client `ValidationError`). Fails with `SyncError`.
   */
  readonly sync: (criteria: Criteria, options?: SyncOptions) => Effect.Effect<SyncReport, SyncError>
  /** The stored sync state of `criteria`, if it was ever synced. Fails with `MirrorDatabaseError`. */
  readonly state: (criteria: Criteria) => Effect.Effect<Option.Option<SyncState>, MirrorDatabaseError>
}

/**
 * The mirror: provide it with `layer`, over a `SqlClient` (`layerSqlite`, `layerPostgres`, or the
 * application's own) and a `DesignSearchClient`.
 *
 * @since 0.3.0
 * @category tags
 */
export class DesignMirror extends Context.Tag("effect-design-search/DesignMirror")<DesignMirror, Service>() {}

/**
 * Options of `make` and `layer`.
 *
 * @since 0.3.0
 * @category options
 */
export interface Options {
  /** Designs per transaction, 1 to 1,000 (default 100, a page): a stopped run loses at most these. */
  readonly batchSize?: number | undefined
}

/**
 * Builds the mirror over the ambient `SqlClient` and `DesignSearchClient`, creating or migrating its
 * tables first. Fails with `MirrorDatabaseError` if they cannot be, or for a `batchSize` out of range.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> =>
  Sync.make(options.batchSize ?? 100)

/**
 * The mirror over the ambient `SqlClient` and `DesignSearchClient`; building it creates or migrates
 * the tables.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<DesignMirror, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> =>
  Layer.effect(DesignMirror, make(options))

/**
 * A `SqlClient` on SQLite through `@effect/sql-libsql`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` for a URL that is
 * not libSQL's or a database that cannot be opened or reached.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerSqlite = (
  options: SqliteOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> => Engines.sqlite(options)

/**
 * A `SqlClient` on PostgreSQL through `@effect/sql-pg`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` if the server
 * cannot be reached or refuses the connection.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerPostgres = (
  options: PostgresOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> => Engines.postgres(options)
