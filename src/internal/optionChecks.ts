/** Checks of numeric options (durations, counts), each failure a `ConfigError` naming the option. */
import { ConfigError, Duration, Effect, Either } from "effect"

/** `input` decoded, or `fallback` when absent; a finite duration of zero or more (whatever a caller passed). */
export const nonNegative = (
  name: string,
  input: unknown,
  fallback: Duration.Duration
): Either.Either<Duration.Duration, ConfigError.ConfigError> => {
  if (input === undefined) return Either.right(fallback)
  // `Duration` reads a negative or NaN count, in any form (`-5`, `"-1 second"`, `[-1, 0]`), as zero
  const counts = typeof input === "string" ? [Number.parseFloat(input)] : Array.isArray(input) ? input : [input]
  const negative = counts.some((n) => (typeof n === "number" || typeof n === "bigint") && !(n >= 0))
  const decoded = negative ? undefined : Duration.decodeUnknown(input)
  return decoded?._tag === "Some" && Duration.isFinite(decoded.value) && Duration.toMillis(decoded.value) >= 0
    ? Either.right(decoded.value)
    : Either.left(ConfigError.InvalidData([name], `${name} must be a finite, non-negative duration`))
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const maxTimerMillis = 2_147_483_647

/** As `nonNegative`, more than zero, and within a timer's limit (every such option ends up one). */
export const positive = (
  name: string,
  input: Duration.DurationInput | undefined,
  fallback: Duration.Duration
): Either.Either<Duration.Duration, ConfigError.ConfigError> =>
  Either.flatMap(nonNegative(name, input, fallback), (d) => {
    const millis = Duration.toMillis(d)
    if (millis <= 0) return Either.left(ConfigError.InvalidData([name], `${name} must be positive`))
    return millis <= maxTimerMillis
      ? Either.right(d)
      : Either.left(ConfigError.InvalidData([name], `${name} must be at most 24 days (a timer's limit)`))
  })

/** `value` if it is a positive safe integer; otherwise a `ConfigError` naming the setting. */
export const positiveInt = (name: string, value: number): Effect.Effect<number, ConfigError.ConfigError> =>
  Number.isSafeInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(ConfigError.InvalidData([name], `${name} must be a positive integer, got ${String(value)}`))
