/**
 * The options of the token store's Redis mode and of the request budget, checked: each module
 * checks its own, and `Fleet.layer` checks both before it connects, so that bad options fail at
 * once and not after the connection was waited for.
 */
import { ConfigError, Duration, Either } from "effect"
import { positive } from "./optionChecks.js"

/** Defaults of the token store's Redis mode. */
export const storeDefaults = { lockTtl: Duration.seconds(10), maxWait: Duration.seconds(30) } as const

/** The token store's Redis options, checked. */
export const checkStoreOptions = (options: {
  readonly lockTtl?: Duration.DurationInput | undefined
  readonly maxWait?: Duration.DurationInput | undefined
}): Either.Either<
  { readonly lockTtl: Duration.Duration; readonly maxWait: Duration.Duration },
  ConfigError.ConfigError
> =>
  Either.all({
    lockTtl: positive("lockTtl", options.lockTtl, storeDefaults.lockTtl),
    maxWait: positive("maxWait", options.maxWait, storeDefaults.maxWait)
  })

/** Defaults of the request budget. */
export const budgetDefaults = { burst: 1, maxBackOff: Duration.seconds(60) } as const

/** The budget's pace in milliseconds: between slots, the tolerance of a burst, the longest back-off. */
export interface Pace {
  readonly intervalMillis: number
  readonly toleranceMillis: number
  readonly maxBackOffMillis: number
}

/** The request budget's options, checked into its pace. */
export const checkPace = (options: {
  readonly requestsPerSecond?: number | undefined
  readonly burst?: number | undefined
  readonly maxBackOff?: Duration.DurationInput | undefined
}): Either.Either<Pace, ConfigError.ConfigError> => {
  const { burst = budgetDefaults.burst, requestsPerSecond } = options
  if (requestsPerSecond !== undefined && !(Number.isFinite(requestsPerSecond) && requestsPerSecond > 0)) {
    return Either.left(ConfigError.InvalidData(["requestsPerSecond"], "expected a positive number"))
  }
  if (!Number.isSafeInteger(burst) || burst < 1) {
    return Either.left(ConfigError.InvalidData(["burst"], "expected a positive integer"))
  }
  const intervalMillis = requestsPerSecond === undefined ? 0 : 1000 / requestsPerSecond
  return Either.map(positive("maxBackOff", options.maxBackOff, budgetDefaults.maxBackOff), (maxBackOff) => ({
    intervalMillis,
    toleranceMillis: (burst - 1) * intervalMillis,
    maxBackOffMillis: Duration.toMillis(maxBackOff)
  }))
}
