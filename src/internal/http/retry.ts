/**
 * Which failures are worth another try, and how long to wait: the retry policy of read-only calls
 * and of token requests, both retried through `retryTransient`.
 */
import { waitAtLeast } from "#edition/internal/schedules"
import { scheduleBoth } from "#edition/internal/seam"
import { Duration, Effect, Exit, Schedule } from "effect"
import type { DesignSearchError } from "../../ApiError.js"

/** Whether a failure is worth another try of a read-only request. */
export const isTransient = (error: DesignSearchError): boolean =>
  error._tag === "TransportError" ||
  error._tag === "RateLimitError" ||
  (error._tag === "ServerError" && (error.status === 502 || error.status === 503 || error.status === 504))

/**
 * `effect` retried on `schedule` while it fails with what `transient` accepts: `schedule` sees no
 * other failure (`Effect.retry`'s `while` is asked only after the schedule has been stepped).
 */
export const retryTransient = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  transient: (error: E) => boolean,
  schedule: Schedule.Schedule<unknown, E>
): Effect.Effect<A, E, R> =>
  effect.pipe(
    Effect.map((a): Exit.Exit<A, E> => Exit.succeed(a)),
    Effect.catchIf((e) => !transient(e), (e) => Effect.succeed(Exit.fail(e))),
    Effect.retry(schedule),
    Effect.flatten
  )

/** `schedule`, waiting at least a 429's `Retry-After` (API or token endpoint), giving up past `cap`. */
export const honorRetryAfter = waitAtLeast((e: DesignSearchError) =>
  "retryAfter" in e && e.retryAfter !== undefined ? Duration.toMillis(e.retryAfter) : 0
)

/** How many times `defaultRetrySchedule` tries a request again. */
export const defaultRetries = 3

/** Jittered exponential backoff from 250 ms, three retries, a `Retry-After` honoured up to 30 seconds. */
export const defaultRetrySchedule: Schedule.Schedule<unknown, DesignSearchError> = honorRetryAfter(
  scheduleBoth(Schedule.exponential("250 millis").pipe(Schedule.jittered), Schedule.recurs(defaultRetries)),
  "30 seconds"
)

/** How long the budget holds calls back after a 429 that named no `Retry-After`. */
export const defaultBackOff: Duration.Duration = Duration.seconds(1)
