/** What Effect 4 reads of settings otherwise than Effect 3: the variables, a duration, the unset ones. */
import { Config, Duration, Effect, Option } from "effect"
import * as Service from "../core/wire/service.js"

/** A string variable. */
export const configString = Config.String
/** A redacted variable. */
export const configRedacted = Config.Redacted

/** The units of a `Duration.DurationObject`. */
const units = new Set(["weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"])

/** The counts of a `Duration.DurationObject`, each a number; `[NaN]` for any other object. */
const countsOf = (input: object): ReadonlyArray<unknown> => {
  const given: Array<[string, unknown]> = Object.entries(input).filter(([, count]) => count !== undefined)
  const read = given.length > 0 && given.every(([unit, count]) => units.has(unit) && typeof count === "number")
  return read ? given.map(([, count]) => count) : [Number.NaN]
}

/** `input` as a `Duration`, if it is one: a NaN count, which `Duration` reads as zero, is none. */
export const readDuration = (input: unknown): Option.Option<Duration.Duration> => {
  // in any form: `NaN`, `[NaN, 0]`, `{ seconds: NaN }`, and any other object (`{}`, `{ secs: 5 }`)
  const counts = Array.isArray(input)
    ? input
    : typeof input === "object" && input !== null && !Duration.isDuration(input)
    ? countsOf(input)
    : [input]
  return counts.some(Number.isNaN) ? Option.none() : Duration.fromInput(input as Duration.Input)
}

/** The credential variables not set: Effect 4's error does not name them, so each is read again. */
export const unsetVariables = (_error: Config.ConfigError): Effect.Effect<ReadonlyArray<string>, Config.ConfigError> =>
  Effect.filter(Service.credentialVariables, (name) => Effect.map(Config.option(Config.String(name)), Option.isNone))
