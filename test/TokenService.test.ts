/**
 * `TokenService` over the in-process sandbox: the token economy (a cold herd, steady traffic,
 * idle), retries and `Retry-After`, refusals, failed refreshes, the 401 → invalidate/renew
 * protocol, the scope's close, what it takes from and tells a `TokenStore`, and its spans.
 */
import { forkChild, HttpClient, whileInputEffect, yieldNow } from "#edition/internal/seam"
import { poll, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, DateTime, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Redacted } from "effect"
import { Ref, Schedule, Scope } from "effect"
import type { ApiError } from "../src/index.js"
import { AccessToken, DesignSearchClient, Sandbox, TokenService, TokenStore } from "../src/index.js"
import { tokenOf } from "./support/fleetLayers.js"
import { clientLayer, sandboxLayer, sandboxStats, withTime } from "./support/layers.js"
import { recordingTracer } from "./support/tracing.js"

const tokens = TokenService.TokenService
const get = Effect.flatMap(tokens, (s) => s.get)
/** `count` runs of `effect` at once. */
const together = <A, E, R>(count: number, effect: Effect.Effect<A, E, R>) =>
  Effect.all(Array.from({ length: count }, () => effect), { concurrency: "unbounded" })
const control = Sandbox.SandboxControl
/** A fault of the sandbox's token endpoint. */
const inject = (fault: { status: number; count?: number; delayMs?: number; headers?: Record<string, string> }) =>
  Effect.flatMap(control, (c) => c.injectFault({ target: "token", ...fault }))
const tokenRequests = Effect.map(sandboxStats, (stats) => stats.requests.token)
const valueOf = (token: AccessToken.AccessToken) => Redacted.value(token.token)
const chair = Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.getDesign(Sandbox.fixedNumbers.chair))

/** `layer` built in a scope of its own, which the test closes. */
const open = <I>(layer: Layer.Layer<I>) =>
  Effect.flatMap(
    Scope.make(),
    (scope) => Effect.map(Layer.buildWithScope(layer, scope), (context) => ({ scope, context }))
  )
const serviceLayer = () => TokenService.layer().pipe(Layer.provideMerge(sandboxLayer()))

describe("the token economy", () => {
  it.effect("100 concurrent cold gets cause exactly one token request", () =>
    Effect.gen(function*() {
      const got = yield* together(100, get)
      expect((yield* sandboxStats).tokensIssued).toBe(1)
      expect(yield* tokenRequests).toBe(1)
      expect(new Set(got.map(valueOf)).size).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("steady traffic over 3 hours refreshes about once an hour and nobody waits after the first call", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 180; i++) yield* Effect.andThen(chair, TestClock.adjust("1 minute"))
      // fetched at 0, refreshed at 59, 118 and 177 minutes (1 minute ahead of each 60-minute expiry)
      expect(yield* tokenRequests).toBe(4)
      expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 4, refreshes: 3, waits: 1 })
      expect((yield* sandboxStats).requests.design).toBe(180)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("one call then 3 idle hours makes no further token request; the next call fetches once", () =>
    Effect.gen(function*() {
      yield* chair
      yield* TestClock.adjust("3 hours")
      expect(yield* tokenRequests).toBe(1)
      yield* chair
      expect(yield* tokenRequests).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a token used once after its fetch is refreshed once, then left to expire when idle", () =>
    Effect.gen(function*() {
      yield* get
      yield* get
      yield* TestClock.adjust("3 hours")
      expect(yield* tokenRequests).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a token living less than the expiry skew is still reused, and refreshed ahead", () =>
    Effect.gen(function*() {
      // one call a second for a minute, with 5-second tokens
      for (let i = 0; i < 60; i++) yield* Effect.andThen(chair, TestClock.adjust("1 second"))
      // about one token per 2.5 s (refreshed half its life ahead), never one per call
      expect(yield* tokenRequests).toBeGreaterThanOrEqual(20)
      expect(yield* tokenRequests).toBeLessThanOrEqual(30)
      expect((yield* (yield* tokens).stats).waits).toBe(1)
    }).pipe(Effect.provide(clientLayer({ sandbox: { tokenLifetime: "5 seconds" } }))))

  it.effect("expiresAt is the sending instant plus expires_in; the cache stops handing out a token 30 s before it", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("10 seconds")
      const token = yield* get
      expect(DateTime.toEpochMillis(token.issuedAt)).toBe(10_000)
      expect(DateTime.toEpochMillis(token.expiresAt)).toBe(610_000)
      yield* TestClock.adjust(Duration.seconds(600 - 31))
      expect(valueOf(yield* get)).toBe(valueOf(token))
      expect(yield* tokenRequests).toBe(1)
      yield* TestClock.adjust("2 seconds")
      expect(valueOf(yield* get)).not.toBe(valueOf(token))
      expect(yield* tokenRequests).toBe(2)
    }).pipe(Effect.provide(clientLayer({ sandbox: { tokenLifetime: "600 seconds" } }))))

  it.effect("a token's life counts from when its request was sent: no call goes out with an expired token", () => {
    const base = sandboxLayer({ sandbox: { tokenLifetime: "60 seconds" } })
    // every token answer arrives 10 s after the sandbox issued its token
    const slow = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(
        HttpClient.HttpClient,
        HttpClient.transform((answer, request) =>
          request.url.includes("access_token") ? Effect.tap(answer, () => Effect.sleep("10 seconds")) : answer
        )
      )
    )
    const layer = DesignSearchClient.layer().pipe(Layer.provideMerge(Layer.merge(base, Layer.provide(slow, base))))
    return Effect.gen(function*() {
      yield* withTime(chair, "10 seconds")
      // 62 s: the token was issued at 0 s and expired at 60 s, though it arrived at 10 s
      yield* TestClock.adjust("52 seconds")
      yield* withTime(chair, "20 seconds")
      expect(yield* tokenRequests).toBe(2)
      // no 401, and no retry after one
      expect((yield* sandboxStats).requests.design).toBe(2)
    }).pipe(Effect.provide(layer))
  })
})

describe("failures of the token endpoint", () => {
  it.effect("503, 503, 200: the get succeeds after the backoff", () =>
    Effect.gen(function*() {
      yield* inject({ status: 503, count: 2 })
      expect(Exit.isSuccess(yield* withTime(Effect.exit(get), "1 minute"))).toBe(true)
      expect(yield* tokenRequests).toBe(3)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("an endpoint that stays unavailable fails every waiter with Unavailable after one flight's retries", () =>
    Effect.gen(function*() {
      yield* inject({ status: 503, count: 100 })
      const errors = yield* withTime(together(3, Effect.flip(get)), "10 minutes")
      expect(errors.map((e) => [e.reason, e.status])).toEqual(Array(3).fill(["Unavailable", 503]))
      // the first try and four retries, shared by all three callers
      expect(yield* tokenRequests).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a request that never answers times out: Unavailable after five tries", () =>
    Effect.gen(function*() {
      yield* inject({ status: 200, count: 100, delayMs: 600_000 })
      const error = yield* withTime(Effect.flip(get), "30 minutes")
      expect(error).toMatchObject({ reason: "Unavailable", detail: "no token response within 15s" })
      expect(yield* tokenRequests).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("bad credentials fail every waiter with InvalidCredentials after exactly one request, not cached", () =>
    Effect.gen(function*() {
      const errors = yield* together(5, Effect.flip(get))
      const refusal = { _tag: "TokenError", reason: "InvalidCredentials", status: 401, error: "invalid_client" }
      for (const error of errors) expect(error).toMatchObject(refusal)
      expect(yield* tokenRequests).toBe(1)
      // a failure is not cached: the next get asks again
      yield* Effect.flip(get)
      expect(yield* tokenRequests).toBe(2)
    }).pipe(Effect.provide(clientLayer({ config: { clientSecret: "wrong" } }))))

  it.effect("429 with Retry-After 20 every time: each retry waits it; Unavailable with retryAfter after four", () =>
    Effect.gen(function*() {
      yield* inject({ status: 429, count: 100, headers: { "retry-after": "20" } })
      const fiber = yield* forkChild(Effect.flip(get))
      yield* TestClock.adjust("79 seconds")
      expect(Option.isNone(yield* poll(fiber))).toBe(true)
      expect(yield* tokenRequests).toBe(4)
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ reason: "Unavailable", status: 429 })
      expect(error.retryAfter).toEqual(Duration.seconds(20))
      expect(yield* tokenRequests).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a Retry-After past 30 seconds is not waited: the get fails at once, telling it", () =>
    Effect.gen(function*() {
      yield* inject({ status: 429, count: 100, headers: { "retry-after": "120" } })
      expect((yield* Effect.flip(get)).retryAfter).toEqual(Duration.seconds(120))
      expect(yield* tokenRequests).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a retrySchedule of the user's is stepped only with transient failures", () => {
    const seen: Array<number | undefined> = []
    const retrySchedule = whileInputEffect(
      Schedule.recurs(3),
      (input: unknown) => Effect.sync(() => seen.push((input as ApiError.TokenError).status) > 0)
    )
    return Effect.gen(function*() {
      yield* inject({ status: 400 })
      yield* inject({ status: 404 })
      yield* inject({ status: 503 })
      expect(yield* Effect.flip(get)).toMatchObject({ reason: "InvalidCredentials" })
      expect(yield* Effect.flip(get)).toMatchObject({ reason: "InvalidResponse" })
      yield* withTime(get, "1 second")
      expect(seen).toEqual([503])
      expect(yield* tokenRequests).toBe(4)
    }).pipe(Effect.provide(TokenService.layer({ retrySchedule }).pipe(Layer.provideMerge(sandboxLayer()))))
  })

  it.effect("a failed refresh retries while the old token is valid, and callers keep using the old token", () =>
    Effect.gen(function*() {
      const first = yield* get
      yield* get
      yield* inject({ status: 503, count: 2 })
      yield* TestClock.adjust("59 minutes")
      const during = yield* get
      yield* TestClock.adjust("1 minute")
      const after = yield* get
      expect(valueOf(during)).toBe(valueOf(first))
      expect(valueOf(after)).not.toBe(valueOf(first))
      expect((yield* (yield* tokens).stats).waits).toBe(1)
      expect(yield* tokenRequests).toBe(4)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("callers that wait on a refresh get every retry of a fetch of their own: a try and four retries", () =>
    Effect.gen(function*() {
      yield* get
      yield* get
      // The refresh starts at 59 min 30 s, as the old token stops being handed out; its one slow try
      // fails after the callers have come, and four more 503s follow: their fifth try gets the token.
      yield* TestClock.adjust(Duration.seconds(3569))
      yield* inject({ status: 503, delayMs: 2000 })
      yield* inject({ status: 503, count: 4 })
      const waiting = Effect.delay(together(3, get), "2 seconds")
      const got = yield* withTime(waiting, "1 minute")
      expect(new Set(got.map(valueOf)).size).toBe(1)
      // the first fetch, the refresh's try, then one fetch's try and four retries
      expect(yield* tokenRequests).toBe(7)
      expect((yield* (yield* tokens).stats).refreshes).toBe(1)
    }).pipe(Effect.provide(clientLayer({ config: { refreshBefore: "30 seconds", expirySkew: "30 seconds" } }))))

  it.effect("a refresh whose retries outlast the old token starts over for the callers that wait on it", () =>
    Effect.gen(function*() {
      const first = yield* get
      yield* get
      // refreshed from 59 min, handed out until 59 min 30 s: two slow 503s take that time, and a third
      // fails after it, while a caller waits; the retries it is owed follow
      for (const delayMs of [14_000, 14_000, 5000]) yield* inject({ status: 503, delayMs })
      yield* TestClock.adjust(Duration.seconds(3571))
      const got = yield* withTime(get, "1 minute")
      expect(valueOf(got)).not.toBe(valueOf(first))
      expect(yield* tokenRequests).toBe(5)
    }).pipe(Effect.provide(clientLayer())))
})

describe("401s: invalidate and renew", () => {
  it.effect("invalidate is compare-and-clear: a late 401 for an old token leaves the new one", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* get
      yield* service.invalidate(first)
      const second = yield* get
      expect(valueOf(second)).not.toBe(valueOf(first))
      yield* service.invalidate(first)
      expect(valueOf(yield* get)).toBe(valueOf(second))
      expect(yield* tokenRequests).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("renew: calls refused with one token share one renewal, however late, led along a renewal refused and renewed in turn; a token fetched since the refusal is refused too", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* get
      yield* service.invalidate(first)
      const renewed = yield* together(20, service.renew(first))
      const values = new Set(renewed.map((t) => Option.isSome(t) ? valueOf(t.value) : "none"))
      expect(values.size).toBe(1)
      expect([...values][0]).not.toBe("none")
      expect(values.has(valueOf(first))).toBe(false)
      expect(yield* tokenRequests).toBe(2)
      const second = Option.getOrThrow(renewed[0]!)
      // a straggler refused with the first token later still gets the one renewal
      yield* TestClock.adjust("1 second")
      expect(Option.map(yield* service.renew(first), valueOf)).toEqual(Option.some(valueOf(second)))
      // the renewal refused as well: nothing more to try, and nothing fetched
      yield* service.invalidate(second)
      expect(Option.isNone(yield* service.renew(second, first))).toBe(true)
      expect(Option.isNone(yield* service.renew(first))).toBe(true)
      expect(yield* tokenRequests).toBe(2)
      // a call whose first try had the renewal gets the renewal's own
      const third = yield* service.renew(second)
      expect(Option.isSome(third)).toBe(true)
      expect(yield* tokenRequests).toBe(3)
      // and a straggler refused with the first token, late, is led along to it
      expect(Option.map(yield* service.renew(first), valueOf)).toEqual(Option.map(third, valueOf))
      expect(yield* tokenRequests).toBe(3)
    }).pipe(Effect.provide(clientLayer())))
})

describe("TokenService when its scope closes", () => {
  const shutDown = "the token service was shut down"
  it.effect("the refresh stops: left open, the used token is refreshed; closed, nothing runs", () =>
    Effect.gen(function*() {
      const run = (close: boolean) =>
        Effect.gen(function*() {
          const { context, scope } = yield* open(serviceLayer())
          const service = Context.get(context, tokens)
          yield* service.get
          yield* service.get
          if (close) yield* Scope.close(scope, Exit.void)
          yield* TestClock.adjust("2 hours")
          const requests = (yield* Context.get(context, control).stats).requests.token
          yield* Scope.close(scope, Exit.void)
          return requests
        })
      // left open, the used token is refreshed at 59 minutes (the new one, unused, is not)
      expect(yield* run(false)).toBe(2)
      expect(yield* run(true)).toBe(1)
    }))

  it.effect("a get waiting on a fetch, and any get after, fail with Unavailable rather than hang", () =>
    Effect.gen(function*() {
      const { context, scope } = yield* open(serviceLayer())
      const service = Context.get(context, tokens)
      yield* Context.get(context, control).injectFault({ target: "token", status: 200, delayMs: 60_000 })
      const waiting = yield* forkChild(Effect.flip(service.get))
      yield* TestClock.adjust("1 second")
      yield* Scope.close(scope, Exit.void)
      expect(yield* Fiber.join(waiting)).toMatchObject({ reason: "Unavailable", detail: shutDown })
      expect(yield* Effect.flip(service.get)).toMatchObject({ reason: "Unavailable" })
    }))

  it.effect("a get whose fetch has not begun when the scope closes hears of the close all the same", () =>
    Effect.gen(function*() {
      const { context, scope } = yield* open(serviceLayer())
      const waiting = yield* forkChild(Effect.flip(Context.get(context, tokens).get))
      // the get runs up to its wait; the fetch it started has not run when the scope closes
      yield* yieldNow
      yield* Scope.close(scope, Exit.void)
      expect(yield* Fiber.join(waiting)).toMatchObject({ detail: shutDown })
      expect((yield* Context.get(context, control).stats).requests.token).toBe(0)
    }))

  it.effect("a token cached before the close is not handed out after it: the call fails and sends nothing", () =>
    Effect.gen(function*() {
      const { context, scope } = yield* open(clientLayer())
      const call = Context.get(context, DesignSearchClient.DesignSearchClient).getDesign(Sandbox.fixedNumbers.chair)
      yield* call
      const before = yield* Context.get(context, control).stats
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.flip(call)).toMatchObject({ _tag: "TokenError", reason: "Unavailable", detail: shutDown })
      expect(yield* Context.get(context, control).stats).toEqual(before)
    }))
})

type Offered = AccessToken.AccessToken | undefined
/** A store that offers `offered` (while the caller accepts it) instead of fetching, and whose invalidate does nothing, as when Redis was away. */
const offeringStore = (offered: Ref.Ref<Offered>) =>
  Layer.succeed(TokenStore.TokenStore, {
    forClient: () => ({
      obtain: (fetch, accept) =>
        Effect.flatMap(Effect.zip(Ref.get(offered), Clock.currentTimeMillis), ([token, now]) =>
          token !== undefined && accept(token, now)
            ? Effect.succeed<TokenStore.Obtained>({ token, shared: true })
            : Effect.map(fetch, (fetched) => ({ token: fetched, shared: false }))),
      invalidate: () =>
        Effect.void
    })
  })

/** `effect` with a store offering what the test puts in `offered`, first a token `initial`, if named. */
const offering = <A, E, R>(
  initial: string | undefined,
  effect: (offered: Ref.Ref<Offered>) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const offered = yield* Ref.make(initial === undefined ? undefined : yield* tokenOf(initial))
    const store = offeringStore(offered)
    return yield* Effect.provide(effect(offered), clientLayer().pipe(Layer.provide(store)))
  })

describe("TokenService with a TokenStore", () => {
  it.effect("a refresh takes a newer token from the store instead of fetching one", () =>
    offering(undefined, (offered) =>
      Effect.gen(function*() {
        const service = yield* tokens
        const first = yield* get
        yield* get
        // another process refreshed 30 minutes in
        yield* TestClock.adjust("30 minutes")
        yield* Ref.set(offered, yield* tokenOf("refreshed-elsewhere"))
        yield* TestClock.adjust("30 minutes")
        const current = yield* get
        expect(valueOf(current)).toBe("refreshed-elsewhere")
        expect(AccessToken.sameToken(current, first)).toBe(false)
        expect(yield* tokenRequests).toBe(1)
        expect(yield* service.stats).toMatchObject({ tokenRequests: 1, refreshes: 1, sharedTokens: 1 })
      })))

  it.effect("refused tokens are told to the store one at a time, in order, once each; none after the close", () =>
    Effect.gen(function*() {
      const back = yield* Deferred.make<void>()
      const heard: Array<string> = []
      const inFlight = { now: 0, most: 0 }
      // invalidations wait until `back`, as while Redis is away
      const slowStore = Layer.succeed(TokenStore.TokenStore, {
        forClient: () => ({
          obtain: (fetch) => Effect.map(fetch, (token) => ({ token, shared: false })),
          invalidate: (token) =>
            Effect.acquireUseRelease(
              Effect.sync(() => void (inFlight.most = Math.max(inFlight.most, ++inFlight.now))),
              () => Effect.andThen(Deferred.await(back), Effect.sync(() => void heard.push(valueOf(token)))),
              () => Effect.sync(() => void inFlight.now--)
            )
        })
      })
      const { context, scope } = yield* open(
        Layer.provide(TokenService.layer(), Layer.merge(slowStore, sandboxLayer()))
      )
      const service = Context.get(context, tokens)
      const refused = yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => `refused-${i}`), (v) => tokenOf(v))
      yield* Effect.forEach(refused, service.invalidate, { discard: true })
      // the same token refused again is not told again
      yield* service.invalidate(refused[0]!)
      yield* TestClock.adjust("1 minute")
      expect(inFlight).toEqual({ now: 1, most: 1 })
      yield* Deferred.succeed(back, void 0)
      while (heard.length < 50) yield* yieldNow
      expect(heard).toEqual(refused.map(valueOf))
      expect(inFlight.most).toBe(1)
      // after the close, nothing is told
      yield* Scope.close(scope, Exit.void)
      yield* service.invalidate(yield* tokenOf("after-close"))
      yield* TestClock.adjust("1 minute")
      expect(heard).toHaveLength(50)
    }))

  // the 401 → renew protocol, through the client and the sandbox
  const search = Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.quickSearch({ query: "chair" }))
  const revoke = Effect.flatMap(control, (c) => c.revokeTokens)
  const requests = Effect.map(sandboxStats, (stats) => ({ token: stats.requests.token, search: stats.requests.search }))

  it.effect("a store's token refused with a 401 is not taken again, though the store still holds it: the retry fetches one here", () =>
    offering("unknown-to-the-service", () =>
      Effect.gen(function*() {
        yield* search
        expect(yield* requests).toEqual({ token: 1, search: 2 })
        expect(valueOf(yield* get)).not.toBe("unknown-to-the-service")
        expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 1, sharedTokens: 1 })
      })))

  it.effect("a retry takes from the store only a token issued after the refused one; one so taken and refused too, the call tries once more with one fetched here", () =>
    offering(undefined, (offered) =>
      Effect.gen(function*() {
        yield* search
        // a token another process stored no later than the refused one: not taken
        yield* Ref.set(offered, yield* tokenOf("stored-with-the-first"))
        yield* revoke
        yield* search
        expect(yield* requests).toEqual({ token: 2, search: 3 })
        // a later one, which the API refuses too: taken, then one fetched here
        yield* TestClock.adjust("1 minute")
        yield* Ref.set(offered, yield* tokenOf("stored-later"))
        yield* revoke
        yield* search
        expect(yield* requests).toEqual({ token: 3, search: 6 })
        expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 3, sharedTokens: 1 })
        // a store's token refused, then one fetched here refused as well: the call fails, on its third try
        yield* TestClock.adjust("1 minute")
        yield* Ref.set(offered, yield* tokenOf("stored-later-still"))
        yield* Effect.flatMap(control, (c) => c.injectFault({ target: "search", status: 401, count: 3 }))
        expect((yield* Effect.flip(search))._tag).toBe("AuthenticationError")
        expect(yield* requests).toEqual({ token: 4, search: 9 })
      })))

  it.effect("calls refused at once share one fetch for their last try", () =>
    offering(undefined, (offered) =>
      Effect.gen(function*() {
        yield* search
        yield* TestClock.adjust("1 minute")
        yield* Ref.set(offered, yield* tokenOf("stored-later"))
        yield* revoke
        yield* together(20, search)
        expect(yield* requests).toEqual({ token: 2, search: 1 + 20 * 3 })
      })))
})

describe("the spans of token requests", () => {
  for (const built of ["in a span", "in no span"] as const) {
    it.effect(`a fetch of a service built ${built} is a span of the service, linked to the call that started it`, () =>
      Effect.gen(function*() {
        const { spans, tracer } = yield* recordingTracer
        yield* Effect.gen(function*() {
          const build = Layer.build(serviceLayer())
          const context = yield* built === "in a span" ? Effect.withSpan(build, "app.start") : build
          yield* Effect.withSpan(Context.get(context, tokens).get, "app.request")
        }).pipe(Effect.scoped, Effect.withTracer(tracer))
        const named = (name: string) => spans.find((span) => span.name === name)!
        const fetch = named("TokenService.fetch")
        const parent = Option.getOrUndefined(Option.map(fetch.parent, (p) => p.spanId))
        expect(parent).toBe(built === "in a span" ? named("app.start").spanId : undefined)
        expect(fetch.links.map((link) => link.span.spanId)).toEqual([named("app.request").spanId])
      }))
  }
})
