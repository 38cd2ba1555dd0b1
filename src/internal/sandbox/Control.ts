/** What drives a sandbox from a test or a tool (`Control`, as `SandboxControl`), and what a sandbox is. */
import { refused, unreadable } from "#edition/internal/sandbox/schemas"
import { decodeUnknownResult, fromResult, NoSuchElement, Result, Service } from "#edition/internal/seam"
import type { DurationInput, HttpServerRequest, HttpServerResponse, SchemaError } from "#edition/internal/seam"
import { Clock, Duration, Effect, Schema } from "effect"
import { nestingRefusal } from "../../core/sandbox/checks.js"
import { applies, enqueue } from "../../core/sandbox/faultMatch.js"
import type { RequestFilter } from "../../core/sandbox/faultMatch.js"
import { contents, noMatch } from "../../core/sandbox/journal.js"
import type { Journal } from "../../core/sandbox/journal.js"
import * as Register from "../../core/sandbox/register.js"
import type { SearchIndex } from "../../core/sandbox/searchIndex.js"
import { nonNegative } from "../optionChecks.js"
import { pointerErrors } from "../validation.js"
import * as State from "./State.js"

/**
 * `touch` was given numbers of designs the sandbox does not hold: it touched none.
 * @since 0.3.0
 * @category errors
 */
export class UnknownDesignsError extends Schema.TaggedError<UnknownDesignsError>()("UnknownDesignsError", {
  numbers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const more = this.numbers.length > 20 ? ` and ${this.numbers.length - 20} more` : ""
    return `no design numbered ${this.numbers.slice(0, 20).join(", ")}${more}`
  }
}

/**
 * Drives a sandbox from a test or a tool.
 * @since 0.1.0
 * @category models
 */
export interface Control {
  /**
   * Serves a fault to the next `times` (or `count`) requests to its target that its `match` names,
   * after letting `after` of them through (faults apply in injection order); fails on a malformed fault.
   */
  readonly injectFault: (fault: typeof State.Fault.Encoded) => Effect.Effect<void, SchemaError>
  /** Revokes every token issued so far: the API answers them with 401. Never fails. */
  readonly revokeTokens: Effect.Effect<void>
  /** The sandbox's counters: tokens issued, requests per endpoint, abandoned answers. Never fails. */
  readonly stats: Effect.Effect<State.Stats>
  /** Drops faults, tokens, counters and the journal. Never fails. */
  readonly reset: Effect.Effect<void>
  /**
   * The journal, only the requests `filter` names if given, read as stored, masked (`core/sandbox/journal.ts`
   * says what an entry keeps). Fails on a malformed filter, as `injectFault` on a malformed `match`,
   * and on a `body` field named as a credential, which the journal keeps as `[redacted]`.
   */
  readonly requests: (
    filter?: RequestFilter<State.Endpoint>
  ) => Effect.Effect<Journal<State.Entry>, SchemaError>
  /**
   * The last journaled request `filter` names: a one-line assertion in a test. Fails with a `NoSuchElementException`
   * (`NoSuchElementError` in Effect 4) naming the filter and the last request received, or on a malformed filter.
   */
  readonly expectRequest: (
    filter: RequestFilter<State.Endpoint>
  ) => Effect.Effect<State.Entry, NoSuchElement | SchemaError>
  /**
   * Changes designs as the register would: appends " (amended)" to each title and sets its
   * `lastChanged` to today (UTC midnight, by the sandbox's clock), so searches by `changedSinceDate`
   * find it. Fails with `UnknownDesignsError`, touching none, if a number is not in the sandbox, and
   * on anything but a list of strings.
   */
  readonly touch: (numbers: ReadonlyArray<string>) => Effect.Effect<void, UnknownDesignsError | SchemaError>
  /**
   * Moves the register on by `duration` (docs/library.md, "A register that moves on"), each design changed
   * with `lastChanged` the day of its change; from then on it moves with the sandbox's `Clock` too. Succeeds
   * with how many designs each event changed; fails on a duration negative, infinite or unreadable.
   */
  readonly advance: (duration: DurationInput) => Effect.Effect<Register.Summary, SchemaError>
}

/**
 * The `Control` of the sandbox behind `Sandbox.layer`.
 * @since 0.1.0
 * @category tags
 */
export class SandboxControl extends Service<SandboxControl, Control>()("effect-design-search/SandboxControl") {}

/** An app answering the sandbox's requests: a response to every request (`HttpApp.Default` in Effect 3). */
export type App = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>

/**
 * A sandbox: its app, its control, and the credentials it accepts.
 * @since 0.1.0
 * @category models
 */
export interface Sandbox {
  readonly app: App
  readonly control: Control
  readonly clientId: string
  readonly clientSecret: string
  readonly designCount: number
}

/**
 * `decode` run when the effect runs, after a refusal of a value nested too deep to show
 * (`nestingRefusal`: the `deepFields` as deep as the journal's), naming the field in its message, and
 * as its path if `pointed` (a 422's pointer); a getter or a Proxy trap that throws fails it too.
 */
export const guarded = <A>(
  decode: (input: unknown) => Result<A, SchemaError>,
  deepFields: ReadonlyArray<string> = [],
  pointed = false
) =>
(input: unknown) =>
  Effect.flatMap(
    Effect.try({
      try: () => {
        const deep = nestingRefusal(input, deepFields)
        if (deep !== undefined) return Result.fail(refused(deep.message, pointed ? deep.path : []))
        // in process, the problems told as a 422 tells them, each value bounded: not the value whole
        return pointed ? decode(input) : Result.mapError(decode(input), (e) => refused(told(e)))
      },
      catch: unreadable
    }),
    fromResult
  )
/** A decode's problems in one text: each at its JSON Pointer, with the offending value bounded. */
const told = (error: SchemaError) =>
  pointerErrors(error).map(({ detail, source }) => `${source?.pointer || "the input"}: ${detail}`).join("; ")

/** A fault's `body`, which it sends, may nest as deep as the journal keeps. */
const decodeFault = guarded(decodeUnknownResult(State.Fault, State.strict), ["body"])
const decodeFilter = guarded(decodeUnknownResult(State.RequestFilter, State.strict))
const decodeNumbers = guarded(decodeUnknownResult(Schema.Array(Schema.String), State.strict))

/** A duration's milliseconds: finite and not negative, whatever a caller passed. */
const decodeDuration = guarded((input) =>
  Result.map(Result.mapError(nonNegative("duration", input, Duration.zero), notDuration), Duration.toMillis)
)
const notDuration = () => refused("expected a finite duration of zero or more, such as \"10 days\" or milliseconds")

/** The control of a sandbox's `state`, of the designs of its `index` and of its `register` (none by default). */
export const make = (state: State.State, index: SearchIndex, register = Register.make(index, 0, [])): Control => {
  const matching = (filter: RequestFilter) => contents(state.journal).filter((entry) => applies(filter, entry))
  return {
    injectFault: (fault) => Effect.flatMap(decodeFault(fault), (f) => Effect.sync(() => enqueue(state.faults, f))),
    revokeTokens: Effect.sync(() => state.activeTokens.clear()),
    stats: Effect.sync(() => State.stats(state)),
    reset: Effect.asVoid(Effect.sync(() => [State.reset(state), register.reset()])),
    requests: (filter = {}) =>
      Effect.map(decodeFilter(filter), (decoded) => ({ entries: matching(decoded), dropped: state.journal.dropped })),
    expectRequest: (filter) =>
      Effect.flatMap(decodeFilter(filter), (decoded) => {
        const last = matching(decoded).at(-1)
        return last === undefined
          ? Effect.fail(new NoSuchElement(noMatch(decoded, contents(state.journal).at(-1))))
          : Effect.succeed(last)
      }),
    touch: (input) =>
      Effect.flatMap(Effect.zip(decodeNumbers(input), Clock.currentTimeMillis), ([numbers, now]) => {
        const unknown = index.touch(numbers, now)
        return unknown.length === 0 ? Effect.void : Effect.fail(new UnknownDesignsError({ numbers: unknown }))
      }),
    advance: (duration) =>
      Effect.flatMap(
        Effect.zip(decodeDuration(duration), Clock.currentTimeMillis),
        ([millis, now]) => Effect.sync(() => register.advance(millis, now))
      )
  }
}
