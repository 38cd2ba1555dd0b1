/**
 * The body of `RequestBudget`. Slots come from `@effect/experimental`'s `RateLimiter`: a fixed window
 * of one call an interval, waiting, is a generic cell rate algorithm, and the burst its tolerance.
 * In a fleet its store is Redis, and this process's while Redis is away. Ours: a 429's back-off.
 */
import type * as RateLimiter from "@effect/experimental/RateLimiter"
import { Clock, Duration, Effect, Schema } from "effect"
import type { ConfigError } from "effect"
import { extendBackOff, keyNames } from "../../core/redis.js"
import type { ClientIdentity, Service as Redis } from "../../FleetRedis.js"
import * as OptionalPeer from "../optionalPeer.js"
import { toldWait } from "../waits.js"
import type { Pace } from "./options.js"

type Store = RateLimiter.RateLimiterStore["Type"]

const loadRateLimiter = OptionalPeer.load({
  packageName: "@effect/experimental",
  feature: "RequestBudget with requestsPerSecond",
  install: "npm install @effect/experimental@~0.61",
  load: () => import("@effect/experimental/RateLimiter")
})

/**
 * The library's fixed-window script (its Redis store sends it over a connection of its own), with
 * the expiry rounded up to a whole millisecond, as `PX` takes no fraction of one and an interval
 * may be one (3 a second). Only the waiting mode is asked for, which caps nothing.
 */
const fixedWindow = `local current = tonumber(redis.call("GET", KEYS[1]))
local pttl = current and math.max(redis.call("PTTL", KEYS[1]), 0) or 0
local count = (current or 0) + tonumber(ARGV[1])
local ttl = math.ceil(pttl + tonumber(ARGV[1]) * tonumber(ARGV[2]))
redis.call("SET", KEYS[1], count, "PX", ttl)
return { count, ttl }`

const decodeWindow = Schema.decodeUnknownOption(Schema.Tuple(Schema.Number, Schema.Number))

/** The limiter's store in Redis, on Redis's clock; `local` while Redis is away. */
const redisStore = (redis: Redis, local: Store): Store => ({
  fixedWindow: (o) =>
    redis.command("EVAL", fixedWindow, 1, o.key, o.tokens, Duration.toMillis(o.refillRate)).pipe(
      Effect.flatMap(decodeWindow),
      Effect.orElse(() => local.fixedWindow(o))
    ),
  tokenBucket: local.tokenBucket
})

/** The limiter, over Redis if given, else over a store of this process. */
const limiterOver = (redis: Redis | undefined): Effect.Effect<RateLimiter.RateLimiter, ConfigError.ConfigError> =>
  Effect.flatMap(loadRateLimiter, (RL) =>
    Effect.flatMap(
      Effect.provide(RL.RateLimiterStore, RL.layerStoreMemory),
      (local) => Effect.provideService(RL.make, RL.RateLimiterStore, redis ? redisStore(redis, local) : local)
    ))

/**
 * One client's budget: a back-off waited out (in Redis if `shared`, in this process while it is
 * away), then a slot if the budget paces.
 */
const clientBudget = (
  pace: Pace,
  slot: Effect.Effect<Duration.Duration>,
  shared?: { readonly redis: Redis; readonly key: string }
) => {
  let until = 0
  const heldHere = Effect.map(Clock.currentTimeMillis, (now) => Math.max(0, until - now))
  const held = shared === undefined ? heldHere : shared.redis.command("PTTL", shared.key).pipe(
    Effect.map((ttl) => typeof ttl === "number" && ttl > 0 ? ttl : 0),
    Effect.catchTag("FleetUnavailable", () => heldHere)
  )
  const reserve: Effect.Effect<Duration.Duration> = Effect.flatMap(
    held,
    (millis) =>
      millis > 0
        ? Effect.zipRight(toldWait("the service asked to slow down", Duration.millis(millis)), reserve)
        : slot
  )
  const backOff = (duration: Duration.Duration): Effect.Effect<void> => {
    const millis = Math.ceil(Math.min(Duration.toMillis(duration), pace.maxBackOffMillis))
    return millis <= 0 ? Effect.void : Effect.zipRight(
      Effect.map(Clock.currentTimeMillis, (now) => void (until = Math.max(until, now + millis))),
      shared === undefined
        ? Effect.void
        : Effect.ignore(shared.redis.command("EVAL", extendBackOff, 1, shared.key, millis))
    )
  }
  return { reserve, backOff }
}

/** A slot of `limiter` under `key`: the wait it answers, less the burst's tolerance. */
const slotOf = (limiter: RateLimiter.RateLimiter, key: string, pace: Pace): Effect.Effect<Duration.Duration> =>
  limiter.consume({
    key,
    algorithm: "fixed-window",
    onExceeded: "delay",
    window: Duration.millis(pace.intervalMillis),
    limit: 1
  }).pipe(
    Effect.map(({ delay }) => Duration.millis(Math.max(0, Duration.toMillis(delay) - pace.toleranceMillis))),
    // waiting, over these stores, the limiter never fails
    Effect.orElseSucceed(() => Duration.zero)
  )

/** The budgets of the clients, each made on first use; shared through `redis` if given. */
export const budgets = (pace: Pace, redis?: Redis) =>
  Effect.map(
    pace.intervalMillis === 0
      ? Effect.succeed((_: string) => Effect.succeed(Duration.zero))
      : Effect.map(limiterOver(redis), (limiter) => (key: string) => slotOf(limiter, key, pace)),
    (slotAt) => {
      const made = new Map<string, ReturnType<typeof clientBudget>>()
      const forClient = (client: ClientIdentity) => {
        const id = redis ? redis.key(client, keyNames.pace) : `${client.tokenUrl}\n${client.clientId}`
        let budget = made.get(id)
        if (budget === undefined) {
          budget = clientBudget(pace, slotAt(id), redis && { redis, key: redis.key(client, keyNames.backOff) })
          made.set(id, budget)
        }
        return budget
      }
      return { forClient }
    }
  )
