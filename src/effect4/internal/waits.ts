/**
 * Waits that speak: every wait before another try, and every long wait of the rate budget, logged
 * at `Debug` as it begins, saying why and for how long. An application hears of them through its
 * logger; the CLI prints them. See docs/reliability.md.
 */
import { Duration, Effect, Schedule } from "effect"
import type { DesignSearchError } from "../ApiError.js"

const wholeMillis = (d: Duration.Duration) => Duration.millis(Math.round(Duration.toMillis(d)))

/** Why a failure is tried again, in words: the first half of the line a wait is logged with. */
const whyRetried = (error: DesignSearchError): string => {
  switch (error._tag) {
    case "TransportError":
      return error.reason === "Timeout"
        ? `${error.method} ${error.url} timed out`
        : error.reason === "Body"
        ? `the answer of ${error.url} broke off: ${error.detail}`
        : `cannot reach ${error.url}: ${error.detail}`
    case "TokenError":
      // the answer's body is the error's, not the line's: a wait is told in a line
      return error.status === undefined
        ? `the token endpoint did not answer: ${error.detail}`
        : `the token endpoint answered ${error.status}`
    default:
      return `the service answered ${error.status}`
  }
}

/**
 * `schedule`, each wait before another try logged at `Debug` as it begins ("the service answered
 * 503; trying again in 2s"), annotated with `retry` (1 for the first), `waitMillis` and `error`
 * (the failure's tag): the one place an application, or the CLI, hears of the retries.
 */
export const toldRetries = <Out, E extends DesignSearchError, Err, R>(
  schedule: Schedule.Schedule<Out, E, Err, R>
): Schedule.Schedule<Out, E, Err, R> =>
  Schedule.modifyDelay(schedule, ({ attempt, duration, input }) =>
    Effect.as(
      // In whole milliseconds: a jittered delay has nanoseconds no one reads.
      Effect.logDebug(`${whyRetried(input)}; trying again in ${Duration.format(wholeMillis(duration))}`).pipe(
        Effect.annotateLogs({ retry: attempt, waitMillis: Duration.toMillis(duration), error: input._tag })
      ),
      duration
    ))

/**
 * Sleeps `wait` for the rate budget, logged at `Debug` as it begins when it lasts a second or more
 * (annotated `waitMillis`): a paced budget's usual waits are shorter, and not told.
 */
export const toldWait = (why: string, wait: Duration.Duration): Effect.Effect<void> =>
  Duration.toMillis(wait) < 1000 ? Effect.sleep(wait) : Effect.logDebug(
    `${why}; going on in ${Duration.format(wholeMillis(wait))}`
  ).pipe(Effect.annotateLogs({ waitMillis: Duration.toMillis(wait) }), Effect.andThen(Effect.sleep(wait)))
