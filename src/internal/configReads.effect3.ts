/** What Effect 3 reads of settings otherwise than Effect 4: the variables, a duration, the unset ones. */
import { Config, ConfigError, Duration, Effect, Option } from "effect"

/** A string variable: `Config.string`, `Config.String` in Effect 4. */
export const configString = Config.string
/** A redacted variable: `Config.redacted`, `Config.Redacted` in Effect 4. */
export const configRedacted = Config.redacted

/** `input` as a `Duration` if it is one; none for a negative or NaN count (`Duration` reads `-5`, `[-1, 0]` as 0). */
export const readDuration = (input: unknown): Option.Option<Duration.Duration> => {
  const counts = typeof input === "string" ? [Number.parseFloat(input)] : Array.isArray(input) ? input : [input]
  const negative = counts.some((n) => (typeof n === "number" || typeof n === "bigint") && !(n >= 0))
  return negative ? Option.none() : Duration.decodeUnknown(input)
}

/** The variables a `MissingData` error is about. */
const missing = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  error._op === "And" || error._op === "Or"
    ? [...missing(error.left), ...missing(error.right)]
    : error._op === "MissingData"
    ? [error.path.join(".")]
    : []

/** The variables `error` says are not set, when that is all it says; else none. */
export const unsetVariables = (error: ConfigError.ConfigError): Effect.Effect<ReadonlyArray<string>> =>
  Effect.succeed(ConfigError.isMissingDataOnly(error) ? [...new Set(missing(error))] : [])
