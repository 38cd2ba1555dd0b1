/**
 * The one request path of the Effect 4 edition (`internal/client/http.ts`), through `HttpClient`s of
 * the test's own: what an `HttpClientError`'s reason, a defect or the deadline becomes, the body
 * cap, an absent body, redirects not followed, and the `Authorization` header kept to its origin.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Stream } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { confine, send } from "../../src/internal/http/send.js"

const url = "https://api.example/designs/search"
const request = HttpClientRequest.get(url)
const limits = { timeout: Duration.seconds(10), maxBodyBytes: 100 }

/** A client answering every request with `f`'s outcome. */
const answering = (
  f: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<Response, HttpClientError.HttpClientError>
) => HttpClient.make((request) => Effect.map(f(request), (response) => HttpClientResponse.fromWeb(request, response)))

const failing = (reason: (request: HttpClientRequest.HttpClientRequest) => HttpClientError.HttpClientErrorReason) =>
  answering((request) => Effect.fail(new HttpClientError.HttpClientError({ reason: reason(request) })))

/** A body streamed in chunks, with no length declared. */
const streamed = (chunks: number, size: number) =>
  new Response(Stream.toReadableStream(Stream.fromIterable(Array.from({ length: chunks }, () => new Uint8Array(size)))))

describe("send", () => {
  it.effect("an answer: its status, headers and whole body", () =>
    Effect.gen(function*() {
      const answer = yield* send(
        answering(() => Effect.succeed(new Response("{}", { status: 201, headers: { "x-a": "1" } }))),
        request,
        limits
      )
      assert.deepStrictEqual([answer.status, answer.headers["x-a"], answer.text], [201, "1", "{}"])
    }))

  it.effect("a failure before any response is a Network TransportError, told as the Effect 3 edition tells it", () =>
    Effect.gen(function*() {
      const cause = Object.assign(new Error("connect refused"), { code: "ECONNREFUSED" })
      const client = failing((request) =>
        new HttpClientError.TransportError({ request, cause, description: "fetch failed" })
      )
      expect(yield* Effect.flip(send(client, request, limits))).toMatchObject({
        _tag: "TransportError",
        reason: "Network",
        method: "GET",
        url,
        detail: "Transport: fetch failed: ECONNREFUSED connect refused"
      })
    }))

  it.effect("a body that breaks off is a Body TransportError", () =>
    Effect.gen(function*() {
      const broken = new Response(Stream.toReadableStream(Stream.fail(new Error("socket hang up"))))
      const error = yield* Effect.flip(send(answering(() => Effect.succeed(broken)), request, limits))
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Body" })
      assert.match(error._tag === "TransportError" ? error.detail : "", /^Decode/)
    }))

  it.effect("a client that dies gives a Network TransportError, never a defect", () =>
    Effect.gen(function*() {
      const dying = HttpClient.make(() => Effect.die(new TypeError("invalid header value")))
      expect(yield* Effect.flip(send(dying, request, limits))).toMatchObject({
        reason: "Network",
        detail: "the HTTP client failed: TypeError: invalid header value"
      })
    }))

  it.effect("no whole answer within the timeout on the clock is a Timeout", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.flip(send(HttpClient.make(() => Effect.never), request, limits)))
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(fiber)).toMatchObject({ reason: "Timeout", detail: "no complete response within 10s" })
    }))

  it.effect("a body over the cap is refused, declared or counted as it streams; an absent body is empty text", () =>
    Effect.gen(function*() {
      const declared = new Response("x".repeat(101), { headers: { "content-length": "101" } })
      expect(yield* Effect.flip(send(answering(() => Effect.succeed(declared)), request, limits))).toMatchObject({
        _tag: "UnexpectedResponseError",
        issue: "response body of 101 bytes exceeds the cap of 100 bytes"
      })
      expect(yield* Effect.flip(send(answering(() => Effect.succeed(streamed(3, 40))), request, limits))).toMatchObject(
        {
          _tag: "UnexpectedResponseError",
          issue: "response body of more than 100 bytes exceeds the cap of 100 bytes"
        }
      )
      assert.strictEqual(
        (yield* send(answering(() => Effect.succeed(streamed(2, 50))), request, limits)).text.length,
        100
      )
      const empty = yield* send(answering(() => Effect.succeed(new Response(null, { status: 204 }))), request, limits)
      assert.deepStrictEqual([empty.status, empty.text], [204, ""])
    }))

  it.effect("fetch is told not to follow redirects, keeping what the application set for it", () =>
    Effect.gen(function*() {
      const seen: Array<RequestInit | undefined> = []
      const client = HttpClient.make((request, _url, _signal, fiber) => {
        seen.push(Context.getOrUndefined(fiber.context, FetchHttpClient.RequestInit))
        return Effect.succeed(HttpClientResponse.fromWeb(request, new Response("")))
      })
      yield* send(client, request, limits).pipe(Effect.provideService(FetchHttpClient.RequestInit, { keepalive: true }))
      assert.deepStrictEqual(seen, [{ keepalive: true, redirect: "manual" }])
    }))
})

describe("confine", () => {
  it.effect("a request to another origin goes without its Authorization header; the API's keeps it", () =>
    Effect.gen(function*() {
      const seen: Array<[string, string | undefined]> = []
      const client = confine(
        answering((request) =>
          Effect.sync(() => (seen.push([request.url, request.headers["authorization"]]), new Response("")))
        ),
        "https://api.example"
      )
      for (const target of [url, "https://elsewhere.example/x", "http://api.example/designs"]) {
        yield* client.execute(HttpClientRequest.get(target).pipe(HttpClientRequest.bearerToken("secret-token")))
      }
      assert.deepStrictEqual(seen, [
        [url, "Bearer secret-token"],
        ["https://elsewhere.example/x", undefined],
        ["http://api.example/designs", undefined]
      ])
    }))
})
