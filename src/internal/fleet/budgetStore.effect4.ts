/** The rate budget's limiter in Effect 4: Effect's own, over its memory store, and in a fleet its Redis store. */
import { Effect, Layer, Queue } from "effect"
import { RateLimiter, Redis } from "effect/persistence"
import type { Service as FleetRedis } from "../../FleetRedis.js"

/** The limiter slots are taken from. */
export type Limiter = RateLimiter.RateLimiter
type Store = RateLimiter.RateLimiterStore["Service"]

/** Not offered over the fleet's connection: Effect's limiter neither subscribes nor reserves. */
const notOffered = new Redis.RedisError({ cause: "not offered over the fleet's connection" })

/**
 * Effect's `Redis` over the fleet's gated command: what its limiter's store sends (`EVAL`), each
 * command failing, as ours do, when Redis is slow or away. Replies are the scripts' own.
 */
const redisOver = (redis: FleetRedis): Redis.Redis["Service"] => {
  const send = <A>(name: string, ...args: ReadonlyArray<string>) =>
    Effect.mapError(redis.command(name, ...args), (cause) => new Redis.RedisError({ cause })) as Effect.Effect<
      A,
      Redis.RedisError
    >
  return Redis.Redis.of({
    send,
    eval: (script) => (...params) =>
      send("EVAL", script.lua, String(script.numberOfKeys(...params)), ...script.params(...params).map(String)),
    subscribe: () =>
      Effect.tap(Queue.unbounded<Redis.RedisMessage, Redis.RedisError>(), (q) => Queue.fail(q, notOffered)),
    reserve: Effect.fail(notOffered)
  })
}

/**
 * The limiter's store: Effect's memory store, and with `redis` its Redis store for the fixed window,
 * falling back to the memory store while Redis is away. Each build holds its own memory.
 */
const storeOver = (redis: FleetRedis | undefined): Effect.Effect<Store> =>
  Effect.flatMap(
    Effect.provide(RateLimiter.RateLimiterStore, Layer.fresh(RateLimiter.layerStoreMemory)),
    (local) =>
      redis === undefined ? Effect.succeed(local) : Effect.map(
        // keys are the fleet's whole keys (`keyOf`): no prefix of the store's own
        Effect.provideService(RateLimiter.makeStoreRedis({ prefix: "" }), Redis.Redis, redisOver(redis)),
        (shared) => ({ ...local, fixedWindow: (o) => Effect.catch(shared.fixedWindow(o), () => local.fixedWindow(o)) })
      )
  )

/** The limiter, over Redis if given, else over a store of this process. */
export const limiterOver = (redis: FleetRedis | undefined): Effect.Effect<Limiter> =>
  Effect.flatMap(
    storeOver(redis),
    (store) => Effect.provideService(RateLimiter.make, RateLimiter.RateLimiterStore, store)
  )
