/** The rate budget's limiter in Effect 3: `@effect/experimental`'s, loaded when a paced budget is built. */
import type * as RateLimiter from "@effect/experimental/RateLimiter"
import { type ConfigError, Duration, Effect, Schema } from "effect"
import type { Service as Redis } from "../../FleetRedis.js"
import * as OptionalPeer from "../optionalPeer.js"

/** The limiter slots are taken from. */
export type Limiter = RateLimiter.RateLimiter
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

/** The limiter, over Redis if given, else over a store of this process; fails if the package is missing. */
export const limiterOver = (redis: Redis | undefined): Effect.Effect<Limiter, ConfigError.ConfigError> =>
  Effect.flatMap(loadRateLimiter, (RL) =>
    Effect.flatMap(
      Effect.provide(RL.RateLimiterStore, RL.layerStoreMemory),
      (local) => Effect.provideService(RL.make, RL.RateLimiterStore, redis ? redisStore(redis, local) : local)
    ))
