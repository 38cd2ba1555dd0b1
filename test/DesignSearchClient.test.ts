import { forkChild, HttpClient, requestError } from "#edition/internal/seam"
import { edition, hasDie, NodeHttpClient, poll, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Cause, DateTime, Duration, Effect, Exit, Fiber, Layer, Option, Schedule, Stream } from "effect"
import { createServer } from "node:http"
import { DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import { clientLayer, sandboxStats, withTime } from "./support/layers.js"
import { listening } from "./support/loopback.js"
import { recordingTracer } from "./support/tracing.js"

const Client = DesignSearchClient.DesignSearchClient
const control = Sandbox.SandboxControl
const chair = Sandbox.fixedNumbers.chair
const noRetry = { client: { retrySchedule: Schedule.recurs(0) } }
const noRequests = { token: 0, search: 0, design: 0, advanced: 0, page: 0 }

describe("DesignSearchClient: operations", () => {
  it.effect("quickSearch returns the count and numbers of matching designs", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data, messages } = yield* client.quickSearch({
        query: "chair",
        filters: { statusFilter: ["REGISTERED"] }
      })
      expect(data.count).toBe(data.designNumbers.length)
      expect(data.designNumbers).toContain(chair)
      expect(messages).toEqual([])
      for (const n of data.designNumbers) {
        const { data: design } = yield* client.getDesign(n)
        expect(design.status).toBe("REGISTERED")
      }
    }).pipe(Effect.provide(clientLayer())))

  it.effect("getDesign returns the whole record with dates decoded", () =>
    Effect.gen(function*() {
      const { data } = yield* (yield* Client).getDesign(chair)
      expect(data).toMatchObject({ number: chair, title: "Chair", status: "REGISTERED" })
      expect(data.classifications?.[0]?.code).toBe("06-01")
      expect(data.filingDate && DateTime.toEpochMillis(data.filingDate)).toBe(Date.UTC(2019, 2, 14))
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 200 with messages returns them beside the data", () =>
    Effect.gen(function*() {
      const { data, messages } = yield* (yield* Client).quickSearch({ query: "chair" })
      expect(data.designNumbers).toHaveLength(2)
      expect(data.count).toBeGreaterThan(2)
      expect(messages).toHaveLength(1)
      expect(messages[0]).toMatchObject({ severity: "warning", code: "RESULT_LIMIT" })
    }).pipe(Effect.provide(clientLayer({ sandbox: { resultCap: 2 } }))))

  it.effect("messages with an unknown severity and extension attributes are kept", () =>
    Effect.gen(function*() {
      const message = { code: "NOTE", detail: "beta", severity: "notice", link: "https://example.test/help" }
      yield* (yield* control).injectFault({
        target: "search",
        status: 200,
        body: { data: { count: 0, designNumbers: [] }, messages: [message] }
      })
      const { messages } = yield* (yield* Client).quickSearch({ query: "chair" })
      expect(messages).toEqual([message])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a payload without the data envelope is returned as data", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "search", status: 200, body: { count: 1, designNumbers: [chair] } })
      const response = yield* (yield* Client).quickSearch({ query: "anything" })
      expect(response).toEqual({ data: { count: 1, designNumbers: [chair] }, messages: [] })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("searchDesigns streams every hit in full, in search order", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data } = yield* client.quickSearch({ query: "table" })
      let seen = -1
      const designs = yield* Stream.runCollect(
        client.searchDesigns({ query: "table" }, {
          concurrency: 4,
          onSearch: (r) => Effect.sync(() => void (seen = r.data.count))
        })
      )
      expect(seen).toBe(data.count)
      expect([...designs].map((d) => d.number)).toEqual(data.designNumbers)
      expect((yield* sandboxStats).requests.design).toBe(data.count)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("searchDesigns refuses a concurrency that is not a positive integer, or a bad onSearch, before sending", () =>
    Effect.gen(function*() {
      const client = yield* Client
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

  it.effect("searchDesigns emits the designs before a failing one, then its error", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { bottle, chair, wristWatch } = Sandbox.fixedNumbers
      const body = { count: 4, designNumbers: [chair, bottle, "999999999", wristWatch] }
      yield* (yield* control).injectFault({ target: "search", status: 200, body })
      const seen: Array<string> = []
      const error = yield* Effect.flip(Stream.runForEach(
        client.searchDesigns({ query: "anything" }, { concurrency: 2 }),
        (d) => Effect.sync(() => void seen.push(d.number))
      ))
      expect(error).toMatchObject({ _tag: "NotFoundError", status: 404 })
      expect(seen).toEqual([chair, bottle])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("transformClient applies to API calls", () =>
    Effect.gen(function*() {
      let seen = 0
      const layer = clientLayer({
        client: { transformClient: HttpClient.tapRequest(() => Effect.sync(() => void seen++)) }
      })
      yield* Effect.provide(Effect.flatMap(Client, (c) => c.getDesign(chair)), layer)
      expect(seen).toBe(1)
    }))

  it.effect("each operation is a client span, the parent of its request's span", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      yield* Effect.withTracer(Effect.flatMap(Client, (c) => c.getDesign(chair)), tracer)
      const operation = spans.find((s) => s.name === "DesignSearchClient.getDesign")
      expect(operation).toMatchObject({ kind: "client" })
      expect(operation?.attributes.get("designNumber")).toBe(chair)
      // the HttpClient names its request span as its edition does
      const requestName = { 3: "http.client GET", 4: "GET" }[edition]
      const request = spans.find((s) => s.name === requestName && s.attributes.get("url.path") !== undefined)
      expect(request && Option.getOrUndefined(request.parent)).toBe(operation)
    }).pipe(Effect.provide(clientLayer())))
})

describe("DesignSearchClient: requests that fail their own schema are not sent", () => {
  const cases = [
    ["an empty query", { query: "  " }, "/query"],
    ["a date that is not YYYY-MM-DD", { query: "chair", changedSinceDate: "01/10/2001" }, "/changedSinceDate"],
    ["a date that does not exist", { query: "chair", changedSinceDate: "2023-02-30" }, "/changedSinceDate"],
    ["an empty status filter value", { query: "chair", filters: { statusFilter: [""] } }, "/filters/statusFilter/0"],
    ["an unknown sort direction", { query: "chair", sort: { field: "NUMBER", direction: "UP" } }, "/sort/direction"]
  ] as const
  for (const [name, request, pointer] of cases) {
    it.effect(`quickSearch with ${name}`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip((yield* Client).quickSearch(request as never))
        expect(error._tag).toBe("ValidationError")
        if (error._tag !== "ValidationError") return
        expect(error.origin).toBe("client")
        expect(error.errors.map((e) => e.source?.pointer)).toEqual([pointer])
        expect((yield* sandboxStats).requests).toEqual(noRequests)
      }).pipe(Effect.provide(clientLayer())))
  }

  it.effect("a request or options whose getter throws die with the caller's own error, and send nothing", () =>
    Effect.gen(function*() {
      const own = new Error("the caller's own")
      const request = {
        get query(): string {
          throw own
        }
      }
      const exit = yield* Effect.exit((yield* Client).quickSearch(request))
      expect(Exit.isFailure(exit) && hasDie(exit.cause)).toBe(true)
      expect(Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined).toBe(own)
      expect((yield* sandboxStats).requests).toEqual(noRequests)
      // the paged streams too: the call returns a stream, which dies with it when run
      const options = {
        get concurrency(): number {
          throw own
        }
      }
      const streams = [
        (yield* Client).advancedDesigns({ rows: [{ op: "AND", query: { owner: "x" } }] }, options),
        (yield* Client).searchDesigns({ query: "chair" }, options)
      ]
      for (const stream of streams) {
        const ran = yield* Effect.exit(Stream.runDrain(stream))
        expect(Exit.isFailure(ran) ? Cause.squash(ran.cause) : undefined).toBe(own)
      }
      expect((yield* sandboxStats).requests).toEqual(noRequests)
    }).pipe(Effect.provide(clientLayer())))

  const numbers = [
    "",
    "1234567890123",
    "../201900001",
    "2019%2F0001",
    "2019/0001",
    "2019?1",
    "2019#1",
    "2019 0001",
    "２０１９"
  ]
  for (const n of numbers) {
    it.effect(`getDesign(${JSON.stringify(n)})`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip((yield* Client).getDesign(n))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
        if (error._tag !== "ValidationError") return
        expect(error.errors[0]?.source?.parameter).toBe("ipRightIdentifier")
        expect((yield* sandboxStats).requests).toEqual(noRequests)
      }).pipe(Effect.provide(clientLayer())))
  }
})

describe("DesignSearchClient: authentication", () => {
  it.effect("a 401 with a revoked token: one new token, one retry, success", () =>
    Effect.gen(function*() {
      const client = yield* Client
      yield* client.getDesign(chair)
      yield* (yield* control).revokeTokens
      const { data } = yield* client.getDesign(chair)
      expect(data.number).toBe(chair)
      const stats = yield* sandboxStats
      expect(stats.requests.token).toBe(2)
      expect(stats.requests.design).toBe(3)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a second 401 is an AuthenticationError", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 401, count: 2 })
      const error = yield* Effect.flip((yield* Client).getDesign(chair))
      expect(error._tag).toBe("AuthenticationError")
      const stats = yield* sandboxStats
      expect(stats.requests.token).toBe(2)
      expect(stats.requests.design).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 403 is a ForbiddenError and asks for no new token", () =>
    Effect.gen(function*() {
      const client = yield* Client
      yield* client.getDesign(chair)
      yield* (yield* control).injectFault({ target: "design", status: 403, body: "Invalid Client" })
      const error = yield* Effect.flip(client.getDesign(chair))
      expect(error).toMatchObject({ _tag: "ForbiddenError", status: 403, errors: [], excerpt: "Invalid Client" })
      const stats = yield* sandboxStats
      expect(stats.requests.token).toBe(1)
      expect(stats.requests.design).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("bad credentials surface as TokenError InvalidCredentials from an API call", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Client).quickSearch({ query: "chair" }))
      expect(error).toMatchObject({ _tag: "TokenError", reason: "InvalidCredentials" })
      expect((yield* sandboxStats).requests).toEqual({ ...noRequests, token: 1 })
    }).pipe(Effect.provide(clientLayer({ config: { clientId: "someone-else" } }))))
})

/** The error table of DESIGN.md, row by row, with bodies in every format a gateway may send. */
describe("DesignSearchClient: every status gives its typed error", () => {
  const bodies = {
    spec: { errors: [{ id: "e1", code: "E_CODE", detail: "what went wrong", source: { parameter: "query" } }] },
    html: "<html><body><h1>502 Bad Gateway</h1></body></html>",
    text: "upstream connect error",
    empty: "",
    message: { message: "Endpoint request timed out" },
    error: { error: "Design [123] not found" }
  } as const

  const rows: ReadonlyArray<readonly [number, string]> = [
    ...Object.entries({ 400: "BadRequestError", 403: "ForbiddenError", 404: "NotFoundError" }),
    ...Object.entries({ 409: "UnexpectedResponseError", 422: "ValidationError", 429: "RateLimitError" }),
    ...Object.entries({ 500: "ServerError", 502: "ServerError", 503: "ServerError", 504: "ServerError" })
  ].map(([status, tag]) => [Number(status), tag])

  for (const [status, tag] of rows) {
    for (const [format, body] of Object.entries(bodies)) {
      it.effect(`${status} with a ${format} body → ${tag}`, () =>
        Effect.gen(function*() {
          yield* (yield* control).injectFault({ target: "design", status, body })
          const error = yield* Effect.flip((yield* Client).getDesign(chair))
          expect(error._tag).toBe(tag)
          expect((yield* sandboxStats).requests.design).toBe(1)
          if (!("status" in error)) return
          expect(error.status).toBe(status)
          if (error._tag === "UnexpectedResponseError") return
          if (!("errors" in error)) return
          if (format === "spec") {
            expect(error.errors).toEqual(bodies.spec.errors)
          } else if (format === "message" || format === "error") {
            // A gateway's or the sibling API's own shape: its text is the detail, its code the status.
            const detail = format === "message" ? bodies.message.message : bodies.error.error
            expect(error.errors).toEqual([{ code: String(status), detail }])
            expect(error.message).toContain(detail)
          } else {
            expect(error.errors).toEqual([])
            expect(error.excerpt).toBe(typeof body === "string" ? body : JSON.stringify(body))
          }
        }).pipe(Effect.provide(clientLayer(noRetry))))
    }
  }

  it.effect("a 404 from quick search, which has no such outcome, is an UnexpectedResponseError", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "search", status: 404 })
      const error = yield* Effect.flip((yield* Client).quickSearch({ query: "chair" }))
      expect(error).toMatchObject({ _tag: "UnexpectedResponseError", status: 404 })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 500 carries code \"500\"", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "search", status: 500 })
      const error = yield* Effect.flip((yield* Client).quickSearch({ query: "chair" }))
      expect(error._tag).toBe("ServerError")
      if (error._tag === "ServerError") expect(error.errors[0]?.code).toBe("500")
      expect((yield* sandboxStats).requests.search).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 400 carries source.parameter and a 422 source.pointer", () =>
    Effect.gen(function*() {
      const sandbox = yield* control
      yield* sandbox.injectFault({
        target: "search",
        status: 400,
        body: { errors: [{ id: "a", code: "BAD", detail: "bad sort", source: { parameter: "sort" } }] }
      })
      yield* sandbox.injectFault({
        target: "search",
        status: 422,
        body: {
          errors: [{ id: "b", code: "MISSING", detail: "required", source: { pointer: "/query" } }],
          messages: []
        }
      })
      const client = yield* Client
      const bad = yield* Effect.flip(client.quickSearch({ query: "chair" }))
      const invalid = yield* Effect.flip(client.quickSearch({ query: "chair" }))
      expect(bad).toMatchObject({ _tag: "BadRequestError", errors: [{ source: { parameter: "sort" } }] })
      expect(invalid).toMatchObject({
        _tag: "ValidationError",
        origin: "server",
        errors: [{ source: { pointer: "/query" } }]
      })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 200 whose body fits no schema is an UnexpectedResponseError naming the issue", () =>
    Effect.gen(function*() {
      const sandbox = yield* control
      yield* sandbox.injectFault({ target: "design", status: 200, body: { title: "no number" } })
      yield* sandbox.injectFault({ target: "design", status: 200, body: "{\"number\": \"2019" })
      yield* sandbox.injectFault({ target: "design", status: 200, body: "" })
      const client = yield* Client
      const wrongShape = yield* Effect.flip(client.getDesign(chair))
      const truncated = yield* Effect.flip(client.getDesign(chair))
      const empty = yield* Effect.flip(client.getDesign(chair))
      expect(wrongShape).toMatchObject({ _tag: "UnexpectedResponseError", status: 200 })
      if (wrongShape._tag === "UnexpectedResponseError") expect(wrongShape.issue).toContain("number")
      expect(truncated).toMatchObject({ _tag: "UnexpectedResponseError", issue: "body is not JSON" })
      expect(empty).toMatchObject({ _tag: "UnexpectedResponseError", issue: "empty body" })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a body over the cap is refused without being read", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 200, body: "x".repeat(2048) })
      const error = yield* Effect.flip((yield* Client).getDesign(chair))
      expect(error).toMatchObject({ _tag: "UnexpectedResponseError", status: 200 })
      if (error._tag === "UnexpectedResponseError") expect(error.issue).toContain("exceeds the cap of 1024 bytes")
    }).pipe(Effect.provide(clientLayer({ config: { maxBodyBytes: 1024 } }))))

  const unreachable = HttpClient.make((request) =>
    Effect.fail(requestError(request, "Transport", { description: "ECONNREFUSED" }))
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

describe("DesignSearchClient: retries of read-only calls", () => {
  it.effect("503, 503, then success: the call succeeds after backoff", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 503, count: 2 })
      const exit = yield* withTime(Effect.exit((yield* Client).getDesign(chair)), "10 seconds")
      expect(Exit.isSuccess(exit)).toBe(true)
      expect((yield* sandboxStats).requests.design).toBe(3)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 500 is not retried; a 503 that persists gives up after three retries", () =>
    Effect.gen(function*() {
      const sandbox = yield* control
      const client = yield* Client
      yield* sandbox.injectFault({ target: "design", status: 500 })
      yield* Effect.flip(client.getDesign(chair))
      expect((yield* sandboxStats).requests.design).toBe(1)
      yield* sandbox.injectFault({ target: "design", status: 503, count: 10 })
      expect(yield* withTime(Effect.flip(client.getDesign(chair)), "1 minute")).toMatchObject({
        _tag: "ServerError",
        status: 503
      })
      expect((yield* sandboxStats).requests.design).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a 429 waits for its Retry-After before the retry", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 429, headers: { "retry-after": "20" } })
      const fiber = yield* forkChild((yield* Client).getDesign(chair))
      yield* TestClock.adjust("19 seconds")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      expect((yield* sandboxStats).requests.design).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect((yield* sandboxStats).requests.design).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a Retry-After beyond the cap gives up at once with RateLimitError", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 429, headers: { "retry-after": "3600" } })
      const error = yield* Effect.flip((yield* Client).getDesign(chair))
      expect(error).toMatchObject({ _tag: "RateLimitError", status: 429 })
      if (error._tag === "RateLimitError") expect(error.retryAfter && Duration.toSeconds(error.retryAfter)).toBe(3600)
      expect((yield* sandboxStats).requests.design).toBe(1)
    }).pipe(Effect.provide(clientLayer())))
})

/** A loopback server that answers the token endpoint and any API path, recording the API paths. */
const recordingServer = Effect.suspend(() => {
  const paths: Array<string> = []
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      const url = request.url ?? ""
      const body = url === DesignSearchConfig.tokenPath
        ? { access_token: "a.b.c", expires_in: 3600, token_type: "Bearer" }
        : url.includes("/design/")
        ? { number: url.slice(url.lastIndexOf("/") + 1) }
        : { count: 0, designNumbers: [] }
      if (url !== DesignSearchConfig.tokenPath) paths.push(url)
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
    })
  })
  return Effect.map(listening(server), (port) => ({ url: `http://127.0.0.1:${port}`, paths }))
})

/** The client over the default transport, its tokens from `authUrl`, its API at `baseUrl`. */
const overDefaultTransport = (authUrl: string, baseUrl: string, options: DesignSearchClient.Options = {}) =>
  DesignSearchClient.layer(options).pipe(
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provide(Layer.orDie(DesignSearchConfig.layer({ clientId: "id", clientSecret: "secret", authUrl, baseUrl })))
  )

describe("DesignSearchClient: the default transport's fast lane", () => {
  it.live("sends to the API's paths, whether the API lives at the root of its host or below it", () =>
    Effect.gen(function*() {
      const served = yield* recordingServer
      for (const base of ["", "/api/v1"]) {
        served.paths.length = 0
        yield* Effect.flatMap(Client, (c) => Effect.zip(c.quickSearch({ query: "chair" }), c.getDesign("123"))).pipe(
          Effect.provide(overDefaultTransport(served.url, served.url + base))
        )
        expect(served.paths).toEqual([`${base}/search/quick`, `${base}/design/123`])
      }
    }).pipe(Effect.scoped))

  it.live("a failure names the whole URL of the request", () =>
    Effect.gen(function*() {
      const served = yield* recordingServer
      // a port that was free a moment ago and is closed now: nothing listens there
      const closedPort = yield* Effect.scoped(listening(createServer()))
      const baseUrl = `http://127.0.0.1:${closedPort}/api/v1`
      const error = yield* Effect.flip(
        Effect.flatMap(Client, (c) => c.getDesign("123")).pipe(
          Effect.provide(overDefaultTransport(served.url, baseUrl, noRetry.client))
        )
      )
      expect(error).toMatchObject({ _tag: "TransportError", method: "GET", url: `${baseUrl}/design/123` })
    }).pipe(Effect.scoped))
})
