/** Checks of duration options, each failure a `ConfigError` naming the option. */
import { ConfigError, Duration, Either } from "effect"

/** `input` decoded, or `fallback` when absent; a finite duration of zero or more. */
export const nonNegative = (
  name: string,
  input: Duration.DurationInput | undefined,
  fallback: Duration.Duration
): Either.Either<Duration.Duration, ConfigError.ConfigError> => {
  if (input === undefined) return Either.right(fallback)
  const decoded = Duration.decodeUnknown(input)
  return decoded._tag === "Some" && Duration.isFinite(decoded.value) && Duration.toMillis(decoded.value) >= 0
    ? Either.right(decoded.value)
    : Either.left(ConfigError.InvalidData([name], `${name} must be a finite, non-negative duration`))
}

/** As `nonNegative`, and more than zero. */
export const positive = (
  name: string,
  input: Duration.DurationInput | undefined,
  fallback: Duration.Duration
): Either.Either<Duration.Duration, ConfigError.ConfigError> =>
  Either.flatMap(
    nonNegative(name, input, fallback),
    (d) => Duration.toMillis(d) > 0 ? Either.right(d) : Either.left(ConfigError.InvalidData([name], `${name} must be positive`))
  )
