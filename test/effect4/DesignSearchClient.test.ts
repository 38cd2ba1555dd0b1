/**
 * The client of the Effect 4 edition against the in-process sandbox: every operation, requests
 * refused before anything is sent, the 401 protocol, every status's typed error, the fault matrix
 * with its request counts, and the retries' waits told at `Debug` (a compact port of the Effect 3
 * edition's tests of the client).
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Logger, Option, References, Schedule, Stream, Tracer } from "effect"
import type { Scope } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError } from "effect/http"
import { TestClock } from "effect/testing"
import { createServer } from "node:http"
import type { Server } from "node:net"
import type * as ApiError from "../../src/ApiError.js"
import * as DesignSearchClient from "../../src/DesignSearchClient.js"
import * as DesignSearchConfig from "../../src/DesignSearchConfig.js"
import * as RequestBudget from "../../src/RequestBudget.js"
import * as Sandbox from "../../src/Sandbox.js"
import { clientLayer, sandboxStats, withTime } from "./support/layers.js"

const Client = DesignSearchClient.DesignSearchClient
const control = Sandbox.SandboxControl
const { bottle, chair, wristWatch } = Sandbox.fixedNumbers
const noRetry = { client: { retrySchedule: Schedule.recurs(0) } }
const noRequests = { token: 0, search: 0, design: 0, advanced: 0, page: 0 }

describe("DesignSearchClient (Effect 4): operations", () => {
  it.effect("quickSearch returns the count and numbers; getDesign the whole record, dates decoded", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data, messages } = yield* client.quickSearch({
        query: "chair",
        filters: { statusFilter: ["REGISTERED"] }
      })
      expect(data.count).toBe(data.designNumbers.length)
      expect(data.designNumbers).toContain(chair)
      expect(messages).toEqual([])
      const { data: design } = yield* client.getDesign(chair)
      expect(design).toMatchObject({ number: chair, title: "Chair", status: "REGISTERED" })
      expect(design.classifications?.[0]?.code).toBe("06-01")
      expect(design.filingDate?.epochMilliseconds).toBe(Date.UTC(2019, 2, 14))
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 200 with messages returns them beside the data; a payload without the envelope is the data", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data, messages } = yield* client.quickSearch({ query: "chair" })
      expect(data.designNumbers).toHaveLength(2)
      expect(messages).toMatchObject([{ severity: "warning", code: "RESULT_LIMIT" }])
      yield* (yield* control).injectFault({ target: "search", status: 200, body: { count: 1, designNumbers: [chair] } })
      expect(yield* client.quickSearch({ query: "anything" })).toEqual({
        data: { count: 1, designNumbers: [chair] },
        messages: []
      })
    }).pipe(Effect.provide(clientLayer({ sandbox: { resultCap: 2 } }))))

  it.effect("searchDesigns streams every hit in full, in search order, one get each", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data } = yield* client.quickSearch({ query: "table" })
      let seen = -1
      const designs = yield* Stream.runCollect(client.searchDesigns({ query: "table" }, {
        concurrency: 4,
        onSearch: (r) => Effect.sync(() => void (seen = r.data.count))
      }))
      expect(seen).toBe(data.count)
      expect(designs.map((d) => d.number)).toEqual(data.designNumbers)
      expect((yield* sandboxStats).requests.design).toBe(data.count)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("searchDesigns emits the designs before a failing one, then its error", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({
        target: "search",
        status: 200,
        body: { count: 4, designNumbers: [chair, bottle, "999999999", wristWatch] }
      })
      const seen: Array<string> = []
      const error = yield* Effect.flip(Stream.runForEach(
        (yield* Client).searchDesigns({ query: "anything" }, { concurrency: 2 }),
        (d) => Effect.sync(() => void seen.push(d.number))
      ))
      expect(error).toMatchObject({ _tag: "NotFoundError", status: 404 })
      expect(seen).toEqual([chair, bottle])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("transformClient applies to API calls, not token requests", () =>
    Effect.gen(function*() {
      let seen = 0
      const layer = clientLayer({
        client: { transformClient: HttpClient.tapRequest(() => Effect.sync(() => void seen++)) }
      })
      yield* Effect.provide(Effect.flatMap(Client, (c) => c.getDesign(chair)), layer)
      expect(seen).toBe(1)
    }))
})

describe("DesignSearchClient (Effect 4): spans", () => {
  it.effect("each operation is a client span, the parent of its request's span", () =>
    Effect.gen(function*() {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      yield* Effect.withTracer(Effect.flatMap(Client, (c) => c.getDesign(chair)), tracer)
      const operation = spans.find((s) => s.name === "DesignSearchClient.getDesign")
      expect(operation).toMatchObject({ kind: "client" })
      expect(operation?.attributes.get("designNumber")).toBe(chair)
      const request = spans.find((s) => s.name === "GET" && s.attributes.get("url.path") !== undefined)
      expect(request && Option.getOrUndefined(request.parent)).toBe(operation)
    }).pipe(Effect.provide(clientLayer())))
})

describe("DesignSearchClient (Effect 4): requests that fail their own schema are not sent", () => {
  it.effect("a bad quick search, design number or searchDesigns option is a client ValidationError", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const quick = [
        [{ query: "  " }, "/query"],
        [{ query: "chair", changedSinceDate: "2023-02-30" }, "/changedSinceDate"],
        [{ query: "chair", filters: { statusFilter: [""] } }, "/filters/statusFilter/0"],
        [{ query: "chair", sort: { field: "NUMBER", direction: "UP" } }, "/sort/direction"]
      ] as const
      for (const [request, pointer] of quick) {
        const error = yield* Effect.flip(client.quickSearch(request as never))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
        if (error._tag === "ValidationError") expect(error.errors.map((e) => e.source?.pointer)).toEqual([pointer])
      }
      for (const n of ["", "1234567890123", "../201900001", "2019/0001", "2019?1", "２０１９"]) {
        const error = yield* Effect.flip(client.getDesign(n))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
        if (error._tag === "ValidationError") expect(error.errors[0]?.source?.parameter).toBe("ipRightIdentifier")
      }
      for (const concurrency of [0, -1, 1.5, Number.NaN]) {
        const error = yield* Effect.flip(Stream.runDrain(client.searchDesigns({ query: "table" }, { concurrency })))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
      }
      const onSearch = { onSearch: 5 } as unknown as DesignSearchClient.SearchDesignsOptions
      expect(yield* Effect.flip(Stream.runDrain(client.searchDesigns({ query: "chair" }, onSearch)))).toMatchObject({
        _tag: "ValidationError",
        errors: [{ source: { parameter: "onSearch" } }]
      })
      expect((yield* sandboxStats).requests).toEqual(noRequests)
    }).pipe(Effect.provide(clientLayer())))
})

describe("DesignSearchClient (Effect 4): authentication", () => {
  it.effect("a 401 with a revoked token: one new token, one retry, success", () =>
    Effect.gen(function*() {
      const client = yield* Client
      yield* client.getDesign(chair)
      yield* (yield* control).revokeTokens
      expect((yield* client.getDesign(chair)).data.number).toBe(chair)
      expect((yield* sandboxStats).requests).toMatchObject({ token: 2, design: 3 })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a second 401 is an AuthenticationError after two tokens and two tries", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 401, count: 2 })
      expect(yield* Effect.flip((yield* Client).getDesign(chair))).toMatchObject({ _tag: "AuthenticationError" })
      expect((yield* sandboxStats).requests).toMatchObject({ token: 2, design: 2 })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 403 is a ForbiddenError and asks for no new token", () =>
    Effect.gen(function*() {
      const client = yield* Client
      yield* client.getDesign(chair)
      yield* (yield* control).injectFault({ target: "design", status: 403, body: "Invalid Client" })
      expect(yield* Effect.flip(client.getDesign(chair))).toMatchObject({
        _tag: "ForbiddenError",
        status: 403,
        errors: [],
        excerpt: "Invalid Client"
      })
      expect((yield* sandboxStats).requests).toMatchObject({ token: 1, design: 2 })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("bad credentials surface as TokenError InvalidCredentials from an API call", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Client).quickSearch({ query: "chair" }))
      expect(error).toMatchObject({ _tag: "TokenError", reason: "InvalidCredentials" })
      expect((yield* sandboxStats).requests).toEqual({ ...noRequests, token: 1 })
    }).pipe(Effect.provide(clientLayer({ config: { clientId: "someone-else" } }))))
})

describe("DesignSearchClient (Effect 4): every status gives its typed error", () => {
  const spec = { errors: [{ id: "e1", code: "E_CODE", detail: "what went wrong", source: { parameter: "query" } }] }
  const rows = [
    [400, "BadRequestError"],
    [403, "ForbiddenError"],
    [404, "NotFoundError"],
    [409, "UnexpectedResponseError"],
    [422, "ValidationError"],
    [429, "RateLimitError"],
    [500, "ServerError"],
    [503, "ServerError"]
  ] as const

  it.effect("each status, with a spec body, a gateway's message or HTML, is its error", () =>
    Effect.gen(function*() {
      const client = yield* Client
      for (const [status, tag] of rows) {
        for (const body of [spec, { message: "Endpoint request timed out" }, "<html>Bad Gateway</html>"]) {
          yield* (yield* control).injectFault({ target: "design", status, body })
          const error = yield* Effect.flip(client.getDesign(chair))
          expect(error).toMatchObject({ _tag: tag, status })
          if (tag === "UnexpectedResponseError" || !("errors" in error)) continue
          expect(error.errors).toEqual(
            body === spec ?
              spec.errors :
              typeof body === "string" ?
              [] :
              [{ code: String(status), detail: "Endpoint request timed out" }]
          )
        }
      }
      expect((yield* sandboxStats).requests.design).toBe(rows.length * 3)
    }).pipe(Effect.provide(clientLayer(noRetry))))

  it.effect("a 404 from quick search, which has no such outcome, is an UnexpectedResponseError", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "search", status: 404 })
      expect(yield* Effect.flip((yield* Client).quickSearch({ query: "chair" }))).toMatchObject({
        _tag: "UnexpectedResponseError",
        status: 404
      })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 200 whose body fits no schema, is cut short, empty or over the cap is an UnexpectedResponseError", () =>
    Effect.gen(function*() {
      const sandbox = yield* control
      for (const body of [{ title: "no number" }, "{\"number\": \"2019", "", "x".repeat(2048)]) {
        yield* sandbox.injectFault({ target: "design", status: 200, body })
      }
      const client = yield* Client
      const issues = yield* Effect.forEach(
        [1, 2, 3, 4],
        () =>
          Effect.map(
            Effect.flip(client.getDesign(chair)),
            (e) => e._tag === "UnexpectedResponseError" ? e.issue : e._tag
          )
      )
      expect(issues[0]).toContain("number")
      expect(issues.slice(1, 3)).toEqual(["body is not JSON", "empty body"])
      expect(issues[3]).toContain("exceeds the cap of 1024 bytes")
    }).pipe(Effect.provide(clientLayer({ config: { maxBodyBytes: 1024 } }))))

  const unreachable = HttpClient.make((request) =>
    Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.TransportError({ request, description: "ECONNREFUSED" })
      })
    )
  )

  it.effect("a network failure on an API call is a TransportError, retried three times", () =>
    Effect.gen(function*() {
      let attempts = 0
      const layer = clientLayer({
        client: { transformClient: () => HttpClient.tapRequest(unreachable, () => Effect.sync(() => void attempts++)) }
      })
      const error = yield* withTime(
        Effect.flip(Effect.provide(Effect.flatMap(Client, (c) => c.getDesign(chair)), layer)),
        "1 minute"
      )
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Network", method: "GET" })
      expect(attempts).toBe(4)
    }))

  it.effect("a network failure on the token endpoint is TokenError Unavailable once its retries are spent", () =>
    Effect.gen(function*() {
      const layer = DesignSearchClient.layer().pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, unreachable)),
        Layer.provide(DesignSearchConfig.layer({ clientId: "id", clientSecret: "secret" }))
      )
      const error = yield* withTime(
        Effect.flip(Effect.provide(Effect.flatMap(Client, (c) => c.getDesign(chair)), layer)),
        "10 minutes"
      )
      expect(error).toMatchObject({ _tag: "TokenError", reason: "Unavailable" })
    }))

  it.effect("a request that stalls past the request timeout is a TransportError Timeout", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 200, delayMs: 120_000, body: {} })
      const error = yield* withTime(Effect.flip((yield* Client).getDesign(chair)), "31 seconds")
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Timeout" })
    }).pipe(Effect.provide(clientLayer(noRetry))))
})

describe("DesignSearchClient (Effect 4): faults at the API and their request counts", () => {
  for (const status of [502, 503, 504]) {
    it.effect(`${status} every time: ServerError after the first try and three retries`, () =>
      Effect.gen(function*() {
        yield* (yield* control).injectFault({ target: "search", status, count: 100 })
        const error = yield* withTime(Effect.flip((yield* Client).quickSearch({ query: "chair" })), "1 minute")
        expect(error).toMatchObject({ _tag: "ServerError", status })
        expect((yield* sandboxStats).requests.search).toBe(4)
      }).pipe(Effect.provide(clientLayer())))
  }

  it.effect("503, 503, then success; a 500 is not retried", () =>
    Effect.gen(function*() {
      const client = yield* Client
      yield* (yield* control).injectFault({ target: "design", status: 503, count: 2 })
      yield* withTime(client.getDesign(chair), "10 seconds")
      expect((yield* sandboxStats).requests.design).toBe(3)
      yield* (yield* control).injectFault({ target: "design", status: 500, count: 100 })
      expect(yield* Effect.flip(client.getDesign(chair))).toMatchObject({ _tag: "ServerError", status: 500 })
      expect((yield* sandboxStats).requests.design).toBe(4)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a custom retrySchedule is stepped only with transient failures", () => {
    const seen: Array<number> = []
    const schedule = Schedule.recurs(3).pipe(
      Schedule.setInputType<ApiError.DesignSearchError>(),
      Schedule.tap(({ input }) =>
        Effect.sync(() => void seen.push("status" in input && input.status !== undefined ? input.status : 0))
      )
    )
    return Effect.gen(function*() {
      const sandbox = yield* control
      const client = yield* Client
      expect(yield* Effect.flip(client.getDesign("100000000"))).toMatchObject({ _tag: "NotFoundError" })
      for (const status of [500, 403, 503]) yield* sandbox.injectFault({ target: "design", status })
      expect(yield* Effect.flip(client.getDesign(chair))).toMatchObject({ _tag: "ServerError", status: 500 })
      expect(yield* Effect.flip(client.getDesign(chair))).toMatchObject({ _tag: "ForbiddenError" })
      yield* client.getDesign(chair)
      expect(seen).toEqual([503])
      expect((yield* sandboxStats).requests.design).toBe(5)
    }).pipe(Effect.provide(clientLayer({ client: { retrySchedule: schedule } })))
  })

  it.effect("429 every time: RateLimitError after three retries, each waiting its Retry-After", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({
        target: "search",
        status: 429,
        count: 100,
        headers: { "retry-after": "5" }
      })
      const fiber = yield* Effect.forkChild(Effect.flip((yield* Client).quickSearch({ query: "chair" })))
      yield* TestClock.adjust("14 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      expect((yield* sandboxStats).requests.search).toBe(3)
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "RateLimitError", status: 429 })
      if (error._tag === "RateLimitError") expect(error.retryAfter && Duration.toSeconds(error.retryAfter)).toBe(5)
      expect((yield* sandboxStats).requests.search).toBe(4)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a Retry-After beyond the cap gives up at once with RateLimitError", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 429, headers: { "retry-after": "3600" } })
      const error = yield* Effect.flip((yield* Client).getDesign(chair))
      expect(error).toMatchObject({ _tag: "RateLimitError", status: 429 })
      if (error._tag === "RateLimitError") expect(error.retryAfter && Duration.toSeconds(error.retryAfter)).toBe(3600)
      expect((yield* sandboxStats).requests.design).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  for (const kind of ["reset", "resetMidBody"] as const) {
    it.effect(`${kind} at the API every time: TransportError after four tries; once: the retry succeeds`, () =>
      Effect.gen(function*() {
        const client = yield* Client
        const body = { number: chair, title: "Chair" }
        yield* (yield* control).injectFault({ target: "design", kind, status: 200, count: 4, body })
        const error = yield* withTime(Effect.flip(client.getDesign(chair)), "1 minute")
        expect(error).toMatchObject({ _tag: "TransportError", reason: kind === "reset" ? "Network" : "Body" })
        expect((yield* sandboxStats).requests.design).toBe(4)
        yield* (yield* control).injectFault({ target: "design", kind, status: 200, body })
        expect((yield* withTime(client.getDesign(chair), "1 minute")).data.number).toBe(chair)
        expect((yield* sandboxStats).requests.design).toBe(6)
      }).pipe(Effect.provide(clientLayer())))
  }
})

interface Told {
  readonly message: string
  readonly retry: unknown
  readonly waitMillis: unknown
}

/** `effect` with its `Debug` logs collected, not printed. */
const collectingLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const told: Array<Told> = []
    const logger = Logger.make(({ fiber, message }) => {
      const annotations = fiber.getRef(References.CurrentLogAnnotations)
      told.push({
        message: String(Array.isArray(message) ? message[0] : message),
        retry: annotations.retry,
        waitMillis: annotations.waitMillis
      })
    })
    const result = yield* effect.pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "Debug")
    )
    return { result, told }
  })

describe("DesignSearchClient (Effect 4): waits that speak", () => {
  it.effect("each retry of a call is logged as it begins: why, how long, which retry", () =>
    Effect.gen(function*() {
      const client = yield* Client
      yield* (yield* control).injectFault({ target: "design", status: 503, count: 2 })
      const { result, told } = yield* withTime(collectingLogs(client.getDesign(chair)), "10 seconds")
      expect(result.data.title).toBe("Chair")
      const waits = told.filter((t) => t.retry !== undefined)
      expect(waits.map((t) => t.retry)).toEqual([1, 2])
      for (const wait of waits) {
        expect(wait.message).toMatch(/^the service answered 503; trying again in \d/)
        expect(wait.waitMillis).toBeGreaterThan(0)
      }
      const quiet = yield* collectingLogs(client.getDesign(chair))
      expect(quiet.told.filter((t) => t.retry !== undefined)).toEqual([])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a wait of the rate budget is logged when it lasts a second or more", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const twice = Effect.andThen(client.getDesign(chair), client.getDesign(bottle))
      const { told } = yield* withTime(collectingLogs(twice), "10 seconds")
      const budgetWaits = told.filter((t) => t.message.startsWith("waiting for the rate budget"))
      expect(budgetWaits.map((t) => t.waitMillis)).toEqual([2000])
    }).pipe(
      Effect.provide(clientLayer().pipe(Layer.provide(Layer.orDie(RequestBudget.layer({ requestsPerSecond: 0.5 })))))
    ))
})

/** Listens with `server` on 127.0.0.1 at a free port and answers the port; closes it with the scope. */
const listening = (server: Server): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )

describe("DesignSearchClient (Effect 4): the token goes only to the configured API origin", () => {
  it.live("over FetchHttpClient, no operation follows a redirect: the 302 is the answer", () =>
    Effect.gen(function*() {
      const elsewhere: Array<string | undefined> = []
      const other = yield* listening(createServer((req, res) => {
        elsewhere.push(req.url)
        res.writeHead(200, { "content-type": "application/json" }).end("{\"number\":\"1\"}")
      }))
      const api = yield* listening(createServer((req, res) =>
        req.url?.endsWith("/access_token")
          ? void res.writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ access_token: "a.b.c", expires_in: 3600, token_type: "Bearer" }))
          : void res.writeHead(302, { location: `http://127.0.0.1:${other}/steal` }).end()
      ))
      const client = yield* Effect.map(
        Layer.build(
          DesignSearchClient.layer().pipe(
            Layer.provide(FetchHttpClient.layer),
            Layer.provide(Layer.orDie(DesignSearchConfig.layer({
              clientId: "id",
              clientSecret: "secret",
              authUrl: `http://127.0.0.1:${api}`,
              baseUrl: `http://127.0.0.1:${api}/api`
            })))
          )
        ),
        Context.get(Client)
      )
      const rows = [{ op: "AND" as const, query: { productName: "chair" } }]
      const errors = yield* Effect.all([
        Effect.flip(client.getDesign("201900001")),
        Effect.flip(client.quickSearch({ query: "chair" })),
        Effect.flip(client.advancedSearch({ rows })),
        Effect.flip(client.searchPage({ rows, pageNumber: 0, pageSize: 10 }))
      ])
      expect(errors.map((e) => [e._tag, "status" in e ? e.status : undefined])).toEqual(
        Array(4).fill(["UnexpectedResponseError", 302])
      )
      expect(elsewhere).toEqual([])
    }))

  it.effect("a transformClient that follows redirects never carries the token off the API origin", () =>
    Effect.gen(function*() {
      const sandbox = yield* Effect.orDie(Sandbox.make())
      const sent: Array<{ url: string; authorization: string | undefined }> = []
      const inProcess = Sandbox.httpClient(sandbox.app)
      const wire = HttpClient.make((request) => {
        sent.push({ url: request.url, authorization: request.headers["authorization"] })
        return inProcess.execute(request)
      })
      const layer = DesignSearchClient.layer({ transformClient: HttpClient.followRedirects(3) }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, wire)),
        Layer.provide(Layer.orDie(DesignSearchConfig.layer({
          clientId: sandbox.clientId,
          clientSecret: sandbox.clientSecret,
          authUrl: Sandbox.inProcessUrl,
          baseUrl: Sandbox.inProcessUrl + DesignSearchConfig.apiPath
        })))
      )
      yield* sandbox.control.injectFault({
        target: "design",
        status: 302,
        headers: { location: "https://sandbox.design-search.invalid.evil.example/x" }
      })
      yield* Effect.exit(Effect.provide(Effect.flatMap(Client, (c) => c.getDesign(chair)), layer))
      expect(sent.find((s) => s.url.includes("/design/"))?.authorization).toMatch(/^Bearer /)
      const offOrigin = sent.filter((s) => s.url.includes("evil.example"))
      expect(offOrigin).toHaveLength(1)
      expect(offOrigin[0]?.authorization).toBeUndefined()
    }))
})
