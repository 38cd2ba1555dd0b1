/**
 * The contract of the request path (`src/internal/http/send.ts`: `send` over a client `confine`d
 * to the API's origin), as one table of cases run against the `HttpClient`s an application
 * provides: over real loopback sockets, with a `node:http` server of the test's own whose behaviour
 * each case sets, `FetchHttpClient.layer`, `NodeHttpClient.layer` and `NodeHttpClient.layerUndici`;
 * then, for the cases the in-process sandbox can express (a fault in place of the server's
 * behaviour), `Sandbox.httpClient`, on the `TestClock`.
 *
 * No case waits on a timer of its own: the server signals what it saw through deferreds, a stalled
 * server is left to the request's real deadline, and the sandbox's delays are driven by `TestClock`.
 * A deadline of 5 s bounds only the waits on the server's signals, so that a case that goes wrong
 * fails instead of hanging.
 */
import { FetchHttpClient, forkChild, HttpClient, HttpClientRequest, HttpClientResponse } from "#edition/internal/seam"
import { requestError, timeoutFail } from "#edition/internal/seam"
import { failureOption, interruptedOnly, NodeHttpClient, nodeHttpClientLayer, poll } from "#test-edition/support/seam"
import { TestClock } from "#test-edition/support/seam"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Context, Deferred, Duration, Effect, Exit, Fiber, Function, Layer, Option } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { gzipSync } from "node:zlib"
import { TransportError, UnexpectedResponseError } from "../src/ApiError.js"
import { DesignSearchConfig, Sandbox } from "../src/index.js"
import { confine, originOf, send } from "../src/internal/http/send.js"
import type { Answer, Limits, SendError } from "../src/internal/http/send.js"
import { listening } from "./support/loopback.js"

/** Completes `deferred` at once, from a callback outside any fiber. */
const fire = (deferred: Deferred.Deferred<void>) => void Effect.runSync(Deferred.succeed(deferred, undefined))

/** One request as a case writes it: below the base URL, its headers and its body as text. */
interface Call {
  readonly method: "GET" | "POST"
  /** Below the base URL: `/search/quick`, or `""` for the base itself. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

/** `call` as the `HttpClientRequest` the API client would make of it. */
const requestOf = (call: Call): HttpClientRequest.HttpClientRequest => {
  const request = HttpClientRequest.make(call.method)(call.path).pipe(HttpClientRequest.setHeaders(call.headers))
  return call.body === undefined
    ? request
    : HttpClientRequest.bodyText(request, call.body, call.headers["content-type"])
}

/**
 * The request path as the API client builds it over `ambient` (`calls.ts`): the `Authorization`
 * header confined to the base's origin, the base URL prepended, then `transform` (an
 * application's `transformClient`); each call sent and read within `limits`. The path `""` is the
 * base itself, as a token request is made (`endpoint.ts`): Effect 4's `prependUrl` would add a `/`.
 */
const sender = (
  ambient: HttpClient.HttpClient,
  base: string,
  limits: Limits,
  transform: (client: HttpClient.HttpClient) => HttpClient.HttpClient = Function.identity
) => {
  const client = confine(ambient, originOf(base)).pipe(
    HttpClient.mapRequest((r) =>
      r.url === "" ? HttpClientRequest.setUrl(r, base) : HttpClientRequest.prependUrl(r, base)
    ),
    transform
  )
  return (call: Call): Effect.Effect<Answer, SendError> => send(client, requestOf(call), limits, base)
}

/** The `HttpClient` of `layer`, built in the current scope (and released with it). */
const ambientOf = (layer: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.map(Layer.build(layer), Context.get(HttpClient.HttpClient))

// ---- The server side of a case

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
        if (!res.writableFinished && !hungUp) fire(clientLeft)
      })
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
        behaviour({
          req,
          res,
          ready: () => fire(ready),
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
    timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new Error(`the server never saw ${what}`) }),
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

// ---- The table

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
  /** What the server sees besides exactly one request (the path never sends a request twice). */
  readonly server?: {
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
const defaultLimits = { timeout: Duration.seconds(5), maxBodyBytes: defaultMaxBodyBytes }
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
    sandbox: { fault: { status: 200, body: "hello, wörld ✓" }, abandoned: 0 }
  },
  {
    name: "a 204 comes back with an empty body",
    serve: ({ res }) => void res.writeHead(204).end(),
    outcome: { _tag: "Answer", status: 204, text: "" },
    sandbox: { fault: { status: 204 }, abandoned: 0 }
  },
  {
    name: "a 404 comes back as an answer with its exact body",
    serve: text(404, `{"errors":[{"code":"NOT_FOUND","detail":"no such design"}]}`),
    outcome: { _tag: "Answer", status: 404, text: `{"errors":[{"code":"NOT_FOUND","detail":"no such design"}]}` },
    sandbox: {
      fault: { status: 404, body: `{"errors":[{"code":"NOT_FOUND","detail":"no such design"}]}` },
      abandoned: 0
    }
  },
  {
    name: "a 500 comes back as an answer with its exact body",
    serve: text(500, "upstream exploded"),
    outcome: { _tag: "Answer", status: 500, text: "upstream exploded" },
    sandbox: { fault: { status: 500, body: "upstream exploded" }, abandoned: 0 }
  },
  // headers
  {
    name: "response headers arrive with lower-case names and their values as sent",
    serve: text(503, "busy", { "Retry-After": "120", "X-Thing": "Mixed Case" }),
    outcome: { _tag: "Answer", status: 503, text: "busy", headers: { "retry-after": "120", "x-thing": "Mixed Case" } },
    sandbox: {
      fault: { status: 503, body: "busy", headers: { "Retry-After": "120", "X-Thing": "Mixed Case" } },
      abandoned: 0
    }
  },
  {
    name: "a repeated response header arrives once, its values joined with a comma",
    serve: text(200, "ok", { "X-Multi": ["a", "b"] }),
    outcome: { _tag: "Answer", status: 200, text: "ok", headers: { "x-multi": "a, b" } }
  },
  // requests as sent
  {
    name: "a POST reaches the server with its method, base path + path, headers and body as sent",
    serve: text(200, "ok"),
    call: { method: "POST", path: "/search/quick", headers: postHeaders, body: postBody },
    outcome: { _tag: "Answer", status: 200, text: "ok" },
    server: {
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
    server: { clientLeaves: true },
    // a design is some 400 bytes of JSON, its length declared
    sandbox: { withToken: true, abandoned: 0 }
  },
  {
    name: "a body over the cap with a Content-Length is refused before any of it arrives",
    serve: declaredThenHold(500, 1000, 0),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "TooLarge", status: 500, declaredBytes: 1000 },
    server: { clientLeaves: true }
  },
  {
    name: "a body over the cap without a Content-Length is refused while reading, and its socket closed",
    serve: chunkedThenHold(200, ["a".repeat(60), "b".repeat(60)]),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "TooLarge", status: 200 },
    server: { clientLeaves: true }
  },
  {
    name: "a body exactly at the cap with a Content-Length is accepted",
    serve: text(200, "c".repeat(cap)),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "Answer", status: 200, text: "c".repeat(cap) },
    sandbox: { fault: { status: 200, body: "c".repeat(cap) }, abandoned: 0 }
  },
  {
    name: "a body exactly at the cap without a Content-Length is accepted",
    serve: chunked(200, ["d".repeat(50), "e".repeat(50)]),
    limits: { maxBodyBytes: cap },
    outcome: { _tag: "Answer", status: 200, text: "d".repeat(50) + "e".repeat(50) }
  },
  // connections dropped by the server
  {
    name: "a connection reset before any answer is a TransportError Network, not retried",
    serve: ({ hangUp }) => hangUp(),
    outcome: { _tag: "TransportError", reason: "Network" },
    sandbox: { fault: { status: 200, kind: "reset" }, abandoned: 0 }
  },
  {
    name: "a connection reset after the headers and part of a declared body is a TransportError Body",
    serve: ({ hangUp, res }) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" })
      res.write("z".repeat(500), () => hangUp())
    },
    outcome: { _tag: "TransportError", reason: "Body" },
    sandbox: { fault: { status: 200, kind: "resetMidBody", body: "z".repeat(1000) }, abandoned: 0 }
  },
  {
    name: "a connection reset after the headers and part of a chunked body is a TransportError Body",
    serve: ({ hangUp, res }) => {
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("z".repeat(500), () => hangUp())
    },
    outcome: { _tag: "TransportError", reason: "Body" }
  },
  // the deadline
  {
    name: "a server that never answers fails the call at its deadline with a TransportError Timeout",
    serve: hold,
    limits: { timeoutMillis: deadline },
    outcome: { _tag: "TransportError", reason: "Timeout", detail: "no complete response within 200ms" },
    server: { clientLeaves: true },
    sandbox: { fault: { status: 200, delayMs: 60_000 }, abandoned: 1 }
  },
  {
    name: "a body that never finishes fails the call at its deadline with a TransportError Timeout",
    serve: declaredThenHold(200, 1000, 10),
    limits: { timeoutMillis: deadline },
    outcome: { _tag: "TransportError", reason: "Timeout", detail: "no complete response within 200ms" },
    server: { clientLeaves: true }
  },
  // interruption
  {
    name: "interrupting a send that awaits its answer closes its socket, and the send never resumes",
    serve: hold,
    outcome: { _tag: "Interrupted" },
    server: { clientLeaves: true },
    sandbox: { fault: { status: 200, delayMs: 60_000 }, abandoned: 1 }
  },
  {
    name: "interrupting a send that reads its body closes its socket, and the send never resumes",
    serve: declaredThenHold(200, 1000, 10),
    outcome: { _tag: "Interrupted" },
    server: { clientLeaves: true }
  },
  // redirects
  {
    name: "a redirect is not followed: the 302 comes back as the answer",
    serve: ({ req, res }) =>
      req.url === "/api/v1/elsewhere"
        ? void res.writeHead(200).end("followed")
        : void res.writeHead(302, { location: "/api/v1/elsewhere", "content-type": "text/plain" }).end("moved"),
    outcome: { _tag: "Answer", status: 302, text: "moved", headers: { location: "/api/v1/elsewhere" } },
    sandbox: { fault: { status: 302, body: "moved", headers: { Location: "/api/v1/elsewhere" } }, abandoned: 0 }
  }
]

// ---- Checking a case

const limitsOf = (c: Case): Limits => ({
  timeout: Duration.millis(c.limits?.timeoutMillis ?? defaultTimeoutMillis),
  maxBodyBytes: c.limits?.maxBodyBytes ?? defaultMaxBodyBytes
})

const refusal = (status: number, size: string, maxBytes: number) =>
  new UnexpectedResponseError({
    status,
    excerpt: "",
    issue: `response body of ${size} bytes exceeds the cap of ${maxBytes} bytes`
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
    expect(interruptedOnly(exit.cause), Cause.pretty(exit.cause)).toBe(true)
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
  const error = failureOption(exit.cause)
  assert(Option.isSome(error), `expected a failure: ${Cause.pretty(exit.cause)}`)
  if (outcome._tag === "TooLarge") {
    expect(error.value, `expected a refusal by the cap: ${String(error.value)}`).toBeInstanceOf(UnexpectedResponseError)
    const refused = error.value as UnexpectedResponseError
    const size = outcome.declaredBytes === undefined
      ? `more than ${expected.maxBodyBytes}`
      : String(outcome.declaredBytes)
    const { excerpt, issue, status } = refusal(outcome.status, size, expected.maxBodyBytes)
    expect({ status: refused.status, excerpt: refused.excerpt, issue: refused.issue }).toEqual({
      status,
      excerpt,
      issue
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

// ---- Over real loopback sockets

/** An `HttpClient` an application provides, as its layer. */
interface Subject {
  readonly name: string
  readonly layer: Layer.Layer<HttpClient.HttpClient>
}

const socketSubjects: ReadonlyArray<Subject> = [
  { name: "FetchHttpClient.layer", layer: FetchHttpClient.layer },
  { name: "NodeHttpClient over node:http", layer: nodeHttpClientLayer },
  { name: "NodeHttpClient.layerUndici", layer: NodeHttpClient.layerUndici }
]

/** Checks what the server received against `sees`. */
const checkSeen = (seen: Seen | undefined, sees: NonNullable<NonNullable<Case["server"]>["sees"]>) => {
  assert(seen !== undefined)
  expect({ method: seen.method, url: seen.url, body: seen.body }).toEqual({
    method: sees.method,
    url: sees.url,
    body: sees.body
  })
  for (const [name, value] of Object.entries(sees.headers)) expect(seen.headers[name], name).toBe(value)
  for (const name of sees.absentHeaders ?? []) expect(seen.headers[name], name).toBeUndefined()
}

const runOverSockets = (subject: Subject, c: Case) =>
  Effect.gen(function*() {
    const harness = yield* serve(c.serve)
    // released first: its sockets close before the server does
    const ambient = yield* ambientOf(subject.layer)
    const origin = `http://127.0.0.1:${harness.port}`
    const base = origin + (c.basePath ?? "/api/v1")
    const call: Call = { ...defaultCall, ...c.call }
    const limits = limitsOf(c)

    const fiber = yield* forkChild(sender(ambient, base, limits)(call))
    if (c.outcome._tag === "Interrupted") {
      yield* signalled(harness.ready, "the request reach its point")
      // still in flight when interrupted
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* Fiber.interrupt(fiber)
    }
    const exit = yield* Fiber.await(fiber)
    checkOutcome(c.outcome, exit, { method: call.method, url: base + call.path, maxBodyBytes: limits.maxBodyBytes })

    if (c.server?.clientLeaves === true) yield* signalled(harness.clientLeft, "the client go away")
    else expect(yield* Deferred.isDone(harness.clientLeft)).toBe(false)
    expect(harness.requests).toHaveLength(1)
    if (c.server?.sees !== undefined) checkSeen(harness.requests[0], c.server.sees)
  })

for (const subject of socketSubjects) {
  describe(`request path over loopback sockets: ${subject.name}`, () => {
    for (const c of cases) it.live(c.name, () => Effect.scoped(runOverSockets(subject, c)))
  })
}

// ---- In process, over the sandbox, on the TestClock

const designPath = `/design/${Sandbox.fixedNumbers.chair}`
const sandboxApi = Sandbox.inProcessUrl + DesignSearchConfig.apiPath
const sandboxTokenUrl = Sandbox.inProcessUrl + DesignSearchConfig.tokenPath

/** A bearer token of the sandbox, from its token endpoint, through `client`. */
const sandboxToken = (client: HttpClient.HttpClient, sandbox: { clientId: string; clientSecret: string }) =>
  Effect.gen(function*() {
    const answer = yield* sender(client, sandboxTokenUrl, defaultLimits)({
      method: "POST",
      path: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=client_credentials&client_id=${sandbox.clientId}&client_secret=${sandbox.clientSecret}`
    })
    expect(answer.status).toBe(200)
    const token = (JSON.parse(answer.text) as { access_token?: unknown }).access_token
    assert(typeof token === "string" && token !== "")
    return token
  })

const runInSandbox = (c: Case, form: SandboxForm) =>
  Effect.gen(function*() {
    const sandbox = yield* Effect.orDie(Sandbox.make())
    const client = Sandbox.httpClient(sandbox.app)
    const limits = limitsOf(c)

    let headers: Record<string, string> = {}
    let outcome = c.outcome
    if (form.withToken === true) {
      headers = { authorization: `Bearer ${yield* sandboxToken(client, sandbox)}` }
      if (outcome._tag === "TooLarge" && outcome.declaredBytes !== undefined) {
        // the design's length, as the sandbox declares it
        const uncapped = sender(client, sandboxApi, { timeout: limits.timeout, maxBodyBytes: defaultMaxBodyBytes })
        const design = yield* uncapped({ method: "GET", path: designPath, headers, body: undefined })
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
    const fiber = yield* forkChild(sender(client, sandboxApi, limits)(call))
    if (outcome._tag === "Interrupted") {
      // waits until the send is suspended in the sandbox, then interrupts it there
      yield* TestClock.adjust(Duration.zero)
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* Fiber.interrupt(fiber)
    } else {
      // just before the deadline only a call that is to time out is still going
      yield* TestClock.adjust(Duration.subtract(limits.timeout, Duration.millis(1)))
      const early = yield* poll(fiber)
      const timesOut = outcome._tag === "TransportError" && outcome.reason === "Timeout"
      expect(Option.isNone(early)).toBe(timesOut)
      yield* TestClock.adjust(Duration.millis(1))
    }
    const exit = yield* Fiber.await(fiber)
    checkOutcome(outcome, exit, {
      method: call.method,
      url: sandboxApi + designPath,
      maxBodyBytes: limits.maxBodyBytes
    })

    const after = yield* sandbox.control.stats
    expect(after.requests.design - before.requests.design).toBe(1)
    expect(after.abandoned - before.abandoned).toBe(form.abandoned)
  })

describe("request path in process: Sandbox.httpClient", () => {
  for (const c of cases) {
    const form = c.sandbox
    if (form !== undefined) it.effect(c.name, () => runInSandbox(c, form))
  }
})

// ---- Beyond the table

const bearer = "Bearer abc.def.ghi"

describe("the body cap counts what the client hands over, not what was declared", () => {
  it.live("a gzip body declared within the cap that decodes past it is refused over fetch", () =>
    Effect.gen(function*() {
      const decoded = "0".repeat(cap * 100)
      const compressed = gzipSync(decoded)
      expect(compressed.length).toBeLessThan(cap)
      const server = yield* serve(({ res }) =>
        void res.writeHead(200, { "content-encoding": "gzip", "content-length": String(compressed.length) }).end(
          compressed
        )
      )
      const fetch = yield* ambientOf(FetchHttpClient.layer)
      const exit = yield* Effect.exit(
        sender(fetch, `http://127.0.0.1:${server.port}`, { timeout: Duration.seconds(5), maxBodyBytes: cap })(
          defaultCall
        )
      )
      expect(exit).toEqual(Exit.fail(refusal(200, `more than ${cap}`, cap)))
    }).pipe(Effect.scoped))
})

describe("what a client throws is a TransportError", () => {
  const toApi = (client: HttpClient.HttpClient) => sender(client, "https://api.example", defaultLimits)(defaultCall)

  it.effect("a failure before any response is a Network TransportError naming its reason, description and cause", () =>
    Effect.gen(function*() {
      const cause = Object.assign(new Error("connect refused"), { code: "ECONNREFUSED" })
      const refused = HttpClient.make((r) =>
        Effect.fail(requestError(r, "Transport", { cause, description: "fetch failed" }))
      )
      expect(yield* Effect.flip(toApi(refused))).toMatchObject({
        _tag: "TransportError",
        reason: "Network",
        method: "GET",
        url: "https://api.example/search/quick",
        detail: "Transport: fetch failed: ECONNREFUSED connect refused"
      })
      // a body that breaks off is a Body TransportError, told as a failed decode
      const broken = new ReadableStream({ pull: (c) => c.error(new Error("socket hang up")) })
      const error = yield* Effect.flip(
        toApi(HttpClient.make((r) => Effect.succeed(HttpClientResponse.fromWeb(r, new Response(broken)))))
      )
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Body", detail: expect.stringMatching(/^Decode/) })
    }))

  it.effect("fetch is told not to follow redirects, keeping what the application set for it", () =>
    Effect.gen(function*() {
      const seen: Array<RequestInit | undefined> = []
      const client = HttpClient.make((request) =>
        Effect.map(Effect.serviceOption(FetchHttpClient.RequestInit), (init) => {
          seen.push(Option.getOrUndefined(init))
          return HttpClientResponse.fromWeb(request, new Response(""))
        })
      )
      yield* Effect.provideService(toApi(client), FetchHttpClient.RequestInit, { keepalive: true })
      expect(seen).toEqual([{ keepalive: true, redirect: "manual" }])
    }))

  it.effect("a client that dies (a header value it refuses, say) gives TransportError Network, never a defect", () =>
    Effect.gen(function*() {
      const dying = HttpClient.make(() =>
        Effect.die(new TypeError("Invalid character in header content [\"authorization\"]"))
      )
      const exit = yield* Effect.exit(
        sender(dying, "http://127.0.0.1:9/api", { timeout: Duration.seconds(5), maxBodyBytes: cap })({
          ...defaultCall,
          path: "/design/1"
        })
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

for (const subject of socketSubjects) {
  describe(`redirects and the Authorization header: ${subject.name}`, () => {
    it.live("a 302 to another origin is the answer: that origin sees nothing", () =>
      Effect.gen(function*() {
        const elsewhere = yield* serve(text(200, "somebody else's answer"))
        const api = yield* serve(({ res }) =>
          void res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/elsewhere` }).end("moved")
        )
        const ambient = yield* ambientOf(subject.layer)
        const answer = yield* sender(ambient, `http://127.0.0.1:${api.port}/api`, defaultLimits)({
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
      }).pipe(Effect.scoped))

    it.live("a transformClient that follows redirects takes the Authorization header to the API's origin only", () =>
      Effect.gen(function*() {
        const elsewhere = yield* serve(text(200, "somebody else's answer"))
        const api = yield* serve(({ req, res }) =>
          req.url === "/api/design/1"
            ? void res.writeHead(302, { location: "/api/design/2" }).end()
            : req.url === "/api/design/2"
            ? void res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/stolen` }).end()
            : void res.writeHead(500).end()
        )
        const ambient = yield* ambientOf(subject.layer)
        const followed = sender(
          ambient,
          `http://127.0.0.1:${api.port}/api`,
          defaultLimits,
          HttpClient.followRedirects()
        )
        const answer = yield* followed({
          method: "GET",
          path: "/design/1",
          headers: { authorization: bearer },
          body: undefined
        })
        expect([answer.status, answer.text]).toEqual([200, "somebody else's answer"])
        // within the API's origin the header goes along; past it, it stays behind
        expect(api.requests.map((r) => [r.url, r.headers["authorization"]])).toEqual([
          ["/api/design/1", bearer],
          ["/api/design/2", bearer]
        ])
        expect(elsewhere.requests.map((r) => [r.url, r.headers["authorization"]])).toEqual([["/stolen", undefined]])
      }).pipe(Effect.scoped))
  })
}

describe("the Authorization header in process", () => {
  it.effect("a request a transformClient sends to another origin goes without it; the API's keeps it", () =>
    Effect.gen(function*() {
      const seen: Array<readonly [string, string | undefined, string]> = []
      const recording = HttpClient.make((request, url) =>
        Effect.sync(() => {
          const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          seen.push([url.href, request.headers["authorization"], `${request.method} ${body}`])
          return HttpClientResponse.fromWeb(request, new Response("ok"))
        })
      )
      const elsewhere = (client: HttpClient.HttpClient) =>
        HttpClient.mapRequest(client, (r) =>
          r.url.endsWith("/leave") ?
            HttpClientRequest.setUrl(r, "https://elsewhere.example/x").pipe(
              HttpClientRequest.setUrlParam("q", "1"),
              HttpClientRequest.setHash("h")
            ) :
            r.url.endsWith("/insecure") ?
            HttpClientRequest.setUrl(r, "http://api.example/v1/insecure") :
            r)
      const call = sender(recording, "https://api.example/v1", defaultLimits, elsewhere)
      yield* call({ method: "GET", path: "/stay", headers: { authorization: bearer }, body: undefined })
      yield* call({ method: "POST", path: "/leave", headers: { authorization: bearer }, body: "{\"a\":1}" })
      // the same host over another scheme is another origin
      yield* call({ method: "GET", path: "/insecure", headers: { authorization: bearer }, body: undefined })
      // what leaves without the header is the same request otherwise: method, query, hash and body
      expect(seen).toEqual([
        ["https://api.example/v1/stay", bearer, "GET "],
        ["https://elsewhere.example/x?q=1#h", undefined, "POST {\"a\":1}"],
        ["http://api.example/v1/insecure", undefined, "GET "]
      ])
    }))
})
