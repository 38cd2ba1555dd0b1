/**
 * `UndiciHttpClient`, the default Node transport, over a loopback server of the test's own: a
 * response's status, headers and body (text, JSON, streamed), a request's body, query parameters
 * and hash, interruption closing the socket, the layers and what they provide, and a client over
 * `layer` sending on the dispatcher directly (no `http.client` span) unless it transforms the client.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpClientError } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { Tracer } from "effect"
import { Chunk, Context, Deferred, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { Agent } from "undici"
import { DesignSearchClient, DesignSearchConfig, Sandbox, UndiciHttpClient } from "../src/index.js"
import { listening } from "./support/loopback.js"
import { recordingTracer } from "./support/tracing.js"

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void

/** A loopback HTTP server answering with `handler` once it has read each request's body; its base URL. */
const serve = (handler: Handler): Effect.Effect<string, never, Scope.Scope> =>
  Effect.map(
    listening(createServer((request, response) => {
      let body = ""
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => void (body += chunk))
      request.on("end", () => handler(request, response, body))
    })),
    (port) => `http://127.0.0.1:${port}`
  )

/** What the server saw of a request, sent back as JSON. */
interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly body: string
}

const echo: Handler = (request, response, body) => {
  const seen: Seen = { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body }
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify(seen))
}

/** Sends `request` over `layer`'s client and answers what the echo server saw. */
const seenOf = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request)).pipe(
    Effect.flatMap((response) => response.json),
    Effect.map((json) => json as Seen),
    Effect.scoped,
    Effect.provide(UndiciHttpClient.layer)
  )

const encoder = new TextEncoder()
const decoder = new TextDecoder()

describe("UndiciHttpClient responses", () => {
  it.scopedLive("status, lower-cased headers, cookies, text and JSON, the body read once for both", () =>
    Effect.gen(function*() {
      const base = yield* serve((_request, response) => {
        response.writeHead(
          201,
          [
            ["Content-Type", "application/json; charset=utf-8"],
            ["X-Custom-Header", "Mixed Case Value"],
            ["Set-Cookie", "a=1; Path=/"],
            ["Set-Cookie", "b=2; Path=/"]
          ].flat()
        )
        response.end(JSON.stringify({ hello: "wörld", n: [1, 2] }))
      })
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get(base + "/answer")
      expect(response.status).toBe(201)
      expect(response.headers["x-custom-header"]).toBe("Mixed Case Value")
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8")
      for (const name of Object.keys(response.headers)) expect(name).toBe(name.toLowerCase())
      expect(response.cookies.cookies["a"]?.value).toBe("1")
      expect(response.cookies.cookies["b"]?.value).toBe("2")
      expect(yield* response.text).toBe(JSON.stringify({ hello: "wörld", n: [1, 2] }))
      // a second read of the body answers the first one's result
      expect(yield* response.json).toEqual({ hello: "wörld", n: [1, 2] })
      expect(yield* response.text).toBe(JSON.stringify({ hello: "wörld", n: [1, 2] }))
    }).pipe(Effect.provide(UndiciHttpClient.layer)))

  it.scopedLive("an empty body is JSON null; a body that is not JSON is a Decode ResponseError", () =>
    Effect.gen(function*() {
      const base = yield* serve((request, response) => {
        response.writeHead(200, { "content-type": "text/plain" })
        response.end(request.url === "/empty" ? "" : "<html>not json</html>")
      })
      const client = yield* HttpClient.HttpClient
      expect(yield* Effect.flatMap(client.get(base + "/empty"), (r) => r.json)).toBeNull()
      const error = yield* Effect.flip(Effect.flatMap(client.get(base + "/html"), (r) => r.json))
      expect(error).toMatchObject({ _tag: "ResponseError", reason: "Decode" })
      expect(yield* Effect.flatMap(client.get(base + "/html"), (r) => r.text)).toBe("<html>not json</html>")
    }).pipe(Effect.provide(UndiciHttpClient.layer)))

  it.scopedLive("stream hands over each chunk as it arrives, before the response has ended", () =>
    Effect.gen(function*() {
      const more = yield* Deferred.make<void>()
      const base = yield* serve((_request, response) => {
        response.writeHead(200, { "content-type": "text/plain" })
        response.write("first|")
        // the rest only once the test has read the first chunk
        Effect.runFork(Effect.andThen(Deferred.await(more), () => response.end("second|third")))
      })
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get(base + "/stream")
      const firstArrived = yield* Deferred.make<string>()
      const reader = yield* Effect.fork(
        response.stream.pipe(
          Stream.map((chunk) => decoder.decode(chunk)),
          Stream.tap((text) => Deferred.succeed(firstArrived, text)),
          Stream.runCollect
        )
      )
      const first = yield* Deferred.await(firstArrived).pipe(
        Effect.timeoutFail({
          duration: "10 seconds",
          onTimeout: () => "the first chunk waited for the end of the response"
        })
      )
      expect(first).toBe("first|")
      yield* Deferred.succeed(more, undefined)
      const chunks = yield* Fiber.join(reader)
      expect(Chunk.join(chunks, "")).toBe("first|second|third")
    }).pipe(Effect.provide(UndiciHttpClient.layer)))
})

describe("UndiciHttpClient requests", () => {
  it.scopedLive("method, headers and a JSON text body reach the server", () =>
    Effect.gen(function*() {
      const base = yield* serve(echo)
      const payload = { query: "chair & table", nested: { n: 1, list: ["ä", "b"] } }
      const seen = yield* seenOf(
        HttpClientRequest.post(base + "/search/quick").pipe(
          HttpClientRequest.setHeader("X-Request-Id", "abc-123"),
          HttpClientRequest.bodyText(JSON.stringify(payload), "application/json")
        )
      )
      expect(seen.method).toBe("POST")
      expect(seen.url).toBe("/search/quick")
      expect(seen.headers["x-request-id"]).toBe("abc-123")
      expect(seen.headers["content-type"]).toBe("application/json")
      expect(JSON.parse(seen.body)).toEqual(payload)
    }))

  it.scopedLive("a streamed body reaches the server whole", () =>
    Effect.gen(function*() {
      const base = yield* serve(echo)
      const seen = yield* seenOf(
        HttpClientRequest.post(base + "/upload").pipe(
          HttpClientRequest.bodyStream(
            Stream.make("{\"a\":", "[1,", "2]}").pipe(Stream.map((s) => encoder.encode(s))),
            {
              contentType: "application/json"
            }
          )
        )
      )
      expect(seen.headers["content-type"]).toBe("application/json")
      expect(JSON.parse(seen.body)).toEqual({ a: [1, 2] })
    }))

  it.scopedLive("query parameters are appended to the path, the hash is never sent; a bare origin asks for /", () =>
    Effect.gen(function*() {
      const base = yield* serve(echo)
      const withParams = yield* seenOf(
        HttpClientRequest.get(base + "/designs").pipe(
          HttpClientRequest.setUrlParams({ q: "chair & table", page: "2" }),
          HttpClientRequest.setHash("section")
        )
      )
      const url = new URL(withParams.url, base)
      expect(url.pathname).toBe("/designs")
      expect([...url.searchParams]).toEqual([["q", "chair & table"], ["page", "2"]])
      expect(withParams.url).not.toContain("#")
      expect(withParams.url).not.toContain("section")
      // a query written into the URL is kept, and parameters are appended after it
      const written = yield* seenOf(
        HttpClientRequest.get(base + "/designs?x=1#frag").pipe(HttpClientRequest.appendUrlParam("y", "a b"))
      )
      expect(written.url).toBe("/designs?x=1&y=a+b")
      const hashOnly = yield* seenOf(HttpClientRequest.get(base + "/plain").pipe(HttpClientRequest.setHash("h")))
      expect(hashOnly.url).toBe("/plain")
      expect((yield* seenOf(HttpClientRequest.get(base))).url).toBe("/")
    }))

  it.scopedLive("interrupting a request in flight closes its socket: the server sees it", () =>
    Effect.gen(function*() {
      const received = yield* Deferred.make<void>()
      const closed = yield* Deferred.make<void>()
      const base = yield* serve((request) => {
        // never answers
        request.socket.once("close", () => Deferred.unsafeDone(closed, Effect.void))
        Deferred.unsafeDone(received, Effect.void)
      })
      const client = yield* HttpClient.HttpClient
      const inFlight = yield* Effect.fork(client.get(base + "/hang"))
      yield* Deferred.await(received)
      const exit = yield* Fiber.interrupt(inFlight)
      expect(Exit.isInterrupted(exit)).toBe(true)
      yield* Deferred.await(closed).pipe(
        Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "the server never saw the socket close" })
      )
    }).pipe(Effect.provide(UndiciHttpClient.layer)))

  it.scopedLive("nothing listening is a Transport RequestError", () =>
    Effect.gen(function*() {
      // a port a server listened on, closed again
      const base = yield* Effect.scoped(serve(echo))
      const client = yield* HttpClient.HttpClient
      const error: HttpClientError.HttpClientError = yield* Effect.flip(client.get(base + "/gone"))
      expect(error).toMatchObject({ _tag: "RequestError", reason: "Transport" })
    }).pipe(Effect.provide(UndiciHttpClient.layer)))
})

describe("UndiciHttpClient layers", () => {
  it.scopedLive("layer provides HttpClient and Dispatcher, the Dispatcher's httpClient the very one provided; its Agent goes with the scope", () =>
    Effect.gen(function*() {
      const base = yield* serve(echo)
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UndiciHttpClient.layer, scope)
      const httpClient = Context.get(context, HttpClient.HttpClient)
      const dispatcher = Context.get(context, UndiciHttpClient.Dispatcher)
      expect(dispatcher.httpClient).toBe(httpClient)
      expect(dispatcher.dispatcher).toBeInstanceOf(Agent)
      const agent = dispatcher.dispatcher as Agent
      const response = yield* httpClient.get(base + "/through-layer")
      expect(((yield* response.json) as Seen).url).toBe("/through-layer")
      expect(agent.destroyed).toBe(false)
      yield* Scope.close(scope, Exit.void)
      expect(agent.destroyed).toBe(true)
    }))

  it.scopedLive("layerDispatcher(agent) provides both over the caller's Agent and leaves it alive", () =>
    Effect.gen(function*() {
      const base = yield* serve(echo)
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() => new Agent()),
        (a) => Effect.promise(() => a.destroy())
      )
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(UndiciHttpClient.layerDispatcher(agent), scope)
      const httpClient = Context.get(context, HttpClient.HttpClient)
      const dispatcher = Context.get(context, UndiciHttpClient.Dispatcher)
      expect(dispatcher.dispatcher).toBe(agent)
      expect(dispatcher.httpClient).toBe(httpClient)
      expect(((yield* Effect.flatMap(httpClient.get(base + "/one"), (r) => r.json)) as Seen).url).toBe("/one")
      yield* Scope.close(scope, Exit.void)
      expect(agent.destroyed).toBe(false)
      expect(agent.closed).toBe(false)
      // still the caller's to send on
      const again = UndiciHttpClient.make(agent)
      expect(((yield* Effect.flatMap(again.get(base + "/two"), (r) => r.json)) as Seen).url).toBe("/two")
    }))
})

/** The names of the spans a counting tracer, other than Effect's built-in one, saw while `effect` ran. */
const spansWhile = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const { spans, tracer } = yield* recordingTracer
    yield* Effect.withTracer(effect, tracer)
    return spans
  })

/** A quick search and a get over a client of `served` on `UndiciHttpClient.layer`. */
const searchAndGet = (served: Sandbox.Served, options: DesignSearchClient.Options) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const { data } = yield* client.quickSearch({ query: "chair" })
    expect(data.designNumbers.length).toBeGreaterThan(0)
    yield* client.getDesign(Sandbox.fixedNumbers.chair)
  }).pipe(
    Effect.provide(
      DesignSearchClient.layer(options).pipe(
        Layer.provide(Layer.orDie(DesignSearchConfig.layer(served.clientOptions))),
        Layer.provide(UndiciHttpClient.layer)
      )
    )
  )

const httpSpans = (spans: ReadonlyArray<Tracer.Span>) => spans.filter((s) => s.name.startsWith("http.client"))

describe("a client over UndiciHttpClient.layer, traced", () => {
  it.scopedLive("sends on the dispatcher directly: no http.client span, though the tracer sees the operations", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const spans = yield* spansWhile(searchAndGet(served, {}))
      const names = spans.map((s) => s.name)
      expect(names).toContain("DesignSearchClient.quickSearch")
      expect(names).toContain("DesignSearchClient.getDesign")
      expect(httpSpans(spans).map((s) => s.name)).toEqual([])
    }))

  it.scopedLive("with a transformClient it goes through the HttpClient: an http.client span per API call", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const spans = yield* spansWhile(searchAndGet(served, { transformClient: (c) => c }))
      const names = httpSpans(spans).map((s) => s.name)
      expect(names).toContain("http.client POST")
      expect(names).toContain("http.client GET")
      const get = httpSpans(spans).find((s) => s.name === "http.client GET")
      expect(String(get?.attributes.get("url.full"))).toContain(served.baseUrl)
      expect(get?.attributes.get("http.request.method")).toBe("GET")
    }))
})
