/**
 * `RequestBudget`: how fast a client may call the API. Each call takes a slot first: with
 * `requestsPerSecond`, slots are spaced evenly (a generic cell rate algorithm, `burst` of them
 * at once at most); after a 429, no slot opens before its `Retry-After`. `layer` keeps the budget
 * in this process; `layerRedis` shares it, and the back-off, across a fleet through Redis, and
 * keeps it here while Redis is away. A `DesignSearchClient` uses the `RequestBudget` it finds in
 * its context; with none, calls are not paced.
 *
 * @since 0.2.0
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import type { ConfigError } from "effect"
import { FleetRedis } from "./FleetRedis.js"
import type { ClientIdentity } from "./FleetRedis.js"
import { budgetDefaults, checkPace } from "./internal/fleetOptions.js"
import type { Pace } from "./internal/fleetOptions.js"

/**
 * The budget of one client.
 *
 * @since 0.2.0
 * @category models
 */
export interface ClientBudget {
  /** Takes the next slot and says how long to wait for it (zero when it is open now). */
  readonly reserve: Effect.Effect<Duration.Duration>
  /** Opens no slot for `duration` from now: what a 429 asks. */
  readonly backOff: (duration: Duration.Duration) => Effect.Effect<void>
}

/**
 * The budgets of the clients of a process or a fleet.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The budget of one client id (one per token URL and client id, made on first use). Never fails. */
  readonly forClient: (client: ClientIdentity) => ClientBudget
}

/**
 * How fast calls may go: a `DesignSearchClient` paces its calls by the one in its context.
 *
 * @since 0.2.0
 * @category tags
 */
export class RequestBudget extends Context.Tag("effect-design-search/RequestBudget")<RequestBudget, Service>() {}

/**
 * Options of the budget, in this process or through Redis.
 *
 * @since 0.2.0
 * @category options
 */
export interface Options {
  /** Calls per second per client id; absent, calls are not paced and only a 429's back-off applies. */
  readonly requestsPerSecond?: number | undefined
  /** How many calls may start at once after a quiet spell (default 1: evenly spaced). */
  readonly burst?: number | undefined
  /**
   * The longest back-off a 429 imposes (default 60 s): a `Retry-After` of an hour, or a broken
   * one, holds every call of the fleet no longer than this.
   */
  readonly maxBackOff?: Duration.DurationInput | undefined
}

/**
 * Defaults of the options: evenly spaced slots, a back-off of at most a minute.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaults: typeof budgetDefaults = budgetDefaults

/**
 * Waits for the next slot of `budget`.
 *
 * @since 0.2.0
 * @category combinators
 */
export const take = (budget: ClientBudget): Effect.Effect<void> =>
  Effect.flatMap(budget.reserve, (wait) => Duration.isZero(wait) ? Effect.void : Effect.sleep(wait))

/** A back-off in whole milliseconds, at most `maxBackOffMillis`. */
const backOffMillis = (duration: Duration.Duration, { maxBackOffMillis }: Pace): number =>
  Math.ceil(Math.min(Duration.toMillis(duration), maxBackOffMillis))

/** One client's budget in this process. */
const local = (p: Pace): ClientBudget => {
  const { intervalMillis, toleranceMillis } = p
  // theoretical arrival time of the next slot, and the end of a back-off (epoch milliseconds)
  let arrival = 0
  let holdUntil = 0
  return {
    reserve: Effect.map(Clock.currentTimeMillis, (now) => {
      const start = Math.max(now, arrival - toleranceMillis, holdUntil)
      arrival = Math.max(arrival, start) + intervalMillis
      return Duration.millis(start - now)
    }),
    backOff: (duration) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        holdUntil = Math.max(holdUntil, now + backOffMillis(duration, p))
      })
  }
}

const perClient = (make: (client: ClientIdentity) => ClientBudget): Service => {
  const budgets = new Map<string, ClientBudget>()
  return {
    forClient: (client) => {
      const id = `${client.tokenUrl}\n${client.clientId}`
      let budget = budgets.get(id)
      if (budget === undefined) {
        budget = make(client)
        budgets.set(id, budget)
      }
      return budget
    }
  }
}

/**
 * The budget of this process alone.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, ConfigError.ConfigError> =>
  Effect.map(checkPace(options), (p) => perClient(() => local(p)))

/**
 * `make` as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<RequestBudget, ConfigError.ConfigError> =>
  Layer.effect(RequestBudget, make(options))

/**
 * The service's published cap: 600 requests a minute per client id ("Base Tier"), shared by every
 * API of the provider that the client id calls.
 *
 * @since 0.3.0
 * @category constants
 */
export const publishedRequestsPerMinute = 600

/**
 * A budget of this process at the published cap, slots evenly spaced (`publishedRequestsPerMinute`):
 * `Effect.provide(RequestBudget.layerPublishedCap)` paces a bulk job. Each build holds its own budget.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerPublishedCap: Layer.Layer<RequestBudget> = Layer.sync(RequestBudget, () => {
  const pace: Pace = {
    intervalMillis: 60_000 / publishedRequestsPerMinute,
    toleranceMillis: 0,
    maxBackOffMillis: Duration.toMillis(budgetDefaults.maxBackOff)
  }
  return perClient(() => local(pace))
})

/**
 * Takes a slot on Redis's clock: `KEYS[1]` holds the next arrival, `KEYS[2]` lives as long as a
 * back-off; `ARGV` are the interval and the burst tolerance in milliseconds. Answers the wait.
 */
const reserveScript = `
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local arrival = tonumber(redis.call("GET", KEYS[1]) or "0")
local interval = tonumber(ARGV[1])
local start = math.max(now, arrival - tonumber(ARGV[2]))
local hold = redis.call("PTTL", KEYS[2])
if hold > 0 then start = math.max(start, now + hold) end
if interval > 0 then
  local nextArrival = math.max(arrival, start) + interval
  redis.call("SET", KEYS[1], tostring(nextArrival), "PX", math.ceil(nextArrival - now) + 1000)
end
return math.ceil(start - now)
`

/** Extends the back-off `KEYS[1]` to `ARGV[1]` milliseconds unless it already lasts longer. */
const backOffScript = `
if redis.call("PTTL", KEYS[1]) < tonumber(ARGV[1]) then
  redis.call("SET", KEYS[1], "1", "PX", ARGV[1])
end
return 1
`

/**
 * The budget shared through `FleetRedis` by every process of the same client id. While Redis is
 * away, each process keeps to the whole budget on its own.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeRedis = (options: Options): Effect.Effect<Service, ConfigError.ConfigError, FleetRedis> =>
  Effect.flatMap(checkPace(options), (p) =>
    Effect.map(FleetRedis, (redis) =>
      perClient((client) => {
        const fallback = local(p)
        const arrivalKey = redis.key(client, "budget")
        const holdKey = redis.key(client, "backoff")
        const interval = String(p.intervalMillis)
        const tolerance = String(p.toleranceMillis)
        return {
          reserve: redis.command("EVAL", reserveScript, 2, arrivalKey, holdKey, interval, tolerance).pipe(
            Effect.map((wait) => Duration.millis(typeof wait === "number" && wait > 0 ? wait : 0)),
            Effect.catchTag("FleetUnavailable", () => fallback.reserve)
          ),
          backOff: (duration) => {
            const millis = backOffMillis(duration, p)
            return Effect.zipRight(
              fallback.backOff(duration),
              millis > 0 ? Effect.ignore(redis.command("EVAL", backOffScript, 1, holdKey, millis)) : Effect.void
            )
          }
        }
      })))

/**
 * `makeRedis` as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (options: Options): Layer.Layer<RequestBudget, ConfigError.ConfigError, FleetRedis> =>
  Layer.effect(RequestBudget, makeRedis(options))
