/**
 * Waits told on stderr. The library logs each wait before another try at `Debug`, annotated with
 * `retry` (1 for the first), `waitMillis` and `error`, and each wait on the rate budget with
 * `waitMillis` only; this logger prints a retry at once and a budget wait over a second (unless one
 * told before still runs), as one line, or on a terminal in the line the progress bar is drawn in.
 * Nothing else below `Info`.
 */
import { HashMap, Layer, Logger, LogLevel, Option } from "effect"
import { defaultRetries } from "../internal/http/retry.js"
import * as TokenService from "../TokenService.js"
import * as Output from "./Output.js"

const numberAt = (annotations: HashMap.HashMap<string, unknown>, key: string): Option.Option<number> =>
  Option.filter(HashMap.get(annotations, key), (value): value is number => typeof value === "number")

/** The line of a logged wait worth telling (`… trying again in 2s (2 of 3)`); none for any other message. */
export const waitLine = (message: unknown, annotations: HashMap.HashMap<string, unknown>): Option.Option<string> => {
  const waitMillis = numberAt(annotations, "waitMillis")
  if (Option.isNone(waitMillis)) return Option.none()
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  const retry = numberAt(annotations, "retry")
  if (Option.isSome(retry)) {
    // The token endpoint has a schedule of its own, with its own count.
    const tokens = Option.getOrUndefined(HashMap.get(annotations, "error")) === "TokenError"
    return Option.some(`${text} (${retry.value} of ${tokens ? TokenService.defaultRetries : defaultRetries})`)
  }
  return waitMillis.value > 1000 ? Option.some(text) : Option.none()
}

/**
 * `waitLine`, but a wait on the budget only when no budget wait told before still runs at `now`:
 * concurrent requests each wait for a later slot, and one line a wait is enough.
 */
export const teller = () => {
  let toldUntil = Number.NEGATIVE_INFINITY
  return (message: unknown, annotations: HashMap.HashMap<string, unknown>, now: number): Option.Option<string> =>
    Option.filter(waitLine(message, annotations), () => {
      if (Option.isSome(numberAt(annotations, "retry"))) return true
      if (now < toldUntil) return false
      toldUntil = now + Option.getOrElse(numberAt(annotations, "waitMillis"), () => 0)
      return true
    })
}

/** Prints waits, and passes every message of `Info` and above to Effect's default logger. */
const told = (tell: ReturnType<typeof teller>) =>
  Logger.make<unknown, void>((options) => {
    const line = tell(options.message, options.annotations, options.date.getTime())
    if (Option.isSome(line)) {
      if (process.stderr.isTTY === true) Output.drawInPlace(line.value)
      else Output.stderrNow(line.value)
    } else if (LogLevel.greaterThanEqual(options.logLevel, LogLevel.Info)) {
      Logger.defaultLogger.log(options)
    }
  })

/** The waits told on stderr, unless `quiet`. */
export const layer = (quiet: boolean): Layer.Layer<never> =>
  quiet
    ? Layer.empty
    : Layer.merge(Logger.replace(Logger.defaultLogger, told(teller())), Logger.minimumLogLevel(LogLevel.Debug))
