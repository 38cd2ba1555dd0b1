/**
 * `FleetRedis`: the Redis connection through which the processes of a fleet share one token and one
 * rate budget. Redis is an optimisation, never a dependency of a request: a command that fails or
 * is slower than `commandTimeout` is a `FleetUnavailable`, which every user of the connection
 * answers locally. See docs/fleet.md.
 * @since 0.2.0
 */
import { type ConfigErrorType, type DurationInput, layerScoped, Service as Tag } from "#edition/internal/seam"
import { Effect, Layer } from "effect"
import type { ClientIdentity, Connection, FleetUnavailable } from "./internal/fleet/connection.js"
import { connect, over } from "./internal/fleet/connection.js"
import { checkConnection, connectionDefaults } from "./internal/fleet/options.js"

/** Whose keys, the connection the fleet sends over, the failure of a command, and the keys. */
export { type ClientIdentity, type Connection, FleetUnavailable, keyOf } from "./internal/fleet/connection.js"

/**
 * The fleet's Redis connection, as the token store and the budget use it.
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** Sends one command (`command("GET", key)`); fails with `FleetUnavailable` if not answered in time. */
  readonly command: (name: string, ...args: Array<string | number>) => Effect.Effect<unknown, FleetUnavailable>
  /** `command`, sent even while Redis looks away: a paused Redis runs it when it resumes. Fails like `command`. */
  readonly urgent: (name: string, ...args: Array<string | number>) => Effect.Effect<unknown, FleetUnavailable>
  /** Waits until Redis may answer again (a late answer, a new connection of `layer`'s client). Never fails. */
  readonly reachable: Effect.Effect<void>
  /** `keyOf` under this connection's prefix. Never fails. */
  readonly key: (client: ClientIdentity, name: string) => string
}

/**
 * The Redis connection of a fleet: `layer` makes its own, `layerClient` wraps the caller's.
 * @since 0.2.0
 * @category tags
 */
export class FleetRedis extends Tag<FleetRedis, Service>()("effect-design-search/FleetRedis") {}

/**
 * Options of `make`, `layer` and `layerClient`.
 * @since 0.2.0
 * @category options
 */
export interface Options {
  /** Default `redis://127.0.0.1:6379`. May carry a password; it is never logged. */
  readonly url?: string | undefined
  /** Prefix of every key (default `design-search`). */
  readonly keyPrefix?: string | undefined
  /** Longest wait for one command before Redis counts as away (default 500 ms). */
  readonly commandTimeout?: DurationInput | undefined
  /** While Redis is away, how often one command is let through to see whether it is back (default 1 s). */
  readonly probeInterval?: DurationInput | undefined
  /** Longest wait for the first connection when the layer is built (default 2 s); it never fails. */
  readonly connectTimeout?: DurationInput | undefined
}

/**
 * Defaults of `Options`.
 * @since 0.2.0
 * @category constants
 */
export const defaults: typeof connectionDefaults = connectionDefaults

/**
 * The service over `redis`, a connection the caller owns (made with `enableOfflineQueue: false`).
 * @since 0.2.0
 * @category constructors
 */
export const make = (redis: Connection, options: Options = {}): Effect.Effect<Service, ConfigErrorType> =>
  Effect.map(checkConnection(options), (settings) => over(redis, settings))

/**
 * The service over its own `ioredis` connection, closed with the scope. Building it waits up to
 * `connectTimeout` for Redis and fails only on bad options, or with a `ConfigError` naming
 * `ioredis` when that optional package is not installed: a fleet whose Redis is down starts alone.
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<FleetRedis, ConfigErrorType> =>
  layerScoped(
    FleetRedis,
    Effect.flatMap(checkConnection(options), (settings) =>
      Effect.map(connect(settings), (own) => over(own.connection, settings, own.onReady)))
  )

/**
 * The service over a connection the caller owns (made with `enableOfflineQueue: false`).
 * @since 0.2.0
 * @category layers
 */
export const layerClient = (
  redis: Connection,
  options: Options = {}
): Layer.Layer<FleetRedis, ConfigErrorType> => Layer.effect(FleetRedis, make(redis, options))
