/**
 * `RequestBudget`: how fast a client may call the API. Each call takes a slot first, spaced evenly
 * by a `RateLimiter` (`@effect/experimental`'s; in Effect 4, Effect's own); after a 429, no slot
 * opens before its `Retry-After`. `layerRedis` shares the budget and the back-off across a fleet. A
 * `DesignSearchClient` uses the one in its context; with none, calls are not paced. See docs/fleet.md.
 * @since 0.2.0
 */
import { type ConfigErrorType, type DurationInput, Service as Tag } from "#edition/internal/seam"
import { Duration, Effect, Layer } from "effect"
import { FleetRedis } from "./FleetRedis.js"
import type { ClientIdentity } from "./FleetRedis.js"
import { budgets } from "./internal/fleet/budget.js"
import { budgetDefaults, checkPace } from "./internal/fleet/options.js"
import { toldWait } from "./internal/waits.js"

/**
 * The budget of one client.
 * @since 0.2.0
 * @category models
 */
export interface ClientBudget {
  /** Waits out a back-off in force, then takes the next slot and says how long to wait for it. */
  readonly reserve: Effect.Effect<Duration.Duration>
  /** Opens no slot for `duration` from now: what a 429 asks. */
  readonly backOff: (duration: Duration.Duration) => Effect.Effect<void>
}

/**
 * The budgets of the clients of a process or a fleet.
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The budget of one client id (one per token URL and client id, made on first use). Never fails. */
  readonly forClient: (client: ClientIdentity) => ClientBudget
}

/**
 * How fast calls may go: a `DesignSearchClient` paces its calls by the one in its context.
 * @since 0.2.0
 * @category tags
 */
export class RequestBudget extends Tag<RequestBudget, Service>()("effect-design-search/RequestBudget") {}

/**
 * Options of the budget, in this process or through Redis.
 * @since 0.2.0
 * @category options
 */
export interface Options {
  /** Calls per second per client id; absent, calls are not paced and only a 429's back-off applies. */
  readonly requestsPerSecond?: number | undefined
  /** How many calls may start at once after a quiet spell (default 1: evenly spaced). */
  readonly burst?: number | undefined
  /** The longest back-off a 429 imposes (default 60 s), whatever its `Retry-After` says. */
  readonly maxBackOff?: DurationInput | undefined
}

/**
 * Defaults of the options: evenly spaced slots, a back-off of at most a minute.
 * @since 0.2.0
 * @category constants
 */
export const defaults: typeof budgetDefaults = budgetDefaults

/**
 * Waits for the next slot of `budget`.
 * @since 0.2.0
 * @category combinators
 */
export const take = (budget: ClientBudget): Effect.Effect<void> =>
  Effect.flatMap(
    budget.reserve,
    (wait) => Duration.isZero(wait) ? Effect.void : toldWait("waiting for the rate budget", wait)
  )

/**
 * The budget of this process alone. Fails with `ConfigError` on bad options, or, in Effect 3 with
 * `requestsPerSecond`, when the optional package `@effect/experimental` is not installed.
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, ConfigErrorType> =>
  Effect.flatMap(checkPace(options), (pace) => budgets(pace))

/**
 * `make` as a layer.
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<RequestBudget, ConfigErrorType> =>
  Layer.effect(RequestBudget, make(options))

/**
 * The service's published cap: 600 requests a minute per client id ("Base Tier"), shared by every
 * API of the provider that the client id calls.
 * @since 0.3.0
 * @category constants
 */
export const publishedRequestsPerMinute = 600

/**
 * A budget of this process at the published cap, slots evenly spaced (`publishedRequestsPerMinute`):
 * `Effect.provide(RequestBudget.layerPublishedCap)` paces a bulk job. Each build holds its own budget
 * (in one run, Effect 4 builds a layer value once: `Layer.fresh` for another).
 * @since 0.3.0
 * @category layers
 */
export const layerPublishedCap: Layer.Layer<RequestBudget, ConfigErrorType> = layer({
  requestsPerSecond: publishedRequestsPerMinute / 60
})

/**
 * The budget shared through `FleetRedis` by every process of a client id, on Redis's clock. While
 * Redis is away, each process keeps to the whole budget on its own.
 * @since 0.2.0
 * @category constructors
 */
export const makeRedis = (options: Options): Effect.Effect<Service, ConfigErrorType, FleetRedis> =>
  Effect.flatMap(Effect.zip(checkPace(options), FleetRedis), ([pace, redis]) => budgets(pace, redis))

/**
 * `makeRedis` as a layer.
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (options: Options): Layer.Layer<RequestBudget, ConfigErrorType, FleetRedis> =>
  Layer.effect(RequestBudget, makeRedis(options))
