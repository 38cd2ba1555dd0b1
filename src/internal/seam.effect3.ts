/**
 * The edition seam, Effect 3's side: the names Effect 3 and Effect 4 spell differently, under one
 * spelling for the shared tree. `seam.effect4.ts` has the same exports; each build picks its own
 * through `#edition/internal/seam` (package.json `imports`, `paths` in the tsconfigs). Code outside
 * the seams uses only what both Effects share.
 */
import { Cause, ConfigError, Context, DateTime, Duration, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import type { Clock, Scope } from "effect"

export { FetchHttpClient, Headers, HttpClient, HttpClientRequest } from "@effect/platform"
export type { HttpClientError, HttpClientResponse } from "@effect/platform"

/** Which edition this build is. */
export const edition = 3 as const

// ---- services, results, errors of the runtime

/** A service tag class: `Context.Tag(key)<Self, Shape>()` here, `Context.Service` in Effect 4. */
export const Service = <Self, Shape>() => <const Key extends string>(key: Key) => Context.Tag(key)<Self, Shape>()

/** A success or a failure as a value: `Either` here, `Result` in Effect 4. */
export type Result<A, E> = Either.Either<A, E>
/** The constructors and readers of `Result` that the shared tree uses. */
export const Result = {
  succeed: Either.right,
  fail: Either.left,
  map: Either.map,
  flatMap: Either.flatMap,
  isSuccess: Either.isRight,
  isFailure: Either.isLeft,
  match: Either.match
}
/** An effect that succeeds or fails as `result` does (an `Either` is one already in Effect 3). */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => result
/** `effect`'s outcome as a `Result` value: `Effect.either`, `Effect.result` in Effect 4. */
export const toResult = Effect.either

/** Any duration an option takes: `Duration.DurationInput`, `Duration.Input` in Effect 4. */
export type DurationInput = Duration.DurationInput
/** `a < b`: `Duration.lessThan`, `Duration.isLessThan` in Effect 4. */
export const durationLessThan = Duration.lessThan

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
/** Whether `u` is the error of an empty `Option` or array taken as a value. */
export const isNoSuchElement = (u: unknown): u is Cause.NoSuchElementException => Cause.isNoSuchElementException(u)
/** A `DateTime.Utc` of epoch milliseconds, which must be valid. */
export const dateTimeUnsafe = (millis: number): DateTime.Utc => DateTime.unsafeMake(millis)

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
/** A union of literal values: `Schema.Literal(...values)`, `Schema.Literals([...])` in Effect 4. */
export const literals = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...(values as unknown as readonly [L[number]]))
/** A union of schemas: `Schema.Union(...members)`, `Schema.Union([...])` in Effect 4. */
export const union = <const M extends ReadonlyArray<Schema.Schema.All>>(...members: M) => Schema.Union(...members)
/** A record of string keys: `Schema.Record({ key, value })`, `Schema.Record(key, value)` in Effect 4. */
export const record = <V extends Schema.Schema.All>(value: V) => Schema.Record({ key: Schema.String, value })
/** A struct that keeps the fields it carries beyond those named, as sent. */
export const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
/** A `Duration` value as a schema: `Schema.DurationFromSelf`, `Schema.Duration` in Effect 4. */
export const DurationSchema = Schema.DurationFromSelf
