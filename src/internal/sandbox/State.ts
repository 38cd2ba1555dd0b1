/** The sandbox's mutable state (faults waiting, tokens in force, counters, journal), changed only in `Effect.sync`. */
import { literals, union } from "#edition/internal/domainSchemas"
import * as Schemas from "#edition/internal/sandbox/schemas"

import { Schema } from "effect"
import type { Types } from "effect"
import { faultBodyProblems, faultHeaderProblem, maxDelayMs } from "../../core/sandbox/checks.js"
import { faultQueue, fieldPathProblem, misplaced, take } from "../../core/sandbox/faultMatch.js"
import type { FaultQueue, Seen } from "../../core/sandbox/faultMatch.js"
import { credentialName, push, ring } from "../../core/sandbox/journal.js"
import type { JournalEntry, Ring, Writable } from "../../core/sandbox/journal.js"
import { endpoints } from "../../core/wire/service.js"
import type { Endpoint } from "../../core/wire/service.js"
import { parseOptions } from "../schemaIssues.js"

/**
 * What a fault applies to: an endpoint (`search` is the quick search, `advanced` the advanced
 * search, `page` the paged one), or all of them.
 * @since 0.1.0
 * @category schemas
 */
export const FaultTarget = literals(...endpoints, "any")

/**
 * @since 0.1.0
 * @category models
 */
export type FaultTarget = typeof FaultTarget.Type

/** The endpoints the sandbox counts. */
export type { Endpoint }

/**
 * A header a fault may send: an HTTP token for a name, visible Latin-1 text for a value. Records check their keys
 * (`checkedRecord`): Effect's `Record` calls a bad key just unexpected, and takes `__proto__` for the prototype.
 */
const FaultHeaders = Schemas.checkedRecord(
  Schemas.matching(/^[\t\x20-\x7e\x80-\xff]*$/, "expected a header value without control characters"),
  faultHeaderProblem
)

const Scalar = union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)

/** The fields of a body a fault or a journal query names, by path, each with the value it must have. */
const BodyMatch = Schemas.checkedRecord(Scalar, fieldPathProblem)

/**
 * The body fields a journal query names: none named as a credential, since the journal keeps its
 * value as `[redacted]` (`core/sandbox/journal.ts`) and a filter on it could never match.
 */
const FilterBodyMatch = Schemas.checkedRecord(
  Scalar,
  (key) =>
    fieldPathProblem(key) ?? (key.split(/[.[\]]/).some((name) => credentialName.test(name))
      ? `${key} names a credential, which the journal keeps as [redacted]: no filter on it can match`
      : undefined)
)

/** What a fault or a journal query names beside its target (`core/sandbox/faultMatch.ts`); every field given must hold. */
const matchFields = {
  path: Schema.optional(Schema.String),
  designNumber: Schema.optional(Schema.String),
  pageNumber: Schema.optional(Schemas.NonNegativeInt),
  body: Schema.optional(BodyMatch)
}

/**
 * Which requests of the journal to read (`SandboxControl.requests`): a target and the fields of a
 * fault's `match`.
 */
export const RequestFilter = Schemas.refined(
  Schema.Struct({ target: Schema.optional(FaultTarget), ...matchFields, body: Schema.optional(FilterBodyMatch) }),
  ({ target, ...match }) => misplaced(target, match)
)

/** `RequestFilter` as the query of `GET /__sandbox/requests`: `pageNumber` a number in text, `body` JSON. */
export const RequestQuery = Schemas.refined(
  Schema.Struct({
    target: Schema.optional(FaultTarget),
    ...matchFields,
    pageNumber: Schema.optional(Schemas.numberText(Schemas.NonNegativeInt)),
    body: Schema.optional(Schemas.jsonText(FilterBodyMatch))
  }),
  ({ target, ...match }) => misplaced(target, match)
)

/** How faults and journal queries are decoded: every problem (in Effect 4 with its value), no field unknown. */
export const strict = { ...parseOptions, onExcessProperty: "error" } as const

const Uses = Schemas.between(1, 1_000_000)

/**
 * A fault: after letting `after` requests through, the next `times` (or `count`) requests to
 * `target` that `match` names get `status` with `body` (a string is sent as is, anything else as
 * JSON, which must write it as it is; absent, a spec-shaped error for the status) and `headers`
 * (none the transport sets), after `delayMs` on the sandbox's clock, answered as `kind` says.
 * @since 0.1.0
 * @category schemas
 */
export const Fault = Schemas.refined(
  Schema.Struct({
    target: FaultTarget,
    /** `reset` drops the connection before any response; `resetMidBody` after the headers and half the body. */
    kind: Schema.optional(literals("respond", "reset", "resetMidBody")),
    status: Schemas.between(200, 599),
    count: Schemas.withDefault(Uses, 1),
    /** Another name for `count`; when given, it is the one used. */
    times: Schema.optional(Uses),
    after: Schema.optional(Schemas.between(0, 1_000_000)),
    match: Schema.optional(Schema.Struct(matchFields)),
    body: Schema.optional(Schema.Unknown),
    headers: Schema.optional(FaultHeaders),
    delayMs: Schema.optional(Schemas.between(0, maxDelayMs))
  }),
  (fault) => [...faultBodyProblems(fault.status, fault.body), ...misplaced(fault.target, fault.match ?? {}, ["match"])]
)

/**
 * @since 0.1.0
 * @category models
 */
export type Fault = typeof Fault.Type

/**
 * Counters of the sandbox's work.
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly tokensIssued: number
  /** Requests per endpoint: `search` the quick search, `advanced` the advanced one, `page` the paged one. */
  readonly requests: { readonly [E in Endpoint]: number }
  /** Requests whose client went away (an interrupted call, a closed socket) before the answer. */
  readonly abandoned: number
}

/**
 * A request the sandbox received (`core/sandbox/journal.ts` says what it keeps of it).
 * @since 0.3.0
 * @category models
 */
export type Entry = JournalEntry<Endpoint, Fault>

export interface State {
  faults: FaultQueue<Fault>
  journal: Ring<Writable<Entry>>
  /** `jti` of every token in force: revocation empties it. */
  readonly activeTokens: Set<string>
  counts: Types.DeepMutable<Stats>
}

const zero = (): State["counts"] => ({
  tokensIssued: 0,
  requests: { token: 0, search: 0, design: 0, advanced: 0, page: 0 },
  abandoned: 0
})

export const make = (journalSize: number, journalBytes: number): State => ({
  faults: faultQueue(),
  journal: ring(journalSize, journalBytes),
  activeTokens: new Set(),
  counts: zero()
})

/** Drops faults, tokens, counters and the journal; error and token ids keep counting, so they stay unique. */
export const reset = (state: State): void => {
  state.faults = faultQueue()
  state.journal = ring(state.journal.size, state.journal.bytes)
  state.activeTokens.clear()
  state.counts = zero()
}

export const stats = ({ counts }: State): Stats => ({ ...counts, requests: { ...counts.requests } })

/**
 * Where every request passes: when routed, it is counted and takes one use of the fault that
 * answers it as it arrived (`seen`, raw, never kept), if any. Its masked entry, made knowing whether
 * a fault answers (`entryOf`), is journaled naming the fault, weighed as its JSON text with room for
 * the status to come and a comma: the journal as JSON is at most `journalBytes` and a few characters.
 */
export const receive = (
  state: State,
  target: Endpoint | undefined,
  seen: Seen,
  entryOf: (answered: boolean) => Writable<Entry>
): { readonly entry: Writable<Entry>; readonly fault: Fault | undefined } => {
  if (target !== undefined) state.counts.requests[target]++
  const queued = take(state.faults, seen)
  const entry = entryOf(queued !== undefined)
  if (queued !== undefined) entry.fault = { index: queued.index, fault: queued.fault }
  push(state.journal, entry, Buffer.byteLength(JSON.stringify(entry)) + `,"status":200,`.length)
  return { entry, fault: queued?.fault }
}

/** How the app asks its transport to drop the connection: `reset`, or `reset-mid-body` after half the body. */
export const resetHeader = "x-sandbox-reset"
