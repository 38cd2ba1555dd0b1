/**
 * Which failures are worth another try, and how long to wait: the retry policy of read-only calls.
 * The client retries through `Effect.retry` with the schedule and `while: isTransient`.
 */
import { Duration, Schedule } from "effect"
import type { DesignSearchError } from "../../ApiError.js"

/** Whether a failure is worth another try of a read-only request. */
export const isTransient = (error: DesignSearchError): boolean =>
  error._tag === "TransportError" ||
  error._tag === "RateLimitError" ||
  (error._tag === "ServerError" && (error.status === 502 || error.status === 503 || error.status === 504))

/** `schedule`, waiting at least a 429's `Retry-After`, and giving up when it asks for more than `cap`. */
export const honorRetryAfter = <Out, R>(
  schedule: Schedule.Schedule<Out, DesignSearchError, R>,
  cap: Duration.DurationInput
): Schedule.Schedule<[Out, DesignSearchError], DesignSearchError, R> => {
  const capMillis = Duration.toMillis(cap)
  const retryAfterMillis = (e: DesignSearchError) =>
    e._tag === "RateLimitError" && e.retryAfter !== undefined ? Duration.toMillis(e.retryAfter) : 0
  return Schedule.intersect(schedule, Schedule.identity<DesignSearchError>()).pipe(
    Schedule.whileInput((e: DesignSearchError) => retryAfterMillis(e) <= capMillis),
    Schedule.modifyDelay(([, e], delay) => Duration.max(delay, Duration.millis(retryAfterMillis(e))))
  )
}

/** How many times `defaultRetrySchedule` tries a request again. */
export const defaultRetries = 3

/** Jittered exponential backoff from 250 ms, three retries, a `Retry-After` honoured up to 30 seconds. */
export const defaultRetrySchedule: Schedule.Schedule<unknown, DesignSearchError> = honorRetryAfter(
  Schedule.exponential("250 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(defaultRetries))),
  "30 seconds"
)

/** How long the budget holds calls back after a 429 that named no `Retry-After`. */
export const defaultBackOff: Duration.Duration = Duration.seconds(1)
