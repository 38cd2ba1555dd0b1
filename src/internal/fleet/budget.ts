/**
 * The body of `RequestBudget`. Slots come from the edition's `RateLimiter` (`budgetStore`): a fixed
 * window of one call an interval, waiting, is a generic cell rate algorithm, and the burst its
 * tolerance. Ours: a 429's back-off, in Redis in a fleet, and in this process while Redis is away.
 */
import { type Limiter, limiterOver } from "#edition/internal/fleet/budgetStore"
import { Clock, Duration, Effect } from "effect"
import { extendBackOff, keyNames } from "../../core/fleet/redis.js"
import type { ClientIdentity, Service as Redis } from "../../FleetRedis.js"
import { toldWait } from "../waits.js"
import type { Pace } from "./options.js"

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
const slotOf = (limiter: Limiter, key: string, pace: Pace): Effect.Effect<Duration.Duration> =>
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
