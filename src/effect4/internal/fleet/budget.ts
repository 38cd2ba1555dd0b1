/**
 * The body of `RequestBudget`. Slots come from Effect's `RateLimiter`: a fixed window of one call an
 * interval, waiting, is a generic cell rate algorithm, and the burst its tolerance. In a fleet its
 * store is Effect's Redis store over our connection, and its memory store while Redis is away.
 * Ours: a 429's back-off, which Effect's limiter learns only through its HTTP client's retries.
 */
import { Clock, Duration, Effect, Layer, Queue } from "effect"
import { RateLimiter, Redis } from "effect/persistence"
import { extendBackOff, keyNames } from "../../../core/redis.js"
import type { ClientIdentity, Service as FleetRedis } from "../../FleetRedis.js"
import { toldWait } from "../waits.js"
import type { Pace } from "./options.js"

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

/**
 * One client's budget: a back-off waited out (in Redis if `shared`, in this process while it is
 * away), then a slot if the budget paces.
 */
const clientBudget = (
  pace: Pace,
  slot: Effect.Effect<Duration.Duration>,
  shared?: { readonly redis: FleetRedis; readonly key: string }
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
        ? Effect.andThen(toldWait("the service asked to slow down", Duration.millis(millis)), reserve)
        : slot
  )
  const backOff = (duration: Duration.Duration): Effect.Effect<void> => {
    const millis = Math.ceil(Math.min(Duration.toMillis(duration), pace.maxBackOffMillis))
    return millis <= 0 ? Effect.void : Effect.andThen(
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
export const budgets = (pace: Pace, redis?: FleetRedis) =>
  Effect.map(
    pace.intervalMillis === 0
      ? Effect.succeed((_: string) => Effect.succeed(Duration.zero))
      : Effect.map(
        Effect.flatMap(storeOver(redis), (store) =>
          Effect.provideService(RateLimiter.make, RateLimiter.RateLimiterStore, store)),
        (limiter) => (key: string) =>
          slotOf(limiter, key, pace)
      ),
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
