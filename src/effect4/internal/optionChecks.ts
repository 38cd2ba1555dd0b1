/**
 * Checks of numeric options (durations, counts), each failure a `ConfigError` naming the option, and
 * the two ways of building one: Effect 4 has a single `ConfigError` class, whose cause says what
 * went wrong (a value that fails its check, or a setting nobody gave).
 */
import { Config, ConfigProvider, Duration, Effect, Option, Result, Schema, SchemaIssue } from "effect"

/** A value at `path` (a variable, an option) that fails its check; `message` says how. */
export const invalid = (path: ReadonlyArray<string>, message: string): Config.ConfigError => {
  const issue = new SchemaIssue.InvalidValue({ message })
  return new Config.ConfigError(
    new Schema.SchemaError(path.length === 0 ? issue : new SchemaIssue.Pointer(path, issue))
  )
}

/** A setting nobody gave (a variable not set, a package not installed), told with what to do about it. */
export const missing = (message: string): Config.ConfigError =>
  new Config.ConfigError(new ConfigProvider.SourceError({ message }))

/** The units of a `Duration.DurationObject`. */
const units = new Set(["weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"])

/** The counts of a `Duration.DurationObject`, each a number; `[NaN]` for any other object. */
const countsOf = (input: object): ReadonlyArray<unknown> => {
  const given: Array<[string, unknown]> = Object.entries(input).filter(([, count]) => count !== undefined)
  const read = given.length > 0 && given.every(([unit, count]) => units.has(unit) && typeof count === "number")
  return read ? given.map(([, count]) => count) : [Number.NaN]
}

/** `input` decoded, or `fallback` when absent; a finite duration of zero or more (whatever a caller passed). */
export const nonNegative = (
  name: string,
  input: unknown,
  fallback: Duration.Duration
): Result.Result<Duration.Duration, Config.ConfigError> => {
  if (input === undefined) return Result.succeed(fallback)
  // `Duration` reads a NaN count (`NaN`, `[NaN, 0]`, `{ seconds: NaN }`) as zero, and so any other
  // object (`{}`, `{ secs: 5 }`)
  const counts = Array.isArray(input)
    ? input
    : typeof input === "object" && input !== null && !Duration.isDuration(input)
    ? countsOf(input)
    : [input]
  const decoded = counts.some(Number.isNaN) ? Option.none() : Duration.fromInput(input as Duration.Input)
  return Option.isSome(decoded) && Duration.isFinite(decoded.value) && Duration.toMillis(decoded.value) >= 0
    ? Result.succeed(decoded.value)
    : Result.fail(invalid([name], `${name} must be a finite, non-negative duration`))
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const maxTimerMillis = 2_147_483_647

/** As `nonNegative`, more than zero, and within a timer's limit (every such option ends up one). */
export const positive = (
  name: string,
  input: Duration.Input | undefined,
  fallback: Duration.Duration
): Result.Result<Duration.Duration, Config.ConfigError> =>
  Result.flatMap(nonNegative(name, input, fallback), (d) => {
    const millis = Duration.toMillis(d)
    if (millis <= 0) return Result.fail(invalid([name], `${name} must be positive`))
    return millis <= maxTimerMillis
      ? Result.succeed(d)
      : Result.fail(invalid([name], `${name} must be at most 24 days (a timer's limit)`))
  })

/** `value` if it is a positive safe integer; otherwise a `ConfigError` naming the setting. */
export const positiveInt = (name: string, value: number): Effect.Effect<number, Config.ConfigError> =>
  Number.isSafeInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(invalid([name], `${name} must be a positive integer, got ${String(value)}`))
