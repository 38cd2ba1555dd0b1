/**
 * Saved watches over the mirror: a watch is criteria as `DesignMirror.sync` takes them and/or a
 * portfolio of design numbers, an expiry horizon and a note, stored in the mirror's database in
 * tables of its own. `run` syncs each distinct criteria once, then derives each watch's events from
 * the mirror's history since the watch's own cursor, so that each event is reported once per watch,
 * however often it runs; the first run is a baseline. `report` reads the events of any range again.
 * Import this module by its own path, as `DesignMirror`. See docs/watch.md.
 *
 * @since 0.5.0
 */
import type { SqlClient } from "#edition/internal/mirror/engines"
import { Service as Tag } from "#edition/internal/seam"
import { Effect, Layer } from "effect"
import type { ValidationError } from "./ApiError.js"
import { DesignMirror } from "./DesignMirror.js"
import type { MirrorDatabaseError } from "./DesignMirror.js"
import type { SyncError } from "./internal/mirror/model.js"
import { schemaOf } from "./internal/mirror/sharing.js"
import type {
  ReportRange,
  RunReport,
  Watch,
  WatchEvent,
  WatchInput,
  WatchNotFoundError
} from "./internal/watch/model.js"
import * as Internal from "./internal/watch/watch.js"

export { WatchNotFoundError } from "./internal/watch/model.js"
export type {
  EventKind,
  ReportRange,
  RunReport,
  Watch,
  WatchEvent,
  WatchInput,
  WatchRun
} from "./internal/watch/model.js"

/**
 * The watches' operations.
 *
 * @since 0.5.0
 * @category models
 */
export interface Service {
  /** Stores a new watch; a client `ValidationError` for a bad one or a name taken, or `MirrorDatabaseError`. */
  readonly add: (watch: WatchInput) => Effect.Effect<Watch, ValidationError | MirrorDatabaseError>
  /** The stored watches, by name; fails with `MirrorDatabaseError`. */
  readonly list: Effect.Effect<ReadonlyArray<Watch>, MirrorDatabaseError>
  /** Removes a watch with its events; fails with `WatchNotFoundError` or `MirrorDatabaseError`. */
  readonly remove: (name: string) => Effect.Effect<void, WatchNotFoundError | MirrorDatabaseError>
  /**
   * Runs the watches named (default: all): one sync per distinct criteria, then each watch's events
   * since its cursor, each reported once. A stopped run loses nothing: a watch's events and cursor
   * are written together. Fails with `WatchNotFoundError` or a sync's `SyncError`.
   */
  readonly run: (names?: ReadonlyArray<string>) => Effect.Effect<RunReport, WatchNotFoundError | SyncError>
  /**
   * The events a watch's runs reported, oldest first, at or after `since` and before `until`;
   * makes no request. Fails with `WatchNotFoundError`, a client `ValidationError`, `MirrorDatabaseError`.
   */
  readonly report: (
    name: string,
    range?: ReportRange
  ) => Effect.Effect<ReadonlyArray<WatchEvent>, WatchNotFoundError | ValidationError | MirrorDatabaseError>
}

/**
 * The watches: provide them with `layer`, over the `DesignMirror` and its `SqlClient`.
 *
 * @since 0.5.0
 * @category tags
 */
export class DesignWatch extends Tag<DesignWatch, Service>()("effect-design-search/DesignWatch") {}

/**
 * Options of `make` and `layer`.
 *
 * @since 0.5.0
 * @category options
 */
export interface Options {
  /** On PostgreSQL, the mirror's schema, as `DesignMirror.layer` was given it (default `design_search`). */
  readonly schema?: string | undefined
}

/**
 * Builds the watches over the ambient `DesignMirror` and `SqlClient`, creating or migrating their
 * tables first, in one transaction. Fails with `MirrorDatabaseError` if they cannot be.
 *
 * @since 0.5.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, MirrorDatabaseError, SqlClient.SqlClient | DesignMirror> =>
  Effect.gen(function*() {
    const schema = yield* schemaOf(options?.schema)
    return yield* Internal.make(yield* DesignMirror, schema)
  })

/**
 * The watches over the ambient `DesignMirror` and `SqlClient`; building it creates or migrates their tables.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<DesignWatch, MirrorDatabaseError, SqlClient.SqlClient | DesignMirror> =>
  Layer.effect(DesignWatch, make(options))
