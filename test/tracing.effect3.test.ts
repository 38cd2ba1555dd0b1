/**
 * Traces across the wire (`src/internal/tracing.ts`), under OpenTelemetry (`@effect/opentelemetry`
 * with an in-memory exporter) and under Effect's built-in tracer, over a loopback server of the
 * test's own that records the trace headers of every request: the operation spans, the token
 * fetch's span and its parent, and the `traceparent` each API and token request carries, over
 * `FetchHttpClient` (the default), `NodeHttpClient` and `NodeHttpClient.layerUndici` with a
 * `transformClient`. The `HttpClient` sends the header itself, naming its request span under the
 * current one: the operation's for an API request, the token fetch's own for a token request.
 * Effect 3 only, as `@effect/opentelemetry` is; `DesignSearchClient.test.ts` checks spans in both.
 */
import { NodeSdk } from "@effect/opentelemetry"
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import { Duration, Effect, Layer, Option, TestClock } from "effect"
import type { Tracer } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import { DesignSearchClient, DesignSearchConfig, TokenService } from "../src/index.js"
import { listening } from "./support/loopback.js"
import { recordingTracer } from "./support/tracing.js"

/** A request as the server saw it: its path and its trace header. */
interface Seen {
  readonly path: string
  readonly traceparent: string | undefined
}

const tokenPath = "/public/external-token-api/v1/access_token"

interface Served {
  readonly url: string
  readonly seen: Array<Seen>
  /** Waits until the requests seen satisfy `predicate`. */
  readonly awaitSeen: (predicate: (seen: ReadonlyArray<Seen>) => boolean) => Effect.Effect<void>
}

/** A loopback server of the service: a token, a design, an empty search; every request recorded. */
const serve: Effect.Effect<Served, never, Scope.Scope> = Effect.suspend(
  () => {
    const seen: Array<Seen> = []
    const listeners = new Set<() => void>()
    const awaitSeen = (predicate: (seen: ReadonlyArray<Seen>) => boolean) =>
      Effect.async<void>((resume) => {
        const check = () => {
          if (!predicate(seen)) return
          listeners.delete(check)
          resume(Effect.void)
        }
        listeners.add(check)
        check()
        return Effect.sync(() => void listeners.delete(check))
      })
    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        const path = request.url ?? ""
        const traceparent = request.headers["traceparent"]
        seen.push({ path, traceparent: typeof traceparent === "string" ? traceparent : undefined })
        const body = path === tokenPath
          ? { access_token: "token-1", token_type: "Bearer", expires_in: 3600 }
          : path.startsWith("/api/design/")
          ? { number: path.slice("/api/design/".length) }
          : { count: 0, designNumbers: [] }
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
        listeners.forEach((listener) => listener())
      })
    })
    return Effect.map(listening(server), (port) => ({ url: `http://127.0.0.1:${port}`, seen, awaitSeen }))
  }
)

const config = (url: string, options: Partial<DesignSearchConfig.Options> = {}) =>
  DesignSearchConfig.layer({
    clientId: "client",
    clientSecret: "secret",
    authUrl: url,
    baseUrl: `${url}/api`,
    ...options
  })

/** The `HttpClient`s an application provides, each as the layer of a client over it. */
const transports = {
  FetchHttpClient: (url: string) =>
    DesignSearchClient.layer().pipe(Layer.provide(config(url)), Layer.provide(FetchHttpClient.layer)),
  NodeHttpClient: (url: string) =>
    DesignSearchClient.layer().pipe(Layer.provide(config(url)), Layer.provide(NodeHttpClient.layer)),
  "NodeHttpClient.layerUndici with a transformClient": (url: string) =>
    DesignSearchClient.layer({ transformClient: HttpClient.filterStatusOk }).pipe(
      Layer.provide(config(url)),
      Layer.provide(NodeHttpClient.layerUndici)
    )
}

/** OpenTelemetry's tracer, its spans kept in memory. */
const otel = (exporter: InMemorySpanExporter) =>
  NodeSdk.layer(() => ({ resource: { serviceName: "tracing-test" }, spanProcessor: new SimpleSpanProcessor(exporter) }))

/** The spans ended so far: read before the SDK shuts down, which empties the exporter. */
const finished = (exporter: InMemorySpanExporter) => Effect.sync(() => exporter.getFinishedSpans())

const parsed = (traceparent: string | undefined) => {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent ?? "")
  expect(match, `traceparent ${traceparent}`).not.toBeNull()
  return { traceId: match?.[1] ?? "", spanId: match?.[2] ?? "" }
}

const named = (spans: ReadonlyArray<ReadableSpan>, name: string): ReadableSpan => {
  const found = spans.filter((s) => s.name === name)
  expect(found.map((s) => s.name), `spans: ${spans.map((s) => s.name).join(", ")}`).toEqual([name])
  return found[0]!
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

/**
 * Whether `traceparent` names `span` itself, or a request span (`http.client ...`) right under it,
 * which a client that makes request spans sends instead.
 */
const namesSpanOrItsRequest = (
  spans: ReadonlyArray<ReadableSpan>,
  traceparent: string | undefined,
  span: ReadableSpan
) => {
  const { spanId, traceId } = parsed(traceparent)
  expect(traceId).toBe(span.spanContext().traceId)
  if (spanId === span.spanContext().spanId) return
  const request = spans.find((s) => s.spanContext().spanId === spanId)
  expect(request?.name, `the span ${spanId} of the header`).toMatch(/^http\.client /)
  expect(request === undefined ? undefined : parentOf(request)).toBe(span.spanContext().spanId)
}

describe("traces across the wire", () => {
  for (const [name, clientLayer] of Object.entries(transports)) {
    it.live(`${name}: operation spans, the token fetch under the layer's span, traceparent on every request`, () =>
      Effect.gen(function*() {
        const exporter = new InMemorySpanExporter()
        const { seen, url } = yield* serve
        const spans = yield* Effect.gen(function*() {
          const client = yield* DesignSearchClient.DesignSearchClient
          yield* Effect.withSpan(client.getDesign("201900001"), "app.request")
          yield* Effect.withSpan(client.quickSearch({ query: "chair" }), "app.search")
        }).pipe(
          Effect.provide(clientLayer(url).pipe(Layer.withSpan("app.start"))),
          Effect.zipRight(finished(exporter)),
          Effect.provide(otel(exporter))
        )
        const start = named(spans, "app.start")
        const request = named(spans, "app.request")
        const getDesign = named(spans, "DesignSearchClient.getDesign")
        const quickSearch = named(spans, "DesignSearchClient.quickSearch")
        const fetch = named(spans, "TokenService.fetch")
        expect(parentOf(getDesign)).toBe(request.spanContext().spanId)
        expect(parentOf(quickSearch)).toBe(named(spans, "app.search").spanContext().spanId)
        // the fetch belongs to the layer, and is linked to the call that started it
        expect(parentOf(fetch)).toBe(start.spanContext().spanId)
        expect(fetch.spanContext().traceId).toBe(start.spanContext().traceId)
        expect(fetch.links.map((l) => l.context.spanId)).toEqual([getDesign.spanContext().spanId])

        expect(seen.map((s) => s.path)).toEqual([tokenPath, "/api/design/201900001", "/api/search/quick"])
        namesSpanOrItsRequest(spans, seen[0]?.traceparent, fetch)
        namesSpanOrItsRequest(spans, seen[1]?.traceparent, getDesign)
        namesSpanOrItsRequest(spans, seen[2]?.traceparent, quickSearch)
      }).pipe(Effect.scoped))
  }

  it.live("a layer built in no span fetches its token in a root span, linked to the call that started it", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      const { seen, url } = yield* serve
      const spans = yield* Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.getDesign("201900001")).pipe(
        Effect.withSpan("app.request"),
        Effect.provide(transports.FetchHttpClient(url)),
        Effect.zipRight(finished(exporter)),
        Effect.provide(otel(exporter))
      )
      const fetch = named(spans, "TokenService.fetch")
      const getDesign = named(spans, "DesignSearchClient.getDesign")
      expect(parentOf(fetch)).toBeUndefined()
      expect(fetch.spanContext().traceId).not.toBe(getDesign.spanContext().traceId)
      expect(fetch.links.map((l) => l.context.spanId)).toEqual([getDesign.spanContext().spanId])
      namesSpanOrItsRequest(spans, seen[0]?.traceparent, fetch)
      namesSpanOrItsRequest(spans, seen[1]?.traceparent, getDesign)
    }).pipe(Effect.scoped))

  it.scoped("a refresh ahead of expiry is a span of the layer too, its token request under it", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      const { awaitSeen, seen, url } = yield* serve
      const spans = yield* Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        const tokens = yield* TokenService.TokenService
        yield* client.getDesign("201900001")
        yield* client.getDesign("201900002") // the token is now in use, so it is refreshed
        // to the refresh, a minute ahead of expiry; its deadline (a minute) is on the same clock
        yield* TestClock.adjust(Duration.minutes(59))
        yield* awaitSeen((all) => all.filter((s) => s.path === tokenPath).length === 2)
        // past the skew (30 s), within that deadline: the refresh's token is needed
        yield* TestClock.adjust(Duration.seconds(45))
        yield* tokens.get
      }).pipe(
        Effect.withSpan("app.request"),
        Effect.provide(
          DesignSearchClient.layer().pipe(
            Layer.provide(config(url, { tokenTimeout: Duration.minutes(1) })),
            Layer.provide(FetchHttpClient.layer),
            Layer.withSpan("app.start")
          )
        ),
        Effect.zipRight(finished(exporter)),
        Effect.provide(otel(exporter))
      )
      const refresh = named(spans, "TokenService.refresh")
      expect(parentOf(refresh)).toBe(named(spans, "app.start").spanContext().spanId)
      expect(refresh.links).toEqual([])
      expect(seen.filter((s) => s.path === tokenPath)).toHaveLength(2)
      namesSpanOrItsRequest(spans, seen.filter((s) => s.path === tokenPath)[1]?.traceparent, refresh)
    }))

  it.live("Effect.locally(HttpClient.currentTracerPropagation, false) around a call keeps the header off", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      const { seen, url } = yield* serve
      yield* Effect.flatMap(DesignSearchClient.DesignSearchClient, (client) => client.getDesign("201900001")).pipe(
        Effect.locally(HttpClient.currentTracerPropagation, false),
        Effect.withSpan("app.request"),
        Effect.provide(transports.FetchHttpClient(url).pipe(Layer.withSpan("app.start"))),
        Effect.provide(otel(exporter))
      )
      expect(seen.map((s) => s.traceparent)).toEqual([undefined, undefined])
    }).pipe(Effect.scoped))

  it.live("under the built-in tracer: API requests in the caller's trace; the token request in its own, never under the caller", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve
      const { spans, tracer } = yield* recordingTracer
      const caller = yield* Effect.flatMap(DesignSearchClient.DesignSearchClient, (client) =>
        Effect.withSpan(
          Effect.zipRight(client.getDesign("201900001"), Effect.currentSpan),
          "app.request"
        )).pipe(Effect.provide(transports.FetchHttpClient(url)), Effect.withTracer(tracer))
      expect(seen.map((s) => s.path)).toEqual([tokenPath, "/api/design/201900001"])
      const fetch = spans.filter((s) => s.name === "TokenService.fetch")
      const getDesign = spans.filter((s) => s.name === "DesignSearchClient.getDesign")
      expect([fetch.length, getDesign.length]).toEqual([1, 1])
      expect(Option.getOrUndefined(fetch[0]!.parent)).toBeUndefined()
      expect(Option.getOrUndefined(getDesign[0]!.parent)?.spanId).toBe(caller.spanId)

      const spanOf = (traceparent: string | undefined): Tracer.Span | undefined => {
        const { spanId, traceId } = parsed(traceparent)
        return spans.find((s) => s.spanId === spanId && s.traceId === traceId)
      }
      // each header names a request span of the HttpClient, right under the span it belongs to
      const tokenRequest = spanOf(seen[0]?.traceparent)
      const apiRequest = spanOf(seen[1]?.traceparent)
      expect(tokenRequest?.name).toMatch(/^http\.client /)
      expect(apiRequest?.name).toMatch(/^http\.client /)
      expect(Option.getOrUndefined(tokenRequest!.parent)?.spanId).toBe(fetch[0]!.spanId)
      expect(Option.getOrUndefined(apiRequest!.parent)?.spanId).toBe(getDesign[0]!.spanId)
      expect(tokenRequest!.traceId).not.toBe(caller.traceId)
      expect(apiRequest!.traceId).toBe(caller.traceId)
    }).pipe(Effect.scoped))

  it.live("HttpClient.withTracerPropagation(false) in a transformClient keeps the header off API requests", () =>
    Effect.gen(function*() {
      const { seen, url } = yield* serve
      const caller = yield* Effect.flatMap(
        DesignSearchClient.DesignSearchClient,
        (client) => Effect.zipRight(client.getDesign("201900001"), Effect.currentSpan)
      ).pipe(
        Effect.withSpan("app.request"),
        Effect.provide(
          DesignSearchClient.layer({ transformClient: HttpClient.withTracerPropagation(false) }).pipe(
            Layer.provide(config(url)),
            Layer.provide(NodeHttpClient.layerUndici)
          )
        )
      )
      expect(seen.map((s) => s.path)).toEqual([tokenPath, "/api/design/201900001"])
      expect(seen[1]?.traceparent).toBeUndefined()
      // a transformClient is the API's: the token request still tells its own span, not the caller's
      expect(parsed(seen[0]?.traceparent).traceId).not.toBe(caller.traceId)
    }).pipe(Effect.scoped))
})
