/**
 * The fault matrix: every fault the sandbox can simulate, with the outcome and the exact number of
 * requests it costs (no retry storms, no silent give-up).
 */
import { forkChild, whileInputEffect } from "#edition/internal/seam"
import { poll, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, Schedule } from "effect"
import type { ApiError } from "../src/index.js"
import { DesignSearchClient, Sandbox, TokenService } from "../src/index.js"
import { clientLayer, sandboxLayer, sandboxStats, withTime } from "./support/layers.js"

const Client = DesignSearchClient.DesignSearchClient
const control = Sandbox.SandboxControl
const chair = Sandbox.fixedNumbers.chair

const getToken = Effect.flatMap(TokenService.TokenService, (t) => Effect.flip(t.get))

/** A retry schedule of three retries that remembers the status of every failure it is stepped with. */
const recording = () => {
  const seen: Array<number | undefined> = []
  const schedule = whileInputEffect(
    Schedule.recurs(3),
    (e: ApiError.DesignSearchError) => Effect.sync(() => (seen.push("status" in e ? e.status : 0), true))
  )
  return { seen, schedule }
}

describe("faults at the token endpoint", () => {
  for (const status of [500, 502, 503, 504, 429, 408]) {
    it.effect(`${status} every time: Unavailable after the first try and four retries`, () =>
      Effect.gen(function*() {
        yield* (yield* control).injectFault({ target: "token", status, count: 100 })
        const error = yield* withTime(getToken, "10 minutes")
        expect(error).toMatchObject({ reason: "Unavailable", status })
        expect((yield* sandboxStats).requests.token).toBe(5)
      }).pipe(Effect.provide(clientLayer())))
  }

  it.effect("a token endpoint that never answers: each try times out, Unavailable after five", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "token", status: 200, count: 100, delayMs: 600_000 })
      const error = yield* withTime(getToken, "30 minutes")
      expect(error).toMatchObject({ reason: "Unavailable" })
      expect(error.detail).toContain("no token response within 15s")
      expect((yield* sandboxStats).requests.token).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("an HTML error page with 503 is Unavailable; with 200 it is InvalidResponse at once", () =>
    Effect.gen(function*() {
      const sandbox = yield* control
      yield* sandbox.injectFault({
        target: "token",
        status: 200,
        body: "<html>Service Unavailable</html>",
        headers: { "content-type": "text/html" }
      })
      expect(yield* getToken).toMatchObject({ reason: "InvalidResponse", status: 200 })
      expect((yield* sandboxStats).requests.token).toBe(1)
      yield* sandbox.injectFault({ target: "token", status: 503, count: 100, body: "<html>Service Unavailable</html>" })
      expect(yield* withTime(getToken, "10 minutes")).toMatchObject({ reason: "Unavailable", status: 503 })
      expect((yield* sandboxStats).requests.token).toBe(6)
    }).pipe(Effect.provide(clientLayer())))

  for (const status of [400, 401]) {
    it.effect(`an RFC 6749 error with ${status}: InvalidCredentials after exactly one request`, () =>
      Effect.gen(function*() {
        yield* (yield* control).injectFault({ target: "token", status, body: { error: "invalid_client" } })
        expect(yield* getToken).toMatchObject({ reason: "InvalidCredentials", status, error: "invalid_client" })
        expect((yield* sandboxStats).requests.token).toBe(1)
      }).pipe(Effect.provide(clientLayer())))
  }

  it.effect("429 every time with Retry-After: Unavailable after four retries, each waiting its Retry-After", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({
        target: "token",
        status: 429,
        count: 100,
        headers: { "retry-after": "20" }
      })
      const fiber = yield* forkChild(getToken)
      yield* TestClock.adjust("79 seconds")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      expect((yield* sandboxStats).requests.token).toBe(4)
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ reason: "Unavailable", status: 429, retryAfter: Duration.seconds(20) })
      expect((yield* sandboxStats).requests.token).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a custom retrySchedule is stepped only with transient failures", () => {
    const { schedule, seen } = recording()
    const layer = TokenService.layer({ retrySchedule: schedule }).pipe(Layer.provideMerge(sandboxLayer()))
    return Effect.gen(function*() {
      const sandbox = yield* control
      yield* sandbox.injectFault({ target: "token", status: 400 })
      yield* sandbox.injectFault({ target: "token", status: 404 })
      yield* sandbox.injectFault({ target: "token", status: 503 })
      expect(yield* getToken).toMatchObject({ reason: "InvalidCredentials" })
      expect(yield* getToken).toMatchObject({ reason: "InvalidResponse" })
      yield* withTime(Effect.flatMap(TokenService.TokenService, (t) => t.get), "1 second")
      expect(seen).toEqual([503])
      expect((yield* sandboxStats).requests.token).toBe(4)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a huge token body is refused without reading it: InvalidResponse after one request", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({
        target: "token",
        status: 200,
        body: { access_token: "x".repeat(5000), expires_in: 3600, token_type: "Bearer" }
      })
      const error = yield* getToken
      expect(error).toMatchObject({ reason: "InvalidResponse", status: 200 })
      expect(error.detail).toContain("exceeds the cap")
      expect((yield* sandboxStats).requests.token).toBe(1)
    }).pipe(Effect.provide(clientLayer({ config: { maxBodyBytes: 4096 } }))))
})

describe("faults at the API", () => {
  for (const status of [502, 503, 504]) {
    it.effect(`${status} every time: ServerError after the first try and three retries`, () =>
      Effect.gen(function*() {
        yield* (yield* control).injectFault({ target: "search", status, count: 100 })
        const error = yield* withTime(Effect.flip((yield* Client).quickSearch({ query: "chair" })), "1 minute")
        expect(error).toMatchObject({ _tag: "ServerError", status })
        expect((yield* sandboxStats).requests.search).toBe(4)
      }).pipe(Effect.provide(clientLayer())))
  }

  it.effect("500 is not retried", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "search", status: 500, count: 100 })
      const error = yield* Effect.flip((yield* Client).quickSearch({ query: "chair" }))
      expect(error).toMatchObject({ _tag: "ServerError", status: 500 })
      expect((yield* sandboxStats).requests.search).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a custom retrySchedule is stepped only with transient failures", () => {
    const { schedule, seen } = recording()
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
      const fiber = yield* forkChild(Effect.flip((yield* Client).quickSearch({ query: "chair" })))
      yield* TestClock.adjust("14 seconds")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      expect((yield* sandboxStats).requests.search).toBe(3)
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "RateLimitError", status: 429 })
      if (error._tag === "RateLimitError") expect(error.retryAfter && Duration.toSeconds(error.retryAfter)).toBe(5)
      expect((yield* sandboxStats).requests.search).toBe(4)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("429 with Retry-After as an HTTP date waits until that date", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 0, 1, 12, 0, 0))
      yield* (yield* control).injectFault({
        target: "design",
        status: 429,
        headers: { "retry-after": new Date(Date.UTC(2026, 0, 1, 12, 0, 20)).toUTCString() }
      })
      const fiber = yield* forkChild((yield* Client).getDesign(chair))
      yield* TestClock.adjust("19 seconds")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber)).data.number).toBe(chair)
      expect((yield* sandboxStats).requests.design).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a wrong content type does not matter when the body is JSON; an HTML 200 is unexpected", () =>
    Effect.gen(function*() {
      const sandbox = yield* control
      const client = yield* Client
      yield* sandbox.injectFault({
        target: "search",
        status: 200,
        body: JSON.stringify({ count: 1, designNumbers: [chair] }),
        headers: { "content-type": "text/plain" }
      })
      expect((yield* client.quickSearch({ query: "chair" })).data.designNumbers).toEqual([chair])
      yield* sandbox.injectFault({
        target: "search",
        status: 200,
        body: "<html>Welcome</html>",
        headers: { "content-type": "text/html" }
      })
      expect(yield* Effect.flip(client.quickSearch({ query: "chair" }))).toMatchObject({
        _tag: "UnexpectedResponseError",
        issue: "body is not JSON"
      })
      expect((yield* sandboxStats).requests.search).toBe(2)
    }).pipe(Effect.provide(clientLayer())))
})

describe("dropped connections", () => {
  it.effect("a connection reset at the token endpoint: Unavailable after the first try and four retries", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "token", kind: "reset", status: 200, count: 100 })
      expect(yield* withTime(getToken, "10 minutes")).toMatchObject({ reason: "Unavailable" })
      expect((yield* sandboxStats).requests.token).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a connection reset once at the token endpoint is retried and the token arrives", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "token", kind: "reset", status: 200 })
      const token = yield* withTime(Effect.flatMap(TokenService.TokenService, (t) => t.get), "1 minute")
      expect(token.tokenType).toBe("Bearer")
      expect((yield* sandboxStats).requests.token).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  for (const kind of ["reset", "resetMidBody"] as const) {
    it.effect(`${kind} at the API every time: TransportError after the first try and three retries`, () =>
      Effect.gen(function*() {
        yield* (yield* control).injectFault({
          target: "design",
          kind,
          status: 200,
          count: 100,
          body: { number: chair, title: "Chair" }
        })
        const error = yield* withTime(Effect.flip((yield* Client).getDesign(chair)), "1 minute")
        expect(error).toMatchObject({ _tag: "TransportError", reason: kind === "reset" ? "Network" : "Body" })
        expect((yield* sandboxStats).requests.design).toBe(4)
      }).pipe(Effect.provide(clientLayer())))

    it.effect(`${kind} at the API once: the retry succeeds`, () =>
      Effect.gen(function*() {
        yield* (yield* control).injectFault({
          target: "design",
          kind,
          status: 200,
          body: { number: chair, title: "Chair" }
        })
        const { data } = yield* withTime((yield* Client).getDesign(chair), "1 minute")
        expect(data.number).toBe(chair)
        expect((yield* sandboxStats).requests.design).toBe(2)
      }).pipe(Effect.provide(clientLayer())))
  }
})
