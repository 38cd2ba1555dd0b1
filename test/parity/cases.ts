/**
 * The parity table: what both editions must do, as plain data (no `effect` import): one table that
 * `test/parity.test.ts` runs in the Effect 3 suite and in the Effect 4 suite.
 * Each case names its kind; the runner maps every kind to its own runner, and checks it ran them all.
 * Outcomes are compared by `_tag`, our own fields and counts: never by the classes' own printing.
 * Time is the test clock's; a case's sandbox and client are its own.
 */
import { fixedNumbers } from "../../src/core/sandbox/dataset.js"
import type { Endpoint } from "../../src/core/wire/service.js"
import { scenarios } from "./sandbox-requests.js"

export type { Endpoint }

const minute = 60_000
const hour = 60 * minute
const chair = fixedNumbers.chair

/** A fault as `SandboxControl.injectFault` takes it. */
export interface FaultSpec {
  readonly target: Endpoint | "any"
  readonly status: number
  readonly kind?: "respond" | "reset" | "resetMidBody"
  readonly count?: number
  readonly delayMs?: number
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** What a case changes of the sandbox (`Sandbox.Options`), in plain units. */
export interface SandboxSpec {
  readonly designs?: number
  readonly tokenLifetimeSeconds?: number
  readonly resultCap?: number
}

/** What a case changes of the configuration pointing at the sandbox, in plain units. */
export interface ConfigSpec {
  readonly clientSecret?: string
  readonly maxBodyBytes?: number
  readonly refreshBeforeMs?: number
  readonly expirySkewMs?: number
}

/** Requests the sandbox counted, per endpoint (endpoints left out are not checked). */
export type Requests = Partial<Readonly<Record<Endpoint, number>>>

/**
 * How a call ended: `Success` with what it gave (a token's type, a design's number, a quick
 * search's numbers joined by commas, an advanced search's or a page's count), or an error's `_tag` and its fields. A field whose value is a
 * `Duration` is compared in milliseconds under its own name with `Ms` appended (`retryAfterMs`);
 * `detailIncludes` checks a part of `detail`.
 */
export type Outcome =
  | { readonly _tag: "Success"; readonly value: string }
  | {
    readonly _tag: string
    readonly fields?: Readonly<Record<string, string | number>>
    readonly detailIncludes?: string
  }

/**
 * A call a case makes: a token from `TokenService`, or an operation of `DesignSearchClient` (an
 * advanced search or a page of one with the request as given, checked or not).
 */
export type Call =
  | { readonly op: "token" }
  | { readonly op: "getDesign"; readonly number: string }
  | { readonly op: "quickSearch"; readonly query: string }
  | { readonly op: "advancedSearch"; readonly request: unknown }
  | { readonly op: "searchPage"; readonly request: unknown }

/**
 * The clock moved by `advanceMs` while the call runs; then, if `stillRunning`, the call has not
 * ended, and the requests counted so far. After the last step the call ends without more time.
 */
export interface Step {
  readonly advanceMs: number
  readonly stillRunning?: true
  readonly requests?: Requests
}

/** One call of a fault case: what is done to the sandbox before it, the call, time passing, how it ends. */
export interface FaultCall {
  readonly faults?: ReadonlyArray<FaultSpec>
  readonly revokeTokens?: boolean
  readonly call: Call
  readonly steps?: ReadonlyArray<Step>
  readonly outcome: Outcome
}

/**
 * The fault matrix: each fault the sandbox simulates, the typed outcome, and the exact number of
 * requests it costs. `recordRetries` gives the client (or the token service, for token calls) a
 * schedule of three retries that records the status of each failure it is stepped with: `seen`.
 */
export interface FaultCase {
  readonly kind: "fault"
  readonly name: string
  /** The test clock's time when the case starts, in epoch milliseconds (default 0). */
  readonly startAt?: number
  readonly sandbox?: SandboxSpec
  readonly config?: ConfigSpec
  readonly recordRetries?: "token" | "client"
  readonly calls: ReadonlyArray<FaultCall>
  readonly seen?: ReadonlyArray<number>
  readonly requests: Requests
}

/** A step of the token economy: calls, time, the sandbox, and what the counters say at that point. */
export type EconomyStep =
  /** `count` calls to `TokenService.get`, all at once or one after the other. */
  | { readonly do: "get"; readonly count: number; readonly concurrent: boolean }
  /** `count` calls to `getDesign(chair)`, the clock moved by `everyMs` after each. */
  | { readonly do: "getDesign"; readonly count: number; readonly everyMs: number }
  /** `count` calls to `TokenService.get` at once, `afterMs` from now, left running until `joinGets`. */
  | { readonly do: "spawnGets"; readonly count: number; readonly afterMs: number }
  | { readonly do: "joinGets" }
  | { readonly do: "advance"; readonly ms: number }
  /** Closes the scope the token service was built in: its refresh stops. */
  | { readonly do: "closeScope" }
  | { readonly do: "revokeTokens" }
  | { readonly do: "fault"; readonly fault: FaultSpec }
  /**
   * The sandbox's counters, `TokenService.stats` and how many distinct tokens the gets so far
   * returned (each left out is not checked); `tokenRequestsBetween` bounds the token requests.
   */
  | {
    readonly do: "expect"
    readonly requests?: Requests
    readonly tokenRequestsBetween?: readonly [number, number]
    readonly tokensIssued?: number
    readonly service?: Partial<Readonly<Record<"tokenRequests" | "waits" | "refreshes" | "sharedTokens", number>>>
    readonly distinctTokens?: number
  }

/** The token economy: how many tokens a workload costs (cold herd, a day of traffic, idle hours, renewal). */
export interface EconomyCase {
  readonly kind: "tokenEconomy"
  readonly name: string
  readonly sandbox?: SandboxSpec
  readonly config?: ConfigSpec
  readonly steps: ReadonlyArray<EconomyStep>
}

/** A search the paging cases stream: every design of the dataset, or none. */
export const pagingSearches = {
  every: { rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }] },
  none: { rows: [{ op: "AND", query: { designNumber: "000000000" } }] }
} as const

/** One `advancedDesigns` stream of a paging case, and what it cost and told. */
export interface PagingStream {
  readonly faults?: ReadonlyArray<FaultSpec>
  readonly options: { readonly pageSize?: number; readonly startPage?: number; readonly concurrency?: number }
  /** Whether the stream has an `onNotFound`, which records the numbers it is told. */
  readonly onNotFound?: boolean
  /**
   * Success: the designs emitted are the advanced search's numbers from `from` (default 0), less
   * the first `notFound` of them (told to `onNotFound`), `count` in all. Failure: an error's `_tag`,
   * and the `source.parameter` of its first error object where given.
   */
  readonly outcome:
    | { readonly _tag: "Success"; readonly count: number; readonly from?: number; readonly notFound?: number }
    | { readonly _tag: string; readonly parameter?: string }
  /** Requests this stream made, per endpoint (all five checked). */
  readonly requests: Readonly<Record<Exclude<Endpoint, "token">, number>>
  /** What `onPage` was told: the page numbers, and of every page `fallback`, `pages` and `count`. */
  readonly told?: {
    readonly pageNumbers: ReadonlyArray<number>
    readonly fallback: boolean
    readonly pages: number
    readonly count: number
    /** The codes of the first page's messages, and a part of the first one's detail. */
    readonly firstCodes?: ReadonlyArray<string>
    readonly firstDetailIncludes?: string
  }
}

/** Paging and its fallback: `advancedDesigns` over one client, its streams in order. */
export interface PagingCase {
  readonly kind: "paging"
  readonly name: string
  readonly sandbox: SandboxSpec
  readonly search: keyof typeof pagingSearches
  /** The client retries nothing (`retrySchedule` that stops at once). */
  readonly noRetry: boolean
  readonly streams: ReadonlyArray<PagingStream>
}

/** Criteria a mirror case syncs. */
export const mirrorCriteria = {
  every: pagingSearches.every,
  /** Designs last changed before December: a touch takes a design out. */
  unchangedBeforeDecember: { rows: [{ op: "AND", query: { date: { type: "LAST_CHANGED", to: "2026-11-30" } } }] }
} as const

/** What a mirror case's sync ended with, as the runners compare it. */
export type SyncOutcome =
  | { readonly report: Readonly<Record<string, unknown>> }
  | { readonly failure: string }
  | { readonly interrupted: true }

/** A step of a mirror case, on PostgreSQL, the clock starting at 1 December 2026, 09:00 UTC. */
export type MirrorStep =
  /**
   * A sync of `criteria`, after `faults`: fields of its report, or the `_tag` of its failure, or
   * `interrupted` (by its `onProgress`, once `interruptAtCommitted` designs are committed); and the
   * API requests it made, where given.
   */
  | {
    readonly do: "sync"
    readonly criteria: keyof typeof mirrorCriteria
    readonly faults?: ReadonlyArray<FaultSpec>
    readonly concurrency?: number
    readonly interruptAtCommitted?: number
    readonly report?: Readonly<Record<string, string | number | boolean>>
    readonly failure?: string
    readonly interrupted?: true
    readonly requests?: number
  }
  /**
   * `DesignMirror.state` of `criteria`: its watermark (`null` for none) and whether a run is in
   * progress (not checked when left out).
   */
  | {
    readonly do: "state"
    readonly criteria: keyof typeof mirrorCriteria
    readonly watermark: string | null
    readonly inProgress?: boolean
  }
  | { readonly do: "advanceDays"; readonly days: number }
  /** `SandboxControl.touch` of the stored designs at these places (rows ordered by number). */
  | { readonly do: "touch"; readonly rows: ReadonlyArray<number> }
  /**
   * The stored rows: how many, which (by place) are not `current` and in which state, and which
   * records differ from those stored when the last `touch` was done.
   */
  | {
    readonly do: "rows"
    readonly count: number
    readonly notCurrent: ReadonlyArray<readonly [number, string]>
    readonly changedSinceTouch?: ReadonlyArray<number>
  }

/** The outcome a sync step expects. */
export const expectedSync = (step: Extract<MirrorStep, { readonly do: "sync" }>): SyncOutcome =>
  step.report !== undefined
    ? { report: step.report }
    : step.failure !== undefined
    ? { failure: step.failure }
    : { interrupted: true }

/** The mirror's incremental sync, its reports and request counts. */
export interface MirrorCase {
  readonly kind: "mirrorSync"
  readonly name: string
  readonly designs: number
  readonly steps: ReadonlyArray<MirrorStep>
}

/** A scenario of raw requests replayed through the in-process sandbox, answered as the transcript says. */
export interface SandboxBytesCase {
  readonly kind: "sandboxBytes"
  readonly name: string
  /** The scenario of `sandbox-requests.ts`, and its key in the transcript. */
  readonly scenario: string
}

export type Case = FaultCase | EconomyCase | PagingCase | MirrorCase | SandboxBytesCase

export type CaseKind = Case["kind"]

/** The case of kind `K`. */
export type CaseOf<K extends CaseKind> = Extract<Case, { readonly kind: K }>

const tokenUnavailable = (status: number): FaultCase => ({
  kind: "fault",
  name: `token endpoint ${status} every time: Unavailable after the first try and four retries`,
  calls: [{
    faults: [{ target: "token", status, count: 100 }],
    call: { op: "token" },
    steps: [{ advanceMs: 10 * minute }],
    outcome: { _tag: "TokenError", fields: { reason: "Unavailable", status } }
  }],
  requests: { token: 5 }
})

const apiUnavailable = (status: number): FaultCase => ({
  kind: "fault",
  name: `search ${status} every time: ServerError after the first try and three retries`,
  calls: [{
    faults: [{ target: "search", status, count: 100 }],
    call: { op: "quickSearch", query: "chair" },
    steps: [{ advanceMs: minute }],
    outcome: { _tag: "ServerError", fields: { status } }
  }],
  requests: { search: 4 }
})

const invalidCredentials = (status: number): FaultCase => ({
  kind: "fault",
  name: `an RFC 6749 error with ${status}: InvalidCredentials after exactly one request`,
  calls: [{
    faults: [{ target: "token", status, body: { error: "invalid_client" } }],
    call: { op: "token" },
    outcome: { _tag: "TokenError", fields: { reason: "InvalidCredentials", status, error: "invalid_client" } }
  }],
  requests: { token: 1 }
})

const resetEveryTime = (kind: "reset" | "resetMidBody"): FaultCase => ({
  kind: "fault",
  name: `${kind} at the API every time: TransportError after the first try and three retries`,
  calls: [{
    faults: [{ target: "design", kind, status: 200, count: 100, body: { number: chair, title: "Chair" } }],
    call: { op: "getDesign", number: chair },
    steps: [{ advanceMs: minute }],
    outcome: { _tag: "TransportError", fields: { reason: kind === "reset" ? "Network" : "Body" } }
  }],
  requests: { design: 4 }
})

const resetOnce = (kind: "reset" | "resetMidBody"): FaultCase => ({
  kind: "fault",
  name: `${kind} at the API once: the retry succeeds`,
  calls: [{
    faults: [{ target: "design", kind, status: 200, body: { number: chair, title: "Chair" } }],
    call: { op: "getDesign", number: chair },
    steps: [{ advanceMs: minute }],
    outcome: { _tag: "Success", value: chair }
  }],
  requests: { design: 2 }
})

const html = "<html>Service Unavailable</html>"

const faultCases: ReadonlyArray<FaultCase> = [
  ...[500, 502, 503, 504, 429, 408].map(tokenUnavailable),
  {
    kind: "fault",
    name: "a token endpoint that never answers: each try times out, Unavailable after five",
    calls: [{
      faults: [{ target: "token", status: 200, count: 100, delayMs: 600_000 }],
      call: { op: "token" },
      steps: [{ advanceMs: 30 * minute }],
      outcome: { _tag: "TokenError", fields: { reason: "Unavailable" }, detailIncludes: "no token response within 15s" }
    }],
    requests: { token: 5 }
  },
  {
    kind: "fault",
    name: "an HTML error page with 200 is InvalidResponse at once; with 503 it is Unavailable",
    calls: [
      {
        faults: [{ target: "token", status: 200, body: html, headers: { "content-type": "text/html" } }],
        call: { op: "token" },
        outcome: { _tag: "TokenError", fields: { reason: "InvalidResponse", status: 200 } }
      },
      {
        faults: [{ target: "token", status: 503, count: 100, body: html }],
        call: { op: "token" },
        steps: [{ advanceMs: 10 * minute }],
        outcome: { _tag: "TokenError", fields: { reason: "Unavailable", status: 503 } }
      }
    ],
    requests: { token: 6 }
  },
  ...[400, 401].map(invalidCredentials),
  {
    kind: "fault",
    name: "token 429 every time with Retry-After 20: Unavailable after four retries, each waiting it",
    calls: [{
      faults: [{ target: "token", status: 429, count: 100, headers: { "retry-after": "20" } }],
      call: { op: "token" },
      steps: [
        { advanceMs: 79_000, stillRunning: true, requests: { token: 4 } },
        { advanceMs: 1000 }
      ],
      outcome: { _tag: "TokenError", fields: { reason: "Unavailable", status: 429, retryAfterMs: 20_000 } }
    }],
    requests: { token: 5 }
  },
  {
    kind: "fault",
    name: "a custom retrySchedule of the token service is stepped only with transient failures",
    recordRetries: "token",
    calls: [
      {
        faults: [{ target: "token", status: 400 }, { target: "token", status: 404 }, { target: "token", status: 503 }],
        call: { op: "token" },
        outcome: { _tag: "TokenError", fields: { reason: "InvalidCredentials" } }
      },
      { call: { op: "token" }, outcome: { _tag: "TokenError", fields: { reason: "InvalidResponse" } } },
      { call: { op: "token" }, steps: [{ advanceMs: 1000 }], outcome: { _tag: "Success", value: "Bearer" } }
    ],
    seen: [503],
    requests: { token: 4 }
  },
  {
    kind: "fault",
    name: "a huge token body is refused without reading it: InvalidResponse after one request",
    config: { maxBodyBytes: 4096 },
    calls: [{
      faults: [{
        target: "token",
        status: 200,
        body: { access_token: "x".repeat(5000), expires_in: 3600, token_type: "Bearer" }
      }],
      call: { op: "token" },
      outcome: {
        _tag: "TokenError",
        fields: { reason: "InvalidResponse", status: 200 },
        detailIncludes: "exceeds the cap"
      }
    }],
    requests: { token: 1 }
  },
  {
    kind: "fault",
    name: "a connection reset at the token endpoint every time: Unavailable after the first try and four retries",
    calls: [{
      faults: [{ target: "token", kind: "reset", status: 200, count: 100 }],
      call: { op: "token" },
      steps: [{ advanceMs: 10 * minute }],
      outcome: { _tag: "TokenError", fields: { reason: "Unavailable" } }
    }],
    requests: { token: 5 }
  },
  {
    kind: "fault",
    name: "a connection reset once at the token endpoint is retried and the token arrives",
    calls: [{
      faults: [{ target: "token", kind: "reset", status: 200 }],
      call: { op: "token" },
      steps: [{ advanceMs: minute }],
      outcome: { _tag: "Success", value: "Bearer" }
    }],
    requests: { token: 2 }
  },
  ...[502, 503, 504].map(apiUnavailable),
  {
    kind: "fault",
    name: "search 500 is not retried",
    calls: [{
      faults: [{ target: "search", status: 500, count: 100 }],
      call: { op: "quickSearch", query: "chair" },
      outcome: { _tag: "ServerError", fields: { status: 500 } }
    }],
    requests: { search: 1 }
  },
  {
    kind: "fault",
    name: "a custom retrySchedule of the client is stepped only with transient failures",
    recordRetries: "client",
    calls: [
      { call: { op: "getDesign", number: "100000000" }, outcome: { _tag: "NotFoundError", fields: { status: 404 } } },
      {
        faults: [{ target: "design", status: 500 }, { target: "design", status: 403 }, {
          target: "design",
          status: 503
        }],
        call: { op: "getDesign", number: chair },
        outcome: { _tag: "ServerError", fields: { status: 500 } }
      },
      { call: { op: "getDesign", number: chair }, outcome: { _tag: "ForbiddenError", fields: { status: 403 } } },
      { call: { op: "getDesign", number: chair }, outcome: { _tag: "Success", value: chair } }
    ],
    seen: [503],
    requests: { design: 5 }
  },
  {
    kind: "fault",
    name: "search 429 every time with Retry-After 5: RateLimitError after three retries, each waiting it",
    calls: [{
      faults: [{ target: "search", status: 429, count: 100, headers: { "retry-after": "5" } }],
      call: { op: "quickSearch", query: "chair" },
      steps: [
        { advanceMs: 14_000, stillRunning: true, requests: { search: 3 } },
        { advanceMs: 1000 }
      ],
      outcome: { _tag: "RateLimitError", fields: { status: 429, retryAfterMs: 5000 } }
    }],
    requests: { search: 4 }
  },
  {
    kind: "fault",
    name: "design 429 once with Retry-After 20: the retry waits for it",
    calls: [{
      faults: [{ target: "design", status: 429, headers: { "retry-after": "20" } }],
      call: { op: "getDesign", number: chair },
      steps: [{ advanceMs: 19_000, stillRunning: true, requests: { design: 1 } }, { advanceMs: 1000 }],
      outcome: { _tag: "Success", value: chair }
    }],
    requests: { design: 2 }
  },
  {
    kind: "fault",
    name: "a Retry-After beyond the cap gives up at once with RateLimitError",
    calls: [{
      faults: [{ target: "design", status: 429, headers: { "retry-after": "3600" } }],
      call: { op: "getDesign", number: chair },
      outcome: { _tag: "RateLimitError", fields: { status: 429, retryAfterMs: 3_600_000 } }
    }],
    requests: { design: 1 }
  },
  {
    kind: "fault",
    name: "429 with Retry-After as an HTTP date waits until that date",
    startAt: Date.UTC(2026, 0, 1, 12, 0, 0),
    calls: [{
      faults: [{
        target: "design",
        status: 429,
        headers: { "retry-after": new Date(Date.UTC(2026, 0, 1, 12, 0, 20)).toUTCString() }
      }],
      call: { op: "getDesign", number: chair },
      steps: [{ advanceMs: 19_000, stillRunning: true }, { advanceMs: 1000 }],
      outcome: { _tag: "Success", value: chair }
    }],
    requests: { design: 2 }
  },
  {
    kind: "fault",
    name: "a wrong content type does not matter when the body is JSON; an HTML 200 is unexpected",
    calls: [
      {
        faults: [{
          target: "search",
          status: 200,
          body: JSON.stringify({ count: 1, designNumbers: [chair] }),
          headers: { "content-type": "text/plain" }
        }],
        call: { op: "quickSearch", query: "chair" },
        outcome: { _tag: "Success", value: chair }
      },
      {
        faults: [{
          target: "search",
          status: 200,
          body: "<html>Welcome</html>",
          headers: { "content-type": "text/html" }
        }],
        call: { op: "quickSearch", query: "chair" },
        outcome: { _tag: "UnexpectedResponseError", fields: { issue: "body is not JSON" } }
      }
    ],
    requests: { search: 2 }
  },
  ...(["reset", "resetMidBody"] as const).flatMap((kind) => [resetEveryTime(kind), resetOnce(kind)]),
  {
    kind: "fault",
    name: "a 401 with a revoked token: one new token, one retry, success",
    calls: [
      { call: { op: "getDesign", number: chair }, outcome: { _tag: "Success", value: chair } },
      { revokeTokens: true, call: { op: "getDesign", number: chair }, outcome: { _tag: "Success", value: chair } }
    ],
    requests: { token: 2, design: 3 }
  },
  {
    kind: "fault",
    name: "a second 401 is an AuthenticationError",
    calls: [{
      faults: [{ target: "design", status: 401, count: 2 }],
      call: { op: "getDesign", number: chair },
      outcome: { _tag: "AuthenticationError", fields: { status: 401 } }
    }],
    requests: { token: 2, design: 2 }
  },
  {
    kind: "fault",
    name: "a 403 is a ForbiddenError and asks for no new token",
    calls: [
      { call: { op: "getDesign", number: chair }, outcome: { _tag: "Success", value: chair } },
      {
        faults: [{ target: "design", status: 403, body: "Invalid Client" }],
        call: { op: "getDesign", number: chair },
        outcome: { _tag: "ForbiddenError", fields: { status: 403, excerpt: "Invalid Client" } }
      }
    ],
    requests: { token: 1, design: 2 }
  },
  {
    kind: "fault",
    name: "a request the client refuses is a client ValidationError pointing at each problem; nothing is sent",
    calls: [
      {
        call: {
          op: "advancedSearch",
          request: {
            rows: [
              { op: "XOR", query: { owner: "ltd" } },
              { op: "AND", query: {} },
              { op: "OR", query: { date: { type: "FILING", from: "2020-02-01", to: "2020-01-01" } } }
            ]
          }
        },
        outcome: { _tag: "ValidationError", fields: { origin: "client" } }
      },
      {
        call: { op: "advancedSearch", request: { rows: [] } },
        outcome: { _tag: "ValidationError", fields: { origin: "client" } }
      },
      {
        call: { op: "advancedSearch", request: { rows: [{ op: "AND", query: { owner: "ltd", extra: Number.NaN } }] } },
        outcome: { _tag: "ValidationError", fields: { origin: "client" } }
      },
      ...([[0, 0], [0, 101], [0, 1.5], [-1, 10], [0.5, 10], ["1", 10]] as const).map((
        [pageNumber, pageSize]
      ): FaultCall => ({
        call: {
          op: "searchPage",
          request: { rows: [{ op: "AND", query: { owner: "ltd" } }], pageNumber, pageSize }
        },
        outcome: { _tag: "ValidationError", fields: { origin: "client" } }
      })),
      { call: { op: "quickSearch", query: "" }, outcome: { _tag: "ValidationError", fields: { origin: "client" } } },
      {
        call: { op: "getDesign", number: "not a number!" },
        outcome: { _tag: "ValidationError", fields: { origin: "client" } }
      }
    ],
    requests: { token: 0, search: 0, design: 0, advanced: 0, page: 0 }
  },
  {
    kind: "fault",
    name: "bad credentials surface as TokenError InvalidCredentials from an API call",
    config: { clientSecret: "wrong" },
    calls: [{
      call: { op: "quickSearch", query: "chair" },
      outcome: { _tag: "TokenError", fields: { reason: "InvalidCredentials", status: 401, error: "invalid_client" } }
    }],
    requests: { token: 1, search: 0, design: 0, advanced: 0, page: 0 }
  }
]

const economyCases: ReadonlyArray<EconomyCase> = [
  {
    kind: "tokenEconomy",
    name: "cold herd: 100 concurrent cold gets cause exactly one token request",
    steps: [
      { do: "get", count: 100, concurrent: true },
      { do: "expect", requests: { token: 1 }, tokensIssued: 1, distinctTokens: 1 }
    ]
  },
  {
    kind: "tokenEconomy",
    // fetched at 0, refreshed at 59, 118 and 177 minutes (1 minute ahead of each 60-minute expiry)
    name: "steady traffic, one call a minute for 3 hours: refreshed about once an hour, one wait",
    steps: [
      { do: "getDesign", count: 180, everyMs: minute },
      { do: "expect", requests: { token: 4, design: 180 }, service: { refreshes: 3, waits: 1, tokenRequests: 4 } }
    ]
  },
  {
    kind: "tokenEconomy",
    // as above, for a day: fetched at 0, refreshed every 59 minutes, the last at 24 × 59 = 1416
    name: "a day of steady traffic, one call a minute: 25 token requests, one wait",
    steps: [
      { do: "getDesign", count: 1440, everyMs: minute },
      {
        do: "expect",
        requests: { token: 25, design: 1440 },
        service: { refreshes: 24, waits: 1, tokenRequests: 25 }
      }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "idle: one call then 3 idle hours makes no further token request; the next call fetches once",
    steps: [
      { do: "getDesign", count: 1, everyMs: 0 },
      { do: "advance", ms: 3 * hour },
      { do: "expect", requests: { token: 1 } },
      { do: "getDesign", count: 1, everyMs: 0 },
      { do: "expect", requests: { token: 2, design: 2 } }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "idle: a token used once after its fetch is refreshed once, then left to expire",
    steps: [
      { do: "get", count: 2, concurrent: false },
      { do: "advance", ms: 3 * hour },
      { do: "expect", requests: { token: 2 }, service: { refreshes: 1 } }
    ]
  },
  {
    kind: "tokenEconomy",
    // left open, the used token is refreshed at 59 minutes (the new one, unused, is not)
    name: "idle, the service left open: the used token is refreshed once in two hours",
    steps: [
      { do: "get", count: 2, concurrent: false },
      { do: "advance", ms: 2 * hour },
      { do: "expect", requests: { token: 2 } }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "idle, the service's scope closed: nothing runs in two hours",
    steps: [
      { do: "get", count: 2, concurrent: false },
      { do: "closeScope" },
      { do: "advance", ms: 2 * hour },
      { do: "expect", requests: { token: 1 } }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "short-lived tokens (5 s), one call a second for a minute: reused and refreshed ahead",
    sandbox: { tokenLifetimeSeconds: 5 },
    steps: [
      { do: "getDesign", count: 60, everyMs: 1000 },
      { do: "expect", requests: { design: 60 }, tokenRequestsBetween: [20, 30], service: { waits: 1 } }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "bad credentials: five concurrent gets share one refused request; the next get asks again",
    config: { clientSecret: "wrong" },
    steps: [
      { do: "get", count: 5, concurrent: true },
      { do: "expect", requests: { token: 1 }, tokensIssued: 0 },
      { do: "get", count: 1, concurrent: false },
      { do: "expect", requests: { token: 2 } }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "401 → renew: a revoked token costs one new token and one retry",
    steps: [
      { do: "getDesign", count: 1, everyMs: 0 },
      { do: "revokeTokens" },
      { do: "getDesign", count: 1, everyMs: 0 },
      { do: "expect", requests: { token: 2, design: 3 }, tokensIssued: 2 }
    ]
  },
  {
    kind: "tokenEconomy",
    // The refresh starts at 59 min 30 s, as the old token stops being handed out; its one slow try
    // fails after the callers have come, and four more 503s follow: their fifth try gets the token.
    name: "callers that wait on a refresh get every retry of a fetch of their own: a try and four retries",
    config: { refreshBeforeMs: 30_000, expirySkewMs: 30_000 },
    steps: [
      { do: "get", count: 2, concurrent: false },
      { do: "advance", ms: 3_569_000 },
      { do: "fault", fault: { target: "token", status: 503, delayMs: 2000 } },
      { do: "fault", fault: { target: "token", status: 503, count: 4 } },
      { do: "spawnGets", count: 3, afterMs: 2000 },
      { do: "advance", ms: minute },
      { do: "joinGets" },
      // the first fetch, the refresh's try, then one fetch's try and four retries
      { do: "expect", distinctTokens: 2, requests: { token: 7 }, service: { refreshes: 1 } }
    ]
  },
  {
    kind: "tokenEconomy",
    // refreshed from 59 min, handed out until 59 min 30 s: two slow 503s take that time, and a third
    // fails after it, while a caller waits; the retries it is owed follow
    name: "a refresh whose retries outlast the old token starts over for the callers that wait on it",
    steps: [
      { do: "get", count: 2, concurrent: false },
      { do: "fault", fault: { target: "token", status: 503, delayMs: 14_000 } },
      { do: "fault", fault: { target: "token", status: 503, delayMs: 14_000 } },
      { do: "fault", fault: { target: "token", status: 503, delayMs: 5000 } },
      { do: "advance", ms: 3_571_000 },
      { do: "spawnGets", count: 1, afterMs: 0 },
      { do: "advance", ms: minute },
      { do: "joinGets" },
      { do: "expect", distinctTokens: 2, requests: { token: 5 } }
    ]
  },
  {
    kind: "tokenEconomy",
    name: "a failed refresh retries while the old token is valid, callers keep the old one",
    steps: [
      { do: "get", count: 2, concurrent: false },
      { do: "fault", fault: { target: "token", status: 503, count: 2 } },
      { do: "advance", ms: 59 * minute },
      { do: "get", count: 1, concurrent: false },
      { do: "expect", distinctTokens: 1 },
      { do: "advance", ms: minute },
      { do: "get", count: 1, concurrent: false },
      { do: "expect", distinctTokens: 2, requests: { token: 4 }, service: { waits: 1 } }
    ]
  }
]

const pagingCases: ReadonlyArray<PagingCase> = [
  {
    kind: "paging",
    name: "240 designs by pages of 100, three at a time: three page requests, no get",
    sandbox: { designs: 240 },
    search: "every",
    noRetry: false,
    streams: [{
      options: { pageSize: 100, concurrency: 3 },
      outcome: { _tag: "Success", count: 240 },
      requests: { page: 3, advanced: 0, design: 0, search: 0 },
      told: { pageNumbers: [0, 1, 2], fallback: false, pages: 3, count: 240, firstCodes: [] }
    }]
  },
  {
    kind: "paging",
    name: "240 designs by pages of 7: 35 page requests",
    sandbox: { designs: 240 },
    search: "every",
    noRetry: false,
    streams: [{
      options: { pageSize: 7, concurrency: 3 },
      outcome: { _tag: "Success", count: 240 },
      requests: { page: 35, advanced: 0, design: 0, search: 0 },
      told: { pageNumbers: Array.from({ length: 35 }, (_, i) => i), fallback: false, pages: 35, count: 240 }
    }]
  },
  {
    kind: "paging",
    name: "resumed from page 2 of pages of 5: the designs from the tenth on, for the pages from there",
    sandbox: { designs: 240 },
    search: "every",
    noRetry: false,
    streams: [{
      options: { pageSize: 5, startPage: 2 },
      outcome: { _tag: "Success", count: 230, from: 10 },
      requests: { page: 46, advanced: 0, design: 0, search: 0 }
    }]
  },
  {
    kind: "paging",
    name: "no match: one request, one page told, nothing emitted",
    sandbox: { designs: 240 },
    search: "none",
    noRetry: false,
    streams: [{
      options: {},
      outcome: { _tag: "Success", count: 0 },
      requests: { page: 1, advanced: 0, design: 0, search: 0 },
      told: { pageNumbers: [0], fallback: false, pages: 0, count: 0 }
    }]
  },
  ...[403, 404, 405].map((status): PagingCase => ({
    kind: "paging",
    name: `a ${status} from the paged operation: an advanced search and a get each, asked once for the client's life`,
    sandbox: { designs: 240 },
    search: "every",
    noRetry: true,
    streams: [
      {
        faults: [{ target: "page", status, count: 1 }],
        options: { pageSize: 10 },
        outcome: { _tag: "Success", count: 240 },
        requests: { page: 1, advanced: 1, design: 240, search: 0 },
        told: {
          pageNumbers: Array.from({ length: 24 }, (_, i) => i),
          fallback: true,
          pages: 24,
          count: 240,
          firstCodes: ["PAGED_SEARCH_UNAVAILABLE"],
          firstDetailIncludes: `HTTP ${status}`
        }
      },
      {
        options: { pageSize: 10, startPage: 1 },
        outcome: { _tag: "Success", count: 230, from: 10 },
        requests: { page: 0, advanced: 1, design: 230, search: 0 },
        told: {
          pageNumbers: Array.from({ length: 23 }, (_, i) => i + 1),
          fallback: true,
          pages: 24,
          count: 240,
          firstCodes: ["PAGED_SEARCH_UNAVAILABLE"]
        }
      }
    ]
  })),
  {
    kind: "paging",
    name: "in the fallback, a design no longer found is told and left out; unheeded, it fails the stream",
    sandbox: { designs: 240 },
    search: "every",
    noRetry: true,
    streams: [
      {
        faults: [{ target: "page", status: 404, count: 1 }, { target: "design", status: 404, count: 1 }],
        options: { concurrency: 1 },
        onNotFound: true,
        outcome: { _tag: "Success", count: 239, notFound: 1 },
        requests: { page: 1, advanced: 1, design: 240, search: 0 }
      },
      {
        faults: [{ target: "design", status: 404, count: 1 }],
        options: { concurrency: 1 },
        outcome: { _tag: "NotFoundError" },
        requests: { page: 0, advanced: 1, design: 1, search: 0 }
      }
    ]
  },
  {
    kind: "paging",
    name: "a failure that is no refusal fails the stream, and nothing falls back",
    sandbox: { designs: 240 },
    search: "every",
    noRetry: true,
    streams: [
      {
        faults: [{ target: "page", status: 500, count: 1 }],
        options: { pageSize: 100 },
        outcome: { _tag: "ServerError" },
        requests: { page: 1, advanced: 0, design: 0, search: 0 }
      },
      {
        options: { pageSize: 100 },
        outcome: { _tag: "Success", count: 240 },
        requests: { page: 3, advanced: 0, design: 0, search: 0 }
      }
    ]
  },
  {
    kind: "paging",
    name: "bad options are a client ValidationError naming the option; nothing is sent",
    sandbox: { designs: 240 },
    search: "every",
    noRetry: false,
    streams: ([
      [{ pageSize: 0 }, "pageSize"],
      [{ pageSize: 101 }, "pageSize"],
      [{ startPage: -1 }, "startPage"],
      [{ startPage: 0.5 }, "startPage"],
      [{ concurrency: 0 }, "concurrency"]
    ] as const).map(([options, parameter]): PagingStream => ({
      options,
      outcome: { _tag: "ValidationError", parameter },
      requests: { page: 0, advanced: 0, design: 0, search: 0 }
    }))
  },
  {
    kind: "paging",
    name: "in the fallback, a search that lists fewer numbers than it counts says so",
    sandbox: { designs: 240, resultCap: 20 },
    search: "every",
    noRetry: true,
    streams: [{
      faults: [{ target: "page", status: 403 }],
      options: {},
      outcome: { _tag: "Success", count: 20 },
      requests: { page: 1, advanced: 1, design: 20, search: 0 },
      told: {
        pageNumbers: [0],
        fallback: true,
        // counted from the 20 numbers listed
        pages: 1,
        count: 240,
        firstCodes: ["PAGED_SEARCH_UNAVAILABLE", "FEWER_THAN_COUNTED", "RESULT_LIMIT"]
      }
    }]
  }
]

const designs = 240

const mirrorCases: ReadonlyArray<MirrorCase> = [
  {
    kind: "mirrorSync",
    name: "a first sync stores every design; a second with nothing changed makes two requests",
    designs,
    steps: [
      {
        do: "sync",
        criteria: "every",
        report: {
          full: true,
          resumed: false,
          watermark: "2026-12-01",
          searched: designs,
          matching: designs,
          fetched: designs,
          inserted: designs,
          updated: 0,
          unchanged: 0,
          noLongerMatching: 0,
          notFound: 0,
          // three pages of 100 and the listing
          requests: 4
        },
        requests: 4
      },
      { do: "rows", count: designs, notCurrent: [] },
      { do: "advanceDays", days: 1 },
      {
        do: "sync",
        criteria: "every",
        report: {
          full: false,
          changedSince: "2026-12-01",
          watermark: "2026-12-02",
          fetched: 0,
          inserted: 0,
          updated: 0,
          matching: designs,
          requests: 2
        },
        requests: 2
      },
      { do: "rows", count: designs, notCurrent: [] }
    ]
  },
  {
    kind: "mirrorSync",
    name: "after touch, exactly the touched designs are fetched again and their rows updated",
    designs,
    steps: [
      { do: "sync", criteria: "every", report: { inserted: designs, requests: 4 }, requests: 4 },
      { do: "advanceDays", days: 1 },
      { do: "touch", rows: [3, 150, 200] },
      {
        do: "sync",
        criteria: "every",
        report: { searched: 3, fetched: 3, updated: 3, inserted: 0, unchanged: 0, requests: 2 },
        requests: 2
      },
      { do: "rows", count: designs, notCurrent: [], changedSinceTouch: [3, 150, 200] },
      // the same day again: the touched designs come back, unchanged
      {
        do: "sync",
        criteria: "every",
        report: { changedSince: "2026-12-02", fetched: 3, unchanged: 3, updated: 0, requests: 2 },
        requests: 2
      }
    ]
  },
  {
    kind: "mirrorSync",
    name: "designs that no longer match are marked no_longer_matching",
    designs,
    steps: [
      {
        do: "sync",
        criteria: "unchangedBeforeDecember",
        report: { inserted: designs, matching: designs },
        requests: 4
      },
      { do: "touch", rows: [10, 20] },
      {
        do: "sync",
        criteria: "unchangedBeforeDecember",
        report: { fetched: 0, noLongerMatching: 2, matching: designs - 2, requests: 2 },
        requests: 2
      },
      { do: "rows", count: designs, notCurrent: [[10, "no_longer_matching"], [20, "no_longer_matching"]] }
    ]
  },
  {
    kind: "mirrorSync",
    name:
      "a run interrupted half-way, then one that fails, lose nothing; the next ends with every row and the first run's watermark",
    designs,
    steps: [
      // interrupted once a page of 100 designs (a transaction) is committed
      { do: "sync", criteria: "every", concurrency: 1, interruptAtCommitted: 100, interrupted: true },
      { do: "rows", count: 100, notCurrent: [] },
      { do: "state", criteria: "every", watermark: null, inProgress: true },
      // the next day it goes on from there (pages 1 and 2), and fails at the listing
      { do: "advanceDays", days: 1 },
      {
        do: "sync",
        criteria: "every",
        faults: [{ target: "advanced", status: 400 }],
        failure: "BadRequestError",
        requests: 3
      },
      { do: "rows", count: designs, notCurrent: [] },
      { do: "state", criteria: "every", watermark: null },
      // the last page again (its rows were committed, the run was not), and the listing
      {
        do: "sync",
        criteria: "every",
        report: { resumed: true, full: true, watermark: "2026-12-01", inserted: 0, requests: 2 },
        requests: 2
      },
      { do: "rows", count: designs, notCurrent: [] },
      { do: "state", criteria: "every", watermark: "2026-12-01", inProgress: false }
    ]
  }
]

const sandboxCases: ReadonlyArray<SandboxBytesCase> = scenarios.map(({ name }) => ({
  kind: "sandboxBytes",
  name: `sandbox answers: ${name}`,
  scenario: name
}))

/** Every case, of every kind. */
export const cases: ReadonlyArray<Case> = [
  ...faultCases,
  ...economyCases,
  ...pagingCases,
  ...mirrorCases,
  ...sandboxCases
]

/** The kinds the table holds. */
export const kinds: ReadonlyArray<CaseKind> = [...new Set(cases.map((c) => c.kind))].sort()

/** The cases of kind `kind`. */
export const casesOf = <K extends CaseKind>(kind: K): ReadonlyArray<CaseOf<K>> =>
  cases.filter((c): c is CaseOf<K> => c.kind === kind)
