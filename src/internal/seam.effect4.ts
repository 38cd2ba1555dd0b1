/**
 * The edition seam, Effect 4's side: the same exports as `seam.effect3.ts`, spelled as Effect 4
 * spells them. See that module for what the seam is.
 */
import {
  Cause,
  Config,
  ConfigProvider,
  Context,
  DateTime,
  Duration,
  Effect,
  Layer,
  Option,
  Result as R,
  Schema,
  SchemaIssue
} from "effect"
import { Stream } from "effect"
import { Exit, Latch, Schedule } from "effect"
import type { Clock, Scope } from "effect"
import { HttpClientError, HttpClientRequest, HttpServerResponse } from "effect/http"

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
/** The constructors and readers of `Result` the shared tree uses; `match` takes `onFailure`/`onSuccess` in both. */
export const Result = {
  succeed: R.succeed,
  fail: R.fail,
  map: R.map,
  flatMap: R.flatMap,
  isSuccess: R.isSuccess,
  isFailure: R.isFailure,
  match: <A, E, B, C = B>(
    self: Result<A, E>,
    cases: { readonly onFailure: (e: E) => B; readonly onSuccess: (a: A) => C }
  ): B | C => R.match(self, cases),
  mapError: R.mapError,
  try: R.try,
  all: R.all,
  getOrUndefined: R.getOrUndefined
}
/** An effect that succeeds or fails as `result` does. */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => Effect.fromResult(result)
/** `effect`'s outcome as a `Result` value. */
export const toResult = Effect.result

/** Any duration an option takes. */
export type DurationInput = Duration.Input
/** `a < b`. */
export const durationLessThan = Duration.isLessThan

/** Recovers from every failure. */
export const catchAll = Effect.catch
/** Recovers from a defect. */
export const catchDefect = Effect.catchDefect
/** Fails with `onTimeout()` once `duration` passes. */
export const timeoutFail: {
  <E1>(options: { readonly duration: Duration.Input; readonly onTimeout: () => E1 }): <A, E, R>(
    self: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | E1, R>
  <A, E, R, E1>(
    self: Effect.Effect<A, E, R>,
    options: { readonly duration: Duration.Input; readonly onTimeout: () => E1 }
  ): Effect.Effect<A, E | E1, R>
} = function(this: unknown, ...args: ReadonlyArray<unknown>) {
  // dual: (self, options) or (options)(self)
  type Options = { readonly duration: Duration.Input; readonly onTimeout: () => unknown }
  const apply = (self: Effect.Effect<unknown, unknown, unknown>, options: Options) =>
    Effect.timeoutOrElse(self, { duration: options.duration, orElse: () => Effect.fail(options.onTimeout()) })
  return args.length === 1
    ? (self: Effect.Effect<unknown, unknown, unknown>) => apply(self, args[0] as Options)
    : apply(args[0] as Effect.Effect<unknown, unknown, unknown>, args[1] as Options)
} as never
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
/** Whether `u` is the error of an empty `Option` or array taken as a value. */
export const isNoSuchElement = (u: unknown): u is Cause.NoSuchElementError => Cause.isNoSuchElementError(u)
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
/** Decodes `u` to a `Result`, failing with a `SchemaError`. */
export const decodeUnknownResult = Schema.decodeUnknownResult
/** Decodes `u` in an effect, failing with a `SchemaError`. */
export const decodeUnknownEffect = Schema.decodeUnknownEffect
/** A union of literal values. */
export const literals = <const L extends ReadonlyArray<string>>(...values: L) => Schema.Literals(values)
/** A union of schemas. */
export const union = <const M extends ReadonlyArray<Schema.Top>>(...members: M) => Schema.Union(members)
/** A record of string keys. */
export const record = <V extends Schema.Top>(value: V) => Schema.Record(Schema.String, value)
/** A struct that keeps the fields it carries beyond those named, as sent. */
export const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Schema.Record(Schema.String, Schema.Unknown)])
/** A `Duration` value as a schema. */
export const DurationSchema = Schema.Duration
/** `schema` as JSON text. */
export const fromJsonString = Schema.fromJsonString
/** Encodes `a` to a `Result`, failing with a `SchemaError`. */
export const encodeResult = Schema.encodeResult
/** Decoding options that keep the offending value in a `SchemaError`. */
export const reportInput = { reportInput: true } as const

// ---- HTTP

/** A response of `body` as JSON. */
export const jsonResponse = HttpServerResponse.jsonUnsafe
/** A failure before any response: an `HttpClientError` of an `EncodeError` or a `TransportError`. */
export const requestError = (
  request: HttpClientRequest.HttpClientRequest,
  reason: "Encode" | "Transport",
  detail: { readonly cause?: unknown; readonly description?: string }
): HttpClientError.HttpClientError =>
  new HttpClientError.HttpClientError({
    reason: reason === "Encode"
      ? new HttpClientError.EncodeError({ request, ...detail })
      : new HttpClientError.TransportError({ request, ...detail })
  })
/** An `HttpClientError`'s reason named as Effect 3 names it (its tag less "Error"), and the reason. */
export const clientErrorReason = ({ reason }: HttpClientError.HttpClientError) => ({
  name: reason._tag.replace(/Error$/, ""),
  reason
})
/** `request` with `body` as JSON, which must be writable. */
export const bodyJsonUnsafe = HttpClientRequest.bodyJsonUnsafe
/** `request` without the header `name`. */
export const removeHeader = HttpClientRequest.removeHeader
