/**
 * The edition seam, Effect 4's side: the same exports as `seam.effect3.ts`, spelled as Effect 4
 * spells them. See that module for what the seam is.
 */
import { Cause, Config, ConfigProvider, Context, DateTime, Effect, Exit, Latch, Layer, Option } from "effect"
import { Result as R, Schedule, Schema, SchemaIssue, Stream } from "effect"
import type { Clock, Duration, Scope } from "effect"
import { HttpClientError, HttpClientRequest } from "effect/http"
import type { ParseOptions } from "effect/SchemaAST"

export { FetchHttpClient, Headers, HttpClient, HttpClientRequest } from "effect/http"
export type { HttpClientError } from "effect/http"
export { HttpBody, HttpClientResponse, HttpMethod } from "effect/http"
export { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
export type { HttpServerError } from "effect/http"

/** Which edition this build is. */
export const edition = 4 as const

// ---- services, results, errors of the runtime

/** A service tag class: `Context.Service<Self, Shape>()(key)`. */
export const Service = <Self, Shape>() => <const Key extends string>(key: Key) => Context.Service<Self, Shape>()(key)

/** A success or a failure as a value. */
export type Result<A, E> = R.Result<A, E>
/** `Result` itself: the shared tree uses the constructors and readers `seam.effect3.ts` gives `Either`. */
export const Result = R
/** An effect that succeeds or fails as `result` does. */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => Effect.fromResult(result)
/** `effect`'s outcome as a `Result` value. */
export const toResult = Effect.result

/** Any duration an option takes. */
export type DurationInput = Duration.Input

/** Recovers from every failure. */
export const catchAll = Effect.catch
/** Recovers from a defect. */
export const catchDefect = Effect.catchDefect
/** Fails with `onTimeout()` once `duration` passes (data-last, as the shared tree calls it). */
export const timeoutFail =
  <E1>(options: { readonly duration: Duration.Input; readonly onTimeout: () => E1 }) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E1, R> =>
    Effect.timeoutOrElse(self, { duration: options.duration, orElse: () => Effect.fail(options.onTimeout()) })
/** Forks as a child of the current fiber. */
export const forkChild = Effect.forkChild
/** Lets other fibers run once. */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow
/** Runs `effect` with its context changed. */
export const updateContext = Effect.updateContext
/** A layer whose resources live as long as it does. */
export const layerScoped = Layer.effect as <I, S, E, R>(
  tag: Context.Key<I, S>,
  effect: Effect.Effect<NoInfer<S>, E, R>
) => Layer.Layer<I, E, Exclude<R, Scope.Scope>>
/** The clock's time in milliseconds, read synchronously. */
export const clockMillis = (clock: Clock.Clock): number => clock.currentTimeMillisUnsafe()
/** An `Option` of a value that may be null or undefined. */
export const fromNullable = Option.fromNullishOr
/** A `DateTime.Utc` of epoch milliseconds, which must be valid. */
export const dateTimeUnsafe = (millis: number): DateTime.Utc => DateTime.makeUnsafe(millis)
/** The error of a value that is not there. */
export const NoSuchElement = Cause.NoSuchElementError
/** The error of a value that is not there. */
export type NoSuchElement = Cause.NoSuchElementError
/** A layer that an effect builds, in the layer's scope. */
export const layerUnwrap = Layer.unwrap
/** The service of `tag` as an effect. */
export const service = Effect.service
/** Forks into `scope` uninterruptibly (a fiber starts interruptible, whatever its parent). */
export const forkInUninterruptible = (scope: Scope.Scope) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.forkIn(self, scope, { uninterruptible: true })
/** Whether `exit` failed by an interruption. */
export const exitInterrupted = Exit.hasInterrupts
/** A service with a default value, needing no layer. */
export const reference = <S>(key: string, defaultValue: () => S) => Context.Reference<S>(key, { defaultValue })
/** A latch made, opened and closed synchronously. */
export const latchUnsafe = (open: boolean) => {
  const latch = Latch.makeUnsafe(open)
  return { open: () => void latch.openUnsafe(), close: () => void latch.closeUnsafe(), await: latch.await }
}
/** `self` while `f(input)` holds. */
export const whileInputEffect = <O, I, E, R, R2>(
  self: Schedule.Schedule<O, I, E, R>,
  f: (input: I) => Effect.Effect<boolean, never, R2>
) => Schedule.while(self, ({ input }) => f(input))
/** Recurs while both do, the longer delay. */
export const scheduleBoth = <O1, I1, E1, R1, O2, I2, E2, R2>(
  a: Schedule.Schedule<O1, I1, E1, R1>,
  b: Schedule.Schedule<O2, I2, E2, R2>
) => Schedule.max([a, b])
/** Pages of elements, each page read from the state the last one left (none: the end). */
export const paginate = Stream.paginate

// ---- configuration errors

/** The error of a bad or missing setting. */
export type ConfigErrorType = Config.ConfigError
/** A value at `path` (a variable, an option) that fails its check; `message` says how. */
export const invalidConfig = (path: ReadonlyArray<string>, message: string): ConfigErrorType => {
  const issue = new SchemaIssue.InvalidValue({ message })
  return new Config.ConfigError(
    new Schema.SchemaError(path.length === 0 ? issue : new SchemaIssue.Pointer(path, issue))
  )
}
/** A setting nobody gave, told with what to do about it (Effect 4's error keeps no path). */
export const missingConfig = (_path: ReadonlyArray<string>, message: string): ConfigErrorType =>
  new Config.ConfigError(new ConfigProvider.SourceError({ message }))

// ---- schemas

/** The error of a failed decode. */
export type SchemaError = Schema.SchemaError
/** Decodes `u` to a `Result`, failing with a `SchemaError`; a throwing getter's own error goes on, as in Schema 3. */
export const decodeUnknownResult = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, options?: ParseOptions) => {
  const decode = Schema.decodeUnknownExit(schema, options)
  return (u: unknown, overrides?: ParseOptions): Result<S["Type"], Schema.SchemaError> => {
    const exit = decode(u, overrides)
    if (Exit.isSuccess(exit)) return R.succeed(exit.value)
    return R.fail(Option.getOrThrowWith(Cause.findErrorOption(exit.cause), () => Cause.squash(exit.cause)))
  }
}
/** Decodes `u` in an effect, failing with a `SchemaError`. */
export const decodeUnknownEffect = Schema.decodeUnknownEffect
/** Encodes `a` to a `Result`, failing with a `SchemaError`. */
export const encodeResult = Schema.encodeResult
/** Decoding options that keep the offending value in a `SchemaError`. */
export const reportInput = { reportInput: true } as const

// ---- HTTP

/** A failure before any response: an `HttpClientError` of an `EncodeError` or a `TransportError`. */
export const requestError = (
  request: HttpClientRequest.HttpClientRequest,
  reason: "Encode" | "Transport",
  detail: { readonly cause?: unknown; readonly description?: string }
): HttpClientError.HttpClientError =>
  new HttpClientError.HttpClientError({ reason: new HttpClientError[`${reason}Error`]({ request, ...detail }) })
/** An `HttpClientError`'s reason named as Effect 3 names it (its tag less "Error"), and the reason. */
export const clientErrorReason = ({ reason }: HttpClientError.HttpClientError) => ({
  name: reason._tag.slice(0, -5),
  reason
})
/** `request` without the header `name`. */
export const removeHeader = HttpClientRequest.removeHeader
