/** The sandbox's mutable state (faults waiting, tokens in force, counters), changed only in `Effect.sync`. */
import { Schema } from "effect"
import type { Types } from "effect"

/**
 * What a fault applies to: an endpoint (`search` is the quick search, `advanced` the advanced
 * search, `page` the paged one), or all of them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FaultTarget = Schema.Literal("token", "search", "design", "advanced", "page", "any")

/**
 * @since 0.1.0
 * @category models
 */
export type FaultTarget = typeof FaultTarget.Type

/** The endpoints the sandbox counts. */
export type Endpoint = Exclude<FaultTarget, "any">

/** Header names the transport computes itself: a fault may not set them. */
const reservedHeaders = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade"])

/** A header a fault may send: an HTTP token for a name, visible Latin-1 text for a value. */
const FaultHeaders = Schema.Record({
  key: Schema.String.pipe(
    Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: () => "expected an HTTP header name" }),
    Schema.filter((name) => !reservedHeaders.has(name.toLowerCase()) || `${name} is set by the server itself`)
  ),
  value: Schema.String.pipe(
    Schema.pattern(/^[\t\x20-\x7e\x80-\xff]*$/, { message: () => "expected a header value without control characters" })
  )
})

/** How deep a fault's JSON body may nest: deeper, writing (and describing) it would overflow the stack. */
const maxFaultBodyNesting = 1000

/** Whether a fault body nests little enough, looked at with a stack of its own. */
const writable = (body: unknown): boolean => {
  const stack: Array<readonly [unknown, number]> = [[body, 0]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth] = next
    if (typeof v !== "object" || v === null) continue
    if (depth >= maxFaultBodyNesting) return false
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1])
  }
  return true
}

/**
 * A fault: the next `count` requests to `target` get `status` with `body` (a string is sent as is,
 * anything else as JSON; absent, a spec-shaped error for the status) and `headers`, after
 * `delayMs` on the sandbox's clock, answered as `kind` says.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Fault = Schema.Struct({
  target: FaultTarget,
  /** `reset` drops the connection before any response; `resetMidBody` after the headers and half the body. */
  kind: Schema.optional(Schema.Literal("respond", "reset", "resetMidBody")),
  status: Schema.Int.pipe(Schema.between(200, 599)),
  count: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000_000)), { default: () => 1 }),
  body: Schema.optional(Schema.Unknown),
  headers: Schema.optional(FaultHeaders),
  delayMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 600_000)))
}).pipe(
  Schema.filter((fault) =>
    fault.body !== undefined && (fault.status === 204 || fault.status === 304)
      ? { path: ["body"], message: `a ${fault.status} answer has no body` }
      : writable(fault.body) ||
        {
          path: ["body"],
          message: `a body nests at most ${maxFaultBodyNesting} levels as JSON; send a deeper one as a string`
        }
  )
)

/**
 * @since 0.1.0
 * @category models
 */
export type Fault = typeof Fault.Type

/**
 * Counters of the sandbox's work.
 *
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

export interface State {
  /** Faults in the order they were injected; a fault leaves once its count is spent. */
  faults: Array<{ fault: Fault; remaining: number }>
  /** `jti` of every token in force: revocation empties it. */
  readonly activeTokens: Set<string>
  counts: Types.DeepMutable<Stats>
}

const zero = (): State["counts"] => ({
  tokensIssued: 0,
  requests: { token: 0, search: 0, design: 0, advanced: 0, page: 0 },
  abandoned: 0
})

export const make = (): State => ({ faults: [], activeTokens: new Set(), counts: zero() })

/** Drops faults, tokens and counters; error and token ids keep counting, so they stay unique. */
export const reset = (state: State): void => {
  state.faults = []
  state.activeTokens.clear()
  state.counts = zero()
}

export const stats = ({ counts }: State): Stats => ({ ...counts, requests: { ...counts.requests } })

/**
 * Where every routed request passes: it is counted, and takes one use of the first fault that
 * applies to it, if any.
 */
export const receive = (state: State, endpoint: Endpoint): Fault | undefined => {
  state.counts.requests[endpoint]++
  const index = state.faults.findIndex(({ fault }) => fault.target === endpoint || fault.target === "any")
  if (index < 0) return undefined
  const entry = state.faults[index]!
  if (--entry.remaining === 0) state.faults.splice(index, 1)
  return entry.fault
}

/** How the app asks its transport to drop the connection: `reset`, or `reset-mid-body` after half the body. */
export const resetHeader = "x-sandbox-reset"
