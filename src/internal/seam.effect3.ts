/**
 * The edition seam, Effect 3's side: the names Effect 3 and Effect 4 spell differently, under one
 * spelling for the shared tree. `seam.effect4.ts` has the same exports; each build picks its own
 * through `#edition/internal/seam` (package.json `imports`, `paths` in the tsconfigs). Code outside
 * the seams uses only what both Effects share.
 */
import { Headers, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Cause, Chunk, ConfigError, Context, DateTime, Effect, Either, Exit, Layer, Option } from "effect"
import { Schedule, Schema, Stream } from "effect"
import type { Clock, Duration, ParseResult, Scope } from "effect"

export { FetchHttpClient, Headers, HttpClient, HttpClientRequest } from "@effect/platform"
export type { HttpClientError } from "@effect/platform"
export { HttpBody, HttpClientResponse, HttpMethod } from "@effect/platform"
export { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
export type { HttpServerError } from "@effect/platform"

/** Which edition this build is. */
export const edition = 3 as const

// ---- services, results, errors of the runtime

/** A service tag class: `Context.Tag(key)<Self, Shape>()` here, `Context.Service` in Effect 4. */
export const Service = <Self, Shape>() => <const Key extends string>(key: Key) => Context.Tag(key)<Self, Shape>()

/** A success or a failure as a value: `Either` here, `Result` in Effect 4. */
export type Result<A, E> = Either.Either<A, E>
/** The constructors and readers of `Result` the shared tree uses; `match` takes `onFailure`/`onSuccess` in both. */
export const Result = {
  succeed: Either.right,
  fail: Either.left,
  map: Either.map,
  flatMap: Either.flatMap,
  isSuccess: Either.isRight,
  isFailure: Either.isLeft,
  match: <A, E, B, C = B>(
    self: Result<A, E>,
    cases: { readonly onFailure: (e: E) => B; readonly onSuccess: (a: A) => C }
  ): B | C => Either.match(self, { onLeft: cases.onFailure, onRight: cases.onSuccess }),
  mapError: Either.mapLeft,
  try: Either.try,
  all: Either.all,
  getOrUndefined: Either.getOrUndefined
}
/** An effect that succeeds or fails as `result` does (an `Either` is one already in Effect 3). */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => result
/** `effect`'s outcome as a `Result` value: `Effect.either`, `Effect.result` in Effect 4. */
export const toResult = Effect.either

/** Any duration an option takes: `Duration.DurationInput`, `Duration.Input` in Effect 4. */
export type DurationInput = Duration.DurationInput

/** Recovers from every failure: `Effect.catchAll`, `Effect.catch` in Effect 4. */
export const catchAll = Effect.catchAll
/** Recovers from a defect: `Effect.catchAllDefect`, `Effect.catchDefect` in Effect 4. */
export const catchDefect = Effect.catchAllDefect
/** Fails with `onTimeout()` once `duration` passes. */
export const timeoutFail = Effect.timeoutFail
/** Forks as a child of the current fiber: `Effect.fork`, `Effect.forkChild` in Effect 4. */
export const forkChild = Effect.fork
/** Lets other fibers run once: a function here, a value in Effect 4. */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow()
/** Runs `effect` with its context changed: `Effect.mapInputContext`, `Effect.updateContext` in Effect 4. */
export const updateContext = Effect.mapInputContext
/** A layer whose resources live as long as it does: `Layer.scoped`; in Effect 4 `Layer.effect` does it. */
export const layerScoped = Layer.scoped as <I, S, E, R>(
  tag: Context.Tag<I, S>,
  effect: Effect.Effect<NoInfer<S>, E, R>
) => Layer.Layer<I, E, Exclude<R, Scope.Scope>>
/** The clock's time in milliseconds, read synchronously. */
export const clockMillis = (clock: Clock.Clock): number => clock.unsafeCurrentTimeMillis()
/** An `Option` of a value that may be null or undefined. */
export const fromNullable = Option.fromNullable
/** A `DateTime.Utc` of epoch milliseconds, which must be valid. */
export const dateTimeUnsafe = (millis: number): DateTime.Utc => DateTime.unsafeMake(millis)
/** The error of a value that is not there: `Cause.NoSuchElementException`, `NoSuchElementError` in Effect 4. */
export const NoSuchElement = Cause.NoSuchElementException
/** The error of a value that is not there. */
export type NoSuchElement = Cause.NoSuchElementException
/** A layer that an effect builds, in the layer's scope: `Layer.unwrapScoped`, `Layer.unwrap` in Effect 4. */
export const layerUnwrap = Layer.unwrapScoped
/** The service of `tag` as an effect: the tag itself here, `Effect.service` in Effect 4. */
export const service = <I, S>(tag: Context.Tag<I, S>): Effect.Effect<S, never, I> => tag
/** Forks into `scope` uninterruptibly (a fiber starts as its parent is here; an option in Effect 4). */
export const forkInUninterruptible = (scope: Scope.Scope) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.uninterruptible(Effect.forkIn(self, scope))
/** Whether `exit` failed by an interruption: `Exit.isInterrupted`, `Exit.hasInterrupts` in Effect 4. */
export const exitInterrupted = Exit.isInterrupted
/** A service with a default value, needing no layer: `Context.Reference`. */
export const reference = <S>(key: string, defaultValue: () => S) => Context.Reference<S>()(key, { defaultValue })
/** A latch made, opened and closed synchronously: `Effect.unsafeMakeLatch`, `Latch.makeUnsafe` in Effect 4. */
export const latchUnsafe = (open: boolean) => {
  const latch = Effect.unsafeMakeLatch(open)
  return { open: () => void latch.unsafeOpen(), close: () => void latch.unsafeClose(), await: latch.await }
}
/** `self` while `f(input)` holds: `Schedule.whileInputEffect`, `Schedule.while` in Effect 4. */
export const whileInputEffect = Schedule.whileInputEffect
/** Recurs while both do, the longer delay: `Schedule.intersect`, `Schedule.max` in Effect 4. */
export const scheduleBoth = Schedule.intersect
/** Pages of elements, each page read from the state the last one left (none: the end): `Stream.paginate` in Effect 4. */
export const paginate = <S, A, E, R>(s: S, f: (s: S) => Effect.Effect<Page<A, S>, E, R>): Stream.Stream<A, E, R> =>
  Stream.paginateChunkEffect(
    s,
    (at) => Effect.map(f(at), ([page, next]) => [Chunk.unsafeFromArray(page), next] as const)
  )
type Page<A, S> = readonly [ReadonlyArray<A>, Option.Option<S>]

// ---- configuration errors

/** The error of a bad or missing setting. */
export type ConfigErrorType = ConfigError.ConfigError
/** A value at `path` (a variable, an option) that fails its check; `message` says how. */
export const invalidConfig = (path: ReadonlyArray<string>, message: string): ConfigErrorType =>
  ConfigError.InvalidData([...path], message)
/** A setting nobody gave, told at `path` with what to do about it. */
export const missingConfig = (path: ReadonlyArray<string>, message: string): ConfigErrorType =>
  ConfigError.MissingData([...path], message)

// ---- schemas

/** The error of a failed decode: `ParseResult.ParseError`, `Schema.SchemaError` in Effect 4. */
export type SchemaError = ParseResult.ParseError
/** Decodes `u` to a `Result`, failing with a `SchemaError`. */
export const decodeUnknownResult = Schema.decodeUnknownEither
/** Decodes `u` in an effect, failing with a `SchemaError`. */
export const decodeUnknownEffect = Schema.decodeUnknown
/** Encodes `a` to a `Result`, failing with a `SchemaError`: `Schema.encodeEither`, `encodeResult` in Effect 4. */
export const encodeResult = Schema.encodeEither
/** Decoding options that keep the offending value in a `SchemaError`: none needed here, `reportInput` in Effect 4. */
export const reportInput = {} as const

// ---- HTTP

/** A failure before any response: a `RequestError`; in Effect 4 an `HttpClientError` of an `EncodeError`/`TransportError`. */
export const requestError = (
  request: HttpClientRequest.HttpClientRequest,
  reason: "Encode" | "Transport",
  detail: { readonly cause?: unknown; readonly description?: string }
): HttpClientError.HttpClientError => new HttpClientError.RequestError({ request, reason, ...detail })
/** An `HttpClientError`'s reason named as Effect 3 names it ("Transport", "EmptyBody"), and the error that has its request. */
export const clientErrorReason = (error: HttpClientError.HttpClientError) => ({ name: error.reason, reason: error })
/** `request` without the header `name`: rebuilt (`setHeaders` only adds), `removeHeader` in Effect 4. */
export const removeHeader = (request: HttpClientRequest.HttpClientRequest, name: string) =>
  HttpClientRequest.make(request.method)(request.url, {
    urlParams: request.urlParams,
    hash: Option.getOrUndefined(request.hash),
    headers: Headers.remove(request.headers, name),
    body: request.body
  })
