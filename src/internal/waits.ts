/** Waits that speak: each retry's wait and each long wait of the budget, logged at `Debug` (docs/reliability.md). */
import { modifyDelays } from "#edition/internal/schedules"
import { Duration, Effect } from "effect"
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
export const toldRetries = modifyDelays<DesignSearchError>((delay, error, retry) =>
  Effect.as(
    // In whole milliseconds: a jittered delay has nanoseconds no one reads.
    Effect.logDebug(`${whyRetried(error)}; trying again in ${Duration.format(wholeMillis(delay))}`).pipe(
      Effect.annotateLogs({ retry, waitMillis: Duration.toMillis(delay), error: error._tag })
    ),
    delay
  )
)

/**
 * Sleeps `wait` for the rate budget, logged at `Debug` as it begins when it lasts a second or more
 * (annotated `waitMillis`): a paced budget's usual waits are shorter, and not told.
 */
export const toldWait = (why: string, wait: Duration.Duration): Effect.Effect<void> =>
  Duration.toMillis(wait) < 1000 ? Effect.sleep(wait) : Effect.logDebug(
    `${why}; going on in ${Duration.format(wholeMillis(wait))}`
  ).pipe(Effect.annotateLogs({ waitMillis: Duration.toMillis(wait) }), Effect.andThen(Effect.sleep(wait)))
