/** Checks of numeric options (durations, counts), each failure a `ConfigError` naming the option. */
import { readDuration } from "#edition/internal/configReads"
import { invalidConfig, Result } from "#edition/internal/seam"
import type { ConfigErrorType, DurationInput } from "#edition/internal/seam"
import { Duration, Effect, Option } from "effect"

/** `input` decoded, or `fallback` when absent; a finite duration of zero or more (whatever a caller passed). */
export const nonNegative = (
  name: string,
  input: unknown,
  fallback: Duration.Duration
): Result<Duration.Duration, ConfigErrorType> => {
  if (input === undefined) return Result.succeed(fallback)
  const decoded = readDuration(input)
  return Option.isSome(decoded) && Duration.isFinite(decoded.value) && Duration.toMillis(decoded.value) >= 0
    ? Result.succeed(decoded.value)
    : Result.fail(invalidConfig([name], `${name} must be a finite, non-negative duration`))
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const maxTimerMillis = 2_147_483_647

/** As `nonNegative`, more than zero, and within a timer's limit (every such option ends up one). */
export const positive = (
  name: string,
  input: DurationInput | undefined,
  fallback: Duration.Duration
): Result<Duration.Duration, ConfigErrorType> =>
  Result.flatMap(nonNegative(name, input, fallback), (d) => {
    const millis = Duration.toMillis(d)
    if (millis <= 0) return Result.fail(invalidConfig([name], `${name} must be positive`))
    return millis <= maxTimerMillis
      ? Result.succeed(d)
      : Result.fail(invalidConfig([name], `${name} must be at most 24 days (a timer's limit)`))
  })

/** `value` if it is a positive safe integer; otherwise a `ConfigError` naming the setting. */
export const positiveInt = (name: string, value: number): Effect.Effect<number, ConfigErrorType> =>
  Number.isSafeInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(invalidConfig([name], `${name} must be a positive integer, got ${String(value)}`))
