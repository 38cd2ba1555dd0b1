/**
 * Saved watches over the mirror, in its database: criteria as `DesignMirror.sync` takes them and/or design numbers,
 * an expiry horizon, a note. `run` syncs each distinct criteria once and tells each watch's events since its own
 * cursor, each once; the first run is a baseline. `report` reads them again for any range. See docs/watch.md.
 * @since 0.5.0
 */
import type { SqlClient } from "#edition/internal/mirror/engines"
import { Service as Tag } from "#edition/internal/seam"
import { Effect, Layer } from "effect"
import type { ValidationError } from "./ApiError.js"
import { DesignMirror } from "./DesignMirror.js"
import type { MirrorDatabaseError, SyncError } from "./DesignMirror.js"
import { schemaOf } from "./internal/mirror/sharing.js"
import type { ReportRange, RunReport, Watch, WatchEvent } from "./internal/watch/model.js"
import type { WatchInput, WatchNotFoundError } from "./internal/watch/model.js"
import * as Internal from "./internal/watch/watch.js"

export { WatchNotFoundError } from "./internal/watch/model.js"
export type { EventKind, ReportRange, RunReport, Watch } from "./internal/watch/model.js"
export type { WatchEvent, WatchInput, WatchRun } from "./internal/watch/model.js"

/**
 * The watches' operations.
 * @since 0.5.0
 * @category models
 */
export interface Service {
  /** Stores a new watch; fails with a client `ValidationError` (a bad watch, a name taken) or `MirrorDatabaseError`. */
  readonly add: (watch: WatchInput) => Effect.Effect<Watch, ValidationError | MirrorDatabaseError>
  /** The stored watches, by name; fails with `MirrorDatabaseError`. */
  readonly list: Effect.Effect<ReadonlyArray<Watch>, MirrorDatabaseError>
  /** Removes a watch and its events; fails with `WatchNotFoundError` or `MirrorDatabaseError`. */
  readonly remove: (name: string) => Effect.Effect<void, WatchNotFoundError | MirrorDatabaseError>
  /**
   * Runs the watches named (default all): a sync per distinct criteria, then each watch's events since its cursor,
   * written with it in one transaction (a stopped run loses and repeats nothing); fails with `WatchNotFoundError`
   * or a sync's `SyncError`.
   */
  readonly run: (names?: ReadonlyArray<string>) => Effect.Effect<RunReport, WatchNotFoundError | SyncError>
  /**
   * A watch's events, oldest first, at or after `since` and before `until`, with no request; fails with
   * `WatchNotFoundError`, a client `ValidationError` (a bound not a `DateTime`) or `MirrorDatabaseError`.
   */
  readonly report: (name: string, range?: ReportRange) => Effect.Effect<
    ReadonlyArray<WatchEvent>,
    WatchNotFoundError | ValidationError | MirrorDatabaseError
  >
}

/**
 * The watches: provide them with `layer`, over the `DesignMirror` and its `SqlClient`.
 * @since 0.5.0
 * @category tags
 */
export class DesignWatch extends Tag<DesignWatch, Service>()("effect-design-search/DesignWatch") {}

/**
 * Builds the watches over the ambient `DesignMirror` and `SqlClient` (on PostgreSQL in the mirror's `schema`, as
 * `DesignMirror.layer` was given it), creating or migrating their tables first, in one transaction; fails with
 * `MirrorDatabaseError` if they cannot be.
 * @since 0.5.0
 * @category constructors
 */
export const make = (
  options: { readonly schema?: string | undefined } = {}
): Effect.Effect<Service, MirrorDatabaseError, SqlClient.SqlClient | DesignMirror> =>
  Effect.flatMap(schemaOf(options?.schema), (schema) => Effect.flatMap(DesignMirror, (m) => Internal.make(m, schema)))

/**
 * The watches as a layer (see `make`).
 * @since 0.5.0
 * @category layers
 */
export const layer = (
  options: Parameters<typeof make>[0] = {}
): Layer.Layer<DesignWatch, MirrorDatabaseError, SqlClient.SqlClient | DesignMirror> =>
  Layer.effect(DesignWatch, make(options))
