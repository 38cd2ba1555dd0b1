/**
 * The contract of the transport seam (`src/internal/transport.ts`), as one table of cases run
 * against every adapter: over real loopback sockets, with a `node:http` server of the test's own
 * whose behaviour each case sets, the undici adapter and the `HttpClient` adapter over
 * `UndiciHttpClient.make`; then, for the cases the in-process sandbox can express (a fault in
 * place of the server's behaviour), the `HttpClient` adapter over `Sandbox.httpClient`, on the
 * `TestClock`.
 *
 * No case waits on a timer of its own: the server signals what it saw through deferreds, a stalled
 * server is left to the adapter's real deadline, and the sandbox's delays are driven by `TestClock`.
 * A deadline of 5 s bounds only the waits on the server's signals, so that a case that goes wrong
 * fails instead of hanging.
 */
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Option, TestClock } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { gzipSync } from "node:zlib"
import { Agent } from "undici"
import { TransportError, UnexpectedResponseError } from "../src/ApiError.js"
import { DesignSearchConfig, Sandbox } from "../src/index.js"
import * as HttpClientTransport from "../src/internal/httpClientTransport.js"
import type { Answer, Base, Call, Limits, SendError, Transport } from "../src/internal/transport.js"
import { bodyTooLarge, splitUrl } from "../src/internal/transport.js"
import * as UndiciTransport from "../src/internal/undiciTransport.js"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"
import { listening } from "./support/loopback.js"

// ---------------------------------------------------------------------------------------------
// The server side of a case
// ---------------------------------------------------------------------------------------------

/** A request as the server received it. */
interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** One request handed to a case's behaviour, its body already read. */
interface Exchange {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  /** Tells the test the case reached its point (the request held, part of a body sent). */
  readonly ready: () => void
  /** Drops the connection from the server's side (not counted as the client going away). */
  readonly hangUp: () => void
}

/** What the server does with a request. */
type Behaviour = (exchange: Exchange) => void

interface Harness {
  readonly port: number
  /** Every request the server received, in order. */
  readonly requests: Array<Seen>
  readonly ready: Deferred.Deferred<void>
  /** A response closed before the server finished it, and not by the server: the client went away. */
  readonly clientLeft: Deferred.Deferred<void>
}

/** A loopback server answering every request with `behaviour`, closed with the scope. */
const serve = (behaviour: Behaviour): Effect.Effect<Harness, never, Scope.Scope> =>
  Effect.gen(function*() {
    const ready = yield* Deferred.make<void>()
    const clientLeft = yield* Deferred.make<void>()
    const requests: Array<Seen> = []
    const server = createServer((req, res) => {
      let hungUp = false
      res.on("close", () => {
        if (!res.writableFinished && !hungUp) Deferred.unsafeDone(clientLeft, Exit.void)
      })
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        requests.push({
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8")
        })
        behaviour({
          req,
          res,
          ready: () => Deferred.unsafeDone(ready, Exit.void),
          hangUp: () => {
            hungUp = true
            req.socket.destroy()
          }
        })
      })
    })
    const port = yield* listening(server)
    // runs before the server's close: no held response keeps it open
    yield* Effect.addFinalizer(() => Effect.sync(() => server.closeAllConnections()))
    return { port, requests, ready, clientLeft }
  })

/** Waits for a signal of the server, failing the case rather than hanging if it never comes. */
const signalled = (deferred: Deferred.Deferred<void>, what: string) =>
  Deferred.await(deferred).pipe(
    Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new Error(`the server never saw ${what}`) }),
    Effect.orDie
  )

// behaviours used by several cases

const text =
  (status: number, body: string, headers: Record<string, string | Array<string>> = {}): Behaviour => ({ res }) =>
    void res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(body)

/** Headers declaring `length` bytes, then `sent` of them, then nothing more. */
const declaredThenHold = (status: number, length: number, sent: number): Behaviour => ({ ready, res }) => {
  res.writeHead(status, { "content-type": "text/plain", "content-length": String(length) })
  if (sent === 0) {
    res.flushHeaders()
    ready()
  } else {
    res.write("x".repeat(sent), () => ready())
  }
}

/** A chunked body of `chunks`, then nothing more. */
const chunkedThenHold = (status: number, chunks: ReadonlyArray<string>): Behaviour => ({ ready, res }) => {
  res.writeHead(status, { "content-type": "text/plain" })
  chunks.forEach((chunk, i) => res.write(chunk, i === chunks.length - 1 ? () => ready() : undefined))
}

const chunked = (status: number, chunks: ReadonlyArray<string>): Behaviour => ({ res }) => {
  res.writeHead(status, { "content-type": "text/plain" })
  for (const chunk of chunks) res.write(chunk)
  res.end()
}

const hold: Behaviour = ({ ready }) => ready()

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

/** What the send comes to. */
type Outcome =
  | {
    readonly _tag: "Answer"
    readonly status: number
    readonly text: string
    /** Headers the answer must carry, by lower-case name, with their exact values. */
    readonly headers?: Readonly<Record<string, string>>
  }
  | { readonly _tag: "TransportError"; readonly reason: TransportError["reason"]; readonly detail?: string }
  /**
   * Refused by the cap: by a declared `Content-Length` of `declaredBytes`, or while reading one
   * without (`declaredBytes` absent). The sandbox's own answers declare their own length.
   */
  | { readonly _tag: "TooLarge"; readonly status: number; readonly declaredBytes?: number }
  /** The case interrupts the send once the server is `ready`: the send ends interrupted, nothing else. */
  | { readonly _tag: "Interrupted" }

/** The same case in the in-process sandbox, sending `GET /design/201900001` below its API base. */
interface SandboxForm {
  /** Injected for the design endpoint before the call. */
  readonly fault?: Omit<typeof Sandbox.Fault.Encoded, "target">
  /**
   * Sends a valid bearer token (from the sandbox's token endpoint) so that the design itself is
   * served; a refusal by `Content-Length` then names the design's length, measured first.
   */
  readonly withToken?: true
  /** The sandbox's count of requests whose client went away before the answer. */
  readonly abandoned: 0 | 1
}

interface Case {
  readonly name: string
  readonly serve: Behaviour
  /** The path of the base URL below the server's origin (default `/api/v1`). */
  readonly basePath?: string
  /** Over the default call: `GET /search/quick`, no headers, no body. */
  readonly call?: Partial<Call>
  readonly limits?: { readonly timeoutMillis?: number; readonly maxBodyBytes?: number }
  readonly outcome: Outcome
  readonly server: {
    /** How many requests the server receives. */
    readonly requests: number
    /** The request as received; `headers` must be among the received ones with these exact values. */
    readonly sees?: Omit<Seen, "headers"> & {
      readonly headers: Readonly<Record<string, string>>
      readonly absentHeaders?: ReadonlyArray<string>
    }
    /** The client goes away (its socket closes) before the server finishes its answer. */
    readonly clientLeaves?: true
  }
  /** Absent when the sandbox cannot express the case. */
  readonly sandbox?: SandboxForm
}

const defaultCall: Call = { method: "GET", path: "/search/quick", headers: {}, body: undefined }
const defaultTimeoutMillis = 5_000
const defaultMaxBodyBytes = 1024 * 1024
const cap = 100
const deadline = 200

const postHeaders = {
  "content-type": "application/json",
  accept: "application/json",
  authorization: "Bearer abc.def.ghi",
  "x-request-id": "req-1"
} as const
const postBody = JSON.stringify({ query: "chäir", filters: { statusFilter: ["REGISTERED"] } })

const cases: ReadonlyArray<Case> = [
  // statuses and bodies
  {
    name: "a 200 comes back with its exact body",
    serve: text(200, "hello, wörld ✓"),
    outcome: { _tag: "Answer", status: 200, text: "hello, wörld ✓" },
    server: { requests: 1 },
    sandbox: { fault: { status: 200, body: "hello, wörld ✓" }, abandoned: 0 }
  },
  {
    name: "a 204 comes back with an empty body",
    serve: ({ res }) => void res.writeHead(204).end(),
    outcome: { _tag: "Answer", status: 204, text: "" },
    server: { requests: 1 },
    sandbox: { fault: { status: 204 }, abandoned: 0 }
  },
  {
    name: "a 404 comes back as an answer with its exact body",
    serve: text(404, `{"errors":[{"code":"NOT_FOUND","detail":"no such design"}]}`),
    outcome: { _tag: "Answer", status: 404, text: `{"errors":[{"code":"NOT_FOUND","detail":"no such design"}]}` },
    server: { requests: 1 },
    sandbox: {
      fault: { status: 404, body: `{"errors":[{"code":"NOT_FOUND","detail":"no such design"}]}` },
      abandoned: 0
    }
  },
  {
    name: "a 500 comes back as an answer with its exact body",
    serve: text(500, "upstream exploded"),
    outcome: { _tag: "Answer", status: 500, text: "upstream exploded" },
    server: { requests: 1 },
    sandbox: { fault: { status: 500, body: "upstream exploded" }, abandoned: 0 }
  },
  // headers
  {
    name: "response headers arrive with lower-case names and their values as sent",
    serve: text(503, "busy", { "Retry-After": "120", "X-Thing": "Mixed Case" }),
    outcome: { _tag: "Answer", status: 503, text: "busy", headers: { "retry-after": "120", "x-thing": "Mixed Case" } },
    server: { requests: 1 },
    sandbox: {
      fault: { status: 503, body: "busy", headers: { "Retry-After": "120", "X-Thing": "Mixed Case" } },
      abandoned: 0
    }
  },
  {
    name: "a repeated response header arrives once, its values joined with a comma",
    serve: text(200, "ok", { "X-Multi": ["a", "b"] }),
    outcome: { _tag: "Answer", status: 200, text: "ok", headers: { "x-multi": "a, b" } },
    server: { requests: 1 }
  },
  // requests as sent
  {
    name: "a POST reaches the server with its method, base path + path, headers and body as sent",
    serve: text(200, "ok"),
    call: { method: "POST", path: "/search/quick", headers: postHeaders, body: postBody },
    outcome: { _tag: "Answer", status: 200, text: "ok" },
    server: {
      requests: 1,
      sees: {
        method: "POST",
        url: "/api/v1/search/quick",
        headers: { ...postHeaders, "content-length": String(Buffer.byteLength(postBody)) },
        absentHeaders: ["transfer-encoding"],
        body: postBody
      }
    }
  },
  {
    name: "a GET reaches the server with its headers and no body",
    serve: text(200, "ok"),
    call: {
      method: "GET",
      path: "/design/201900001",
      headers: { accept: "application/json", authorization: "Bearer t" }
    },
    outcome: { _tag: "Answer", status: 200, text: "ok" },
    server: {
      requests: 1,
      sees: {
        method: "GET",
        url: "/api/v1/design/201900001",
        headers: { accept: "application/json", authorization: "Bearer t" },
        absentHeaders: ["content-length", "transfer-encoding"],
        body: ""
      }
    }
  },
  {
    name: `the path "" below a base with no path reaches the server as /`,
    serve: text(200, "root"),
    basePath: "",
    call: { method: "POST", path: "", headers: { "content-type": "text/plain", "x-request-id": "req-2" }, body: "hi" },
    outcome: { _tag: "Answer", status: 200, text: "root" },
    server: {
      requests: 1,
      sees: { method: "POST", url: "/", headers: { "content-type": "text/plain", "x-request-id": "req-2" }, body: "hi" }
    }
  },
  {
    name: `an Authorization header sent to the path "" of a base with no path arrives as sent`,
    serve: text(200, "root"),
    basePath: "",
    call: { method: "GET", path: "", headers: { authorization: "Bearer to-the-base-itself" } },
    outcome: { _tag: "Answer", status: 200, text: "root" },
    server: {
      requests: 1,
      sees: { method: "GET", url: "/", headers: { authorization: "Bearer to-the-base-itself" }, body: "" }
    }
  },
  {
    name: `the path "" below a base with a path reaches the server at the base path (a token endpoint)`,
    serve: text(200, `{"access_token":"t"}`),
    basePath: "/oauth2/token",
    call: {
      method: "POST",
      path: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=a&client_secret=b"
    },
    outcome: { _tag: "Answer", status: 200, text: `{"access_token":"t"}` },
    server: {
      requests: 1,
      sees: {
        method: "POST",
        url: "/oauth2/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=a&client_secret=b"
      }
    }
  },
  // the body cap
  {
    name: "a body over the cap with a Content-Length is refused by its headers, and its socket closed unread",
    serve: declaredThenHold(200, 1000, 10),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "TooLarge", status: 200, declaredBytes: 1000 },
    server: { requests: 1, clientLeaves: true },
    // a design is some 400 bytes of JSON, its length declared
    sandbox: { withToken: true, abandoned: 0 }
  },
  {
    name: "a body over the cap with a Content-Length is refused before any of it arrives",
    serve: declaredThenHold(500, 1000, 0),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "TooLarge", status: 500, declaredBytes: 1000 },
    server: { requests: 1, clientLeaves: true }
  },
  {
    name: "a body over the cap without a Content-Length is refused while reading, and its socket closed",
    serve: chunkedThenHold(200, ["a".repeat(60), "b".repeat(60)]),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "TooLarge", status: 200 },
    server: { requests: 1, clientLeaves: true }
  },
  {
    name: "a body exactly at the cap with a Content-Length is accepted",
    serve: text(200, "c".repeat(cap)),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "Answer", status: 200, text: "c".repeat(cap) },
    server: { requests: 1 },
    sandbox: { fault: { status: 200, body: "c".repeat(cap) }, abandoned: 0 }
  },
  {
    name: "a body exactly at the cap without a Content-Length is accepted",
    serve: chunked(200, ["d".repeat(50), "e".repeat(50)]),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "Answer", status: 200, text: "d".repeat(50) + "e".repeat(50) },
    server: { requests: 1 }
  },
  // connections dropped by the server
  {
    name: "a connection reset before any answer is a TransportError Network, not retried",
    serve: ({ hangUp }) => hangUp(),
    outcome: { _tag: "TransportError", reason: "Network" },
    server: { requests: 1 },
    sandbox: { fault: { status: 200, kind: "reset" }, abandoned: 0 }
  },
  {
    name: "a connection reset after the headers and part of a declared body is a TransportError Body",
    serve: ({ hangUp, res }) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" })
      res.write("z".repeat(500), () => hangUp())
    },
    outcome: { _tag: "TransportError", reason: "Body" },
    server: { requests: 1 },
    sandbox: { fault: { status: 200, kind: "resetMidBody", body: "z".repeat(1000) }, abandoned: 0 }
  },
  {
    name: "a connection reset after the headers and part of a chunked body is a TransportError Body",
    serve: ({ hangUp, res }) => {
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("z".repeat(500), () => hangUp())
    },
    outcome: { _tag: "TransportError", reason: "Body" },
    server: { requests: 1 }
  },
  // the deadline
  {
    name: "a server that never answers fails the call at its deadline with a TransportError Timeout",
    serve: hold,
    limits: { timeoutMillis: deadline },
    outcome: { _tag: "TransportError", reason: "Timeout", detail: "no complete response within 200ms" },
    server: { requests: 1, clientLeaves: true },
    sandbox: { fault: { status: 200, delayMs: 60_000 }, abandoned: 1 }
  },
  {
    name: "a body that never finishes fails the call at its deadline with a TransportError Timeout",
    serve: declaredThenHold(200, 1000, 10),
    limits: { timeoutMillis: deadline },
    outcome: { _tag: "TransportError", reason: "Timeout", detail: "no complete response within 200ms" },
    server: { requests: 1, clientLeaves: true }
  },
  // interruption
  {
    name: "interrupting a send that awaits its answer closes its socket, and the send never resumes",
    serve: hold,
    outcome: { _tag: "Interrupted" },
    server: { requests: 1, clientLeaves: true },
    sandbox: { fault: { status: 200, delayMs: 60_000 }, abandoned: 1 }
  },
  {
    name: "interrupting a send that reads its body closes its socket, and the send never resumes",
    serve: declaredThenHold(200, 1000, 10),
    outcome: { _tag: "Interrupted" },
    server: { requests: 1, clientLeaves: true }
  },
  // redirects
  {
    name: "a redirect is not followed: the 302 comes back as the answer",
    serve: ({ req, res }) =>
      req.url === "/api/v1/elsewhere"
        ? void res.writeHead(200).end("followed")
        : void res.writeHead(302, { location: "/api/v1/elsewhere", "content-type": "text/plain" }).end("moved"),
    outcome: { _tag: "Answer", status: 302, text: "moved", headers: { location: "/api/v1/elsewhere" } },
    server: { requests: 1 },
    sandbox: { fault: { status: 302, body: "moved", headers: { Location: "/api/v1/elsewhere" } }, abandoned: 0 }
  }
]

// ---------------------------------------------------------------------------------------------
// Checking a case
// ---------------------------------------------------------------------------------------------

const limitsOf = (c: Case): Limits => ({
  timeout: Duration.millis(c.limits?.timeoutMillis ?? defaultTimeoutMillis),
  maxBodyBytes: c.limits?.maxBodyBytes ?? defaultMaxBodyBytes
})

/**
 * Checks how a send ended against `outcome`; `url` is the one a failure names, `maxBodyBytes` the
 * cap a refusal names.
 */
const checkOutcome = (
  outcome: Outcome,
  exit: Exit.Exit<Answer, SendError>,
  expected: { readonly method: string; readonly url: string; readonly maxBodyBytes: number }
): void => {
  if (outcome._tag === "Interrupted") {
    assert(Exit.isFailure(exit), "the interrupted send succeeded")
    expect(Cause.isInterruptedOnly(exit.cause), Cause.pretty(exit.cause)).toBe(true)
    return
  }
  if (outcome._tag === "Answer") {
    assert(Exit.isSuccess(exit), Exit.isFailure(exit) ? `expected an answer: ${Cause.pretty(exit.cause)}` : "")
    const answer = exit.value
    expect(answer.status).toBe(outcome.status)
    expect(answer.text).toBe(outcome.text)
    for (const [name, value] of Object.entries(outcome.headers ?? {})) expect(answer.headers[name], name).toBe(value)
    const names = Object.keys(answer.headers)
    expect(names.filter((name) => name !== name.toLowerCase())).toEqual([])
    return
  }
  assert(Exit.isFailure(exit), `expected a failure, got ${JSON.stringify(Exit.isSuccess(exit) ? exit.value : null)}`)
  const error = Cause.failureOption(exit.cause)
  assert(Option.isSome(error), `expected a failure: ${Cause.pretty(exit.cause)}`)
  if (outcome._tag === "TooLarge") {
    expect(error.value, `expected a refusal by the cap: ${String(error.value)}`).toBeInstanceOf(UnexpectedResponseError)
    const refusal = error.value as UnexpectedResponseError
    const size = outcome.declaredBytes === undefined
      ? `more than ${expected.maxBodyBytes}`
      : String(outcome.declaredBytes)
    expect({ status: refusal.status, excerpt: refusal.excerpt, issue: refusal.issue }).toEqual({
      status: outcome.status,
      excerpt: "",
      issue: `response body of ${size} bytes exceeds the cap of ${expected.maxBodyBytes} bytes`
    })
    return
  }
  expect(error.value, `expected a TransportError: ${String(error.value)}`).toBeInstanceOf(TransportError)
  const failure = error.value as TransportError
  expect({ reason: failure.reason, method: failure.method, url: failure.url }).toEqual({
    reason: outcome.reason,
    method: expected.method,
    url: expected.url
  })
  if (outcome.detail === undefined) expect(failure.detail).not.toBe("")
  else expect(failure.detail).toBe(outcome.detail)
}

// ---------------------------------------------------------------------------------------------
// Over real loopback sockets
// ---------------------------------------------------------------------------------------------

interface Subject {
  readonly name: string
  readonly make: (agent: Agent, base: Base, limits: Limits) => Transport
}

const socketSubjects: ReadonlyArray<Subject> = [
  { name: "the undici adapter", make: (agent, base, limits) => UndiciTransport.make(agent, base, limits) },
  {
    name: "the HttpClient adapter over UndiciHttpClient.make",
    make: (agent, base, limits) => HttpClientTransport.make(UndiciHttpClient.make(agent), base, limits)
  }
]

const runOverSockets = (subject: Subject, c: Case) =>
  Effect.gen(function*() {
    const harness = yield* serve(c.serve)
    // released first: its sockets close before the server does
    const agent = yield* Effect.acquireRelease(Effect.sync(() => new Agent()), (a) => Effect.promise(() => a.destroy()))
    const origin = `http://127.0.0.1:${harness.port}`
    const basePath = c.basePath ?? "/api/v1"
    const base = splitUrl(origin + basePath)
    assert(base !== undefined)
    expect(base).toEqual({ origin, path: basePath })
    const call: Call = { ...defaultCall, ...c.call }
    const transport = subject.make(agent, base, limitsOf(c))

    const fiber = yield* Effect.fork(transport.send(call))
    let exit: Exit.Exit<Answer, SendError>
    if (c.outcome._tag === "Interrupted") {
      yield* signalled(harness.ready, "the request reach its point")
      // still in flight when interrupted
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      exit = yield* Fiber.interrupt(fiber)
    } else {
      exit = yield* Fiber.await(fiber)
    }
    checkOutcome(c.outcome, exit, {
      method: call.method,
      url: origin + basePath + call.path,
      maxBodyBytes: limitsOf(c).maxBodyBytes
    })

    if (c.server.clientLeaves === true) yield* signalled(harness.clientLeft, "the client go away")
    else expect(yield* Deferred.isDone(harness.clientLeft)).toBe(false)
    expect(harness.requests).toHaveLength(c.server.requests)
    const sees = c.server.sees
    if (sees !== undefined) {
      const seen = harness.requests[0]
      assert(seen !== undefined)
      expect({ method: seen.method, url: seen.url, body: seen.body }).toEqual({
        method: sees.method,
        url: sees.url,
        body: sees.body
      })
      for (const [name, value] of Object.entries(sees.headers)) expect(seen.headers[name], name).toBe(value)
      for (const name of sees.absentHeaders ?? []) expect(seen.headers[name], name).toBeUndefined()
    }
  })

for (const subject of socketSubjects) {
  describe(`transport contract over loopback sockets: ${subject.name}`, () => {
    for (const c of cases) it.scopedLive(c.name, () => runOverSockets(subject, c))
  })
}

// ---------------------------------------------------------------------------------------------
// In process, over the sandbox, on the TestClock
// ---------------------------------------------------------------------------------------------

const designPath = `/design/${Sandbox.fixedNumbers.chair}`
const sandboxApi = Sandbox.inProcessUrl + DesignSearchConfig.apiPath
const sandboxTokenUrl = Sandbox.inProcessUrl + DesignSearchConfig.tokenPath

const runInSandbox = (c: Case, form: SandboxForm) =>
  Effect.gen(function*() {
    const sandbox = yield* Effect.orDie(Sandbox.make())
    const client = Sandbox.httpClient(sandbox.app)
    const limits = limitsOf(c)
    const base = splitUrl(sandboxApi)
    assert(base !== undefined)
    const transport = HttpClientTransport.make(client, base, limits)

    let headers: Record<string, string> = {}
    let outcome = c.outcome
    if (form.withToken === true) {
      const tokenBase = splitUrl(sandboxTokenUrl)
      assert(tokenBase !== undefined)
      const tokens = HttpClientTransport.make(client, tokenBase, {
        timeout: Duration.seconds(5),
        maxBodyBytes: defaultMaxBodyBytes
      })
      const answer = yield* tokens.send({
        method: "POST",
        path: "",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=client_credentials&client_id=${sandbox.clientId}&client_secret=${sandbox.clientSecret}`
      })
      expect(answer.status).toBe(200)
      const token = (JSON.parse(answer.text) as { access_token?: unknown }).access_token
      assert(typeof token === "string" && token !== "")
      headers = { authorization: `Bearer ${token}` }
      if (outcome._tag === "TooLarge" && outcome.declaredBytes !== undefined) {
        // the design's length, as the sandbox declares it
        const uncapped = HttpClientTransport.make(client, base, {
          timeout: limits.timeout,
          maxBodyBytes: defaultMaxBodyBytes
        })
        const design = yield* uncapped.send({ method: "GET", path: designPath, headers, body: undefined })
        expect(design.status).toBe(200)
        const length = Buffer.byteLength(design.text)
        expect(length).toBeGreaterThan(limits.maxBodyBytes)
        expect(design.headers["content-length"]).toBe(String(length))
        outcome = { ...outcome, declaredBytes: length }
      }
    }
    const before = yield* sandbox.control.stats
    if (form.fault !== undefined) yield* Effect.orDie(sandbox.control.injectFault({ target: "design", ...form.fault }))

    const call: Call = { method: "GET", path: designPath, headers, body: undefined }
    const fiber = yield* Effect.fork(transport.send(call))
    let exit: Exit.Exit<Answer, SendError>
    if (outcome._tag === "Interrupted") {
      // waits until the send is suspended in the sandbox, then interrupts it there
      yield* TestClock.adjust(Duration.zero)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      exit = yield* Fiber.interrupt(fiber)
    } else {
      // just before the deadline only a call that is to time out is still going
      yield* TestClock.adjust(Duration.subtract(limits.timeout, Duration.millis(1)))
      const early = yield* Fiber.poll(fiber)
      const timesOut = outcome._tag === "TransportError" && outcome.reason === "Timeout"
      expect(Option.isNone(early)).toBe(timesOut)
      yield* TestClock.adjust(Duration.millis(1))
      exit = yield* Fiber.await(fiber)
    }
    checkOutcome(outcome, exit, {
      method: call.method,
      url: sandboxApi + designPath,
      maxBodyBytes: limits.maxBodyBytes
    })

    const after = yield* sandbox.control.stats
    expect(after.requests.design - before.requests.design).toBe(c.server.requests)
    expect(after.abandoned - before.abandoned).toBe(form.abandoned)
  })

describe("transport contract in process: the HttpClient adapter over Sandbox.httpClient", () => {
  for (const c of cases) {
    const form = c.sandbox
    if (form !== undefined) it.effect(c.name, () => runInSandbox(c, form))
  }
})

describe("the body cap counts what the client hands over, not what was declared", () => {
  it.scopedLive("a gzip body declared within the cap that decodes past it is refused by the HttpClient adapter over fetch", () =>
    Effect.gen(function*() {
      const decoded = "0".repeat(cap * 100)
      const compressed = gzipSync(decoded)
      expect(compressed.length).toBeLessThan(cap)
      const server = yield* serve(({ res }) =>
        void res.writeHead(200, { "content-encoding": "gzip", "content-length": String(compressed.length) }).end(
          compressed
        )
      )
      const base = splitUrl(`http://127.0.0.1:${server.port}`)!
      const transport = yield* Effect.map(
        HttpClient.HttpClient,
        (client) => HttpClientTransport.make(client, base, { timeout: Duration.seconds(5), maxBodyBytes: cap })
      ).pipe(Effect.provide(FetchHttpClient.layer))
      const exit = yield* Effect.exit(transport.send({ method: "GET", path: "/", headers: {}, body: undefined }))
      expect(exit).toEqual(Exit.fail(bodyTooLarge(200, `more than ${cap}`, cap)))
    }))
})

describe("the HttpClient adapter turns what a client throws into a TransportError", () => {
  it.effect("a client that dies (a header value it refuses, say) gives TransportError Network, never a defect", () =>
    Effect.gen(function*() {
      const dying = HttpClient.make(() =>
        Effect.die(new TypeError("Invalid character in header content [\"authorization\"]"))
      )
      const transport = HttpClientTransport.make(dying, splitUrl("http://127.0.0.1:9/api")!, {
        timeout: Duration.seconds(5),
        maxBodyBytes: cap
      })
      const exit = yield* Effect.exit(
        transport.send({ method: "GET", path: "/design/1", headers: {}, body: undefined })
      )
      expect(exit).toEqual(Exit.fail(
        new TransportError({
          reason: "Network",
          method: "GET",
          url: "http://127.0.0.1:9/api/design/1",
          detail: "the HTTP client failed: TypeError: Invalid character in header content [\"authorization\"]"
        })
      ))
    }))
})

describe("a redirect is an answer over fetch too", () => {
  it.scopedLive("the HttpClient adapter over FetchHttpClient hands back a 302 to another origin; that origin sees nothing", () =>
    Effect.gen(function*() {
      const elsewhere = yield* serve(text(200, "somebody else's answer"))
      const api = yield* serve(({ res }) =>
        void res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/elsewhere` }).end("moved")
      )
      const transport = yield* Effect.map(
        HttpClient.HttpClient,
        (client) =>
          HttpClientTransport.make(client, splitUrl(`http://127.0.0.1:${api.port}/api`)!, {
            timeout: Duration.seconds(5),
            maxBodyBytes: defaultMaxBodyBytes
          })
      ).pipe(Effect.provide(FetchHttpClient.layer))
      const answer = yield* transport.send({
        method: "POST",
        path: "/token",
        headers: postHeaders,
        body: "secret=s3cr3t"
      })
      expect([answer.status, answer.text, answer.headers["location"]]).toEqual([
        302,
        "moved",
        `http://127.0.0.1:${elsewhere.port}/elsewhere`
      ])
      expect(api.requests.length).toBe(1)
      expect(elsewhere.requests).toEqual([])
    }))
})
