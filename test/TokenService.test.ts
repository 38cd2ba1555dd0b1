import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import {
  Clock,
  Context,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Exit,
  Fiber,
  Layer,
  Redacted,
  Ref,
  Scope,
  TestClock
} from "effect"
import { AccessToken, DesignSearchClient, Sandbox, TokenService, TokenStore } from "../src/index.js"
import { clientLayer, sandboxLayer, sandboxStats, withTime } from "./support/layers.js"

const tokens = TokenService.TokenService
const control = Sandbox.SandboxControl

/** Makes `count` calls, one a simulated minute. */
const everyMinute = <A, E, R>(count: number, call: Effect.Effect<A, E, R>) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.zipRight(call, TestClock.adjust("1 minute")), {
    discard: true
  })

describe("TokenService", () => {
  it.effect("100 concurrent cold gets cause exactly one token request", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const got = yield* Effect.all(Array.from({ length: 100 }, () => service.get), { concurrency: "unbounded" })
      const stats = yield* sandboxStats
      expect(stats.requests.token).toBe(1)
      expect(stats.tokensIssued).toBe(1)
      expect(new Set(got.map((t) => Redacted.value(t.token))).size).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("steady traffic over 3 hours refreshes about once an hour and nobody waits after the first call", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* everyMinute(180, client.getDesign(Sandbox.fixedNumbers.chair))
      const stats = yield* sandboxStats
      const service = yield* (yield* tokens).stats
      // fetched at 0, refreshed at 59, 118 and 177 minutes (1 minute ahead of each 60-minute expiry)
      expect(stats.requests.token).toBe(4)
      expect(service.refreshes).toBe(3)
      expect(service.waits).toBe(1)
      expect(stats.requests.design).toBe(180)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("one call then 3 idle hours makes no further token request", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* client.getDesign(Sandbox.fixedNumbers.chair)
      yield* TestClock.adjust("3 hours")
      expect((yield* sandboxStats).requests.token).toBe(1)
      // the next call after the token expired fetches once more
      yield* client.getDesign(Sandbox.fixedNumbers.chair)
      expect((yield* sandboxStats).requests.token).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a token used once after its fetch is refreshed once, then left to expire when idle", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      yield* service.get
      yield* service.get
      yield* TestClock.adjust("3 hours")
      expect((yield* sandboxStats).requests.token).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("token endpoint 503, 503, 200: get succeeds after backoff", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "token", status: 503, count: 2 })
      const exit = yield* withTime(Effect.exit((yield* tokens).get), "1 minute")
      expect(Exit.isSuccess(exit)).toBe(true)
      expect((yield* sandboxStats).requests.token).toBe(3)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a token endpoint that stays unavailable fails every waiter with Unavailable after the retries", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "token", status: 503, count: 100 })
      const service = yield* tokens
      const fiber = yield* Effect.fork(
        Effect.all([service.get, service.get, service.get].map(Effect.flip), { concurrency: "unbounded" })
      )
      yield* TestClock.adjust("10 minutes")
      const errors = yield* Fiber.join(fiber)
      expect(errors.map((e) => e.reason)).toEqual(["Unavailable", "Unavailable", "Unavailable"])
      // one flight: the first try and four retries, shared by all three callers
      expect((yield* sandboxStats).requests.token).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("bad credentials fail with InvalidCredentials after exactly one request", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const errors = yield* Effect.all(Array.from({ length: 5 }, () => Effect.flip(service.get)), {
        concurrency: "unbounded"
      })
      for (const error of errors) {
        expect(error).toMatchObject({
          _tag: "TokenError",
          reason: "InvalidCredentials",
          status: 401,
          error: "invalid_client"
        })
      }
      expect((yield* sandboxStats).requests.token).toBe(1)
      // a failure is not cached: the next get asks again
      yield* Effect.flip(service.get)
      expect((yield* sandboxStats).requests.token).toBe(2)
    }).pipe(Effect.provide(clientLayer({ config: { clientSecret: "wrong" } }))))

  it.effect("invalidate is compare-and-clear: a late 401 for an old token leaves the new one", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* service.get
      yield* service.invalidate(first)
      const second = yield* service.get
      expect(Redacted.value(second.token)).not.toBe(Redacted.value(first.token))
      yield* service.invalidate(first)
      const third = yield* service.get
      expect(Redacted.value(third.token)).toBe(Redacted.value(second.token))
      expect((yield* sandboxStats).requests.token).toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a failed refresh retries while the old token is valid, and callers keep using the old token", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* service.get
      yield* service.get
      yield* (yield* control).injectFault({ target: "token", status: 503, count: 2 })
      yield* TestClock.adjust("59 minutes")
      const during = yield* service.get
      yield* TestClock.adjust("1 minute")
      const after = yield* service.get
      expect(Redacted.value(during.token)).toBe(Redacted.value(first.token))
      expect(Redacted.value(after.token)).not.toBe(Redacted.value(first.token))
      expect((yield* service.stats).waits).toBe(1)
      expect((yield* sandboxStats).requests.token).toBe(4)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("callers that wait on a refresh get every retry of a fetch of their own: a try and four retries", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const sandbox = yield* control
      yield* service.get
      yield* service.get
      // The refresh starts at 59 min 30 s, as the old token stops being handed out; its one slow try
      // fails after the callers have come, and four more 503s follow: their fifth try gets the token.
      yield* TestClock.adjust(Duration.seconds(3569))
      yield* sandbox.injectFault({ target: "token", status: 503, delayMs: 2000 })
      yield* sandbox.injectFault({ target: "token", status: 503, count: 4 })
      const fiber = yield* Effect.fork(
        Effect.all([service.get, service.get, service.get], { concurrency: "unbounded" }).pipe(
          Effect.delay("2 seconds")
        )
      )
      yield* TestClock.adjust("1 minute")
      const got = yield* Fiber.join(fiber)
      expect(new Set(got.map((t) => Redacted.value(t.token))).size).toBe(1)
      // the first fetch, the refresh's try, then one fetch's try and four retries
      expect((yield* sandboxStats).requests.token).toBe(7)
      expect((yield* service.stats).refreshes).toBe(1)
    }).pipe(Effect.provide(clientLayer({ config: { refreshBefore: "30 seconds", expirySkew: "30 seconds" } }))))

  it.effect("a refresh whose retries outlast the old token starts over for the callers that wait on it", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const sandbox = yield* control
      const first = yield* service.get
      yield* service.get
      // refreshed from 59 min, handed out until 59 min 30 s: two slow 503s take that time, and a third
      // fails after it, while a caller waits; the retries it is owed follow
      for (const delayMs of [14_000, 14_000, 5000]) {
        yield* sandbox.injectFault({ target: "token", status: 503, delayMs })
      }
      yield* TestClock.adjust(Duration.seconds(3571))
      const fiber = yield* Effect.fork(service.get)
      yield* TestClock.adjust("1 minute")
      const got = yield* Fiber.join(fiber)
      expect(Redacted.value(got.token)).not.toBe(Redacted.value(first.token))
      expect((yield* sandboxStats).requests.token).toBe(5)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("expiresAt is the sending instant plus expires_in; the cache stops handing out a token 30 s before it", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      yield* TestClock.adjust("10 seconds")
      const token = yield* service.get
      expect(Duration.toSeconds(Duration.millis(token.expiresAt.epochMillis - token.issuedAt.epochMillis))).toBe(600)
      expect(token.issuedAt.epochMillis).toBe(10_000)
      yield* TestClock.adjust(Duration.seconds(600 - 31))
      expect(Redacted.value((yield* service.get).token)).toBe(Redacted.value(token.token))
      expect((yield* sandboxStats).requests.token).toBe(1)
      yield* TestClock.adjust("2 seconds")
      expect(Redacted.value((yield* service.get).token)).not.toBe(Redacted.value(token.token))
      expect((yield* sandboxStats).requests.token).toBe(2)
    }).pipe(Effect.provide(clientLayer({ sandbox: { tokenLifetime: "600 seconds" } }))))

  it.effect("closing the layer's scope stops the refresh fiber", () =>
    Effect.gen(function*() {
      const run = (close: boolean) =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const context = yield* Layer.buildWithScope(
            TokenService.layer().pipe(Layer.provideMerge(sandboxLayer())),
            scope
          )
          const service = Context.get(context, TokenService.TokenService)
          const sandbox = Context.get(context, Sandbox.SandboxControl)
          yield* service.get
          yield* service.get
          if (close) yield* Scope.close(scope, Exit.void)
          yield* TestClock.adjust("2 hours")
          const requests = (yield* sandbox.stats).requests.token
          yield* Scope.close(scope, Exit.void)
          return requests
        })
      // left open, the used token is refreshed at 59 minutes (the new one, unused, is not); closed, nothing runs
      expect(yield* run(false)).toBe(2)
      expect(yield* run(true)).toBe(1)
    }))
})

describe("TokenService with short-lived tokens", () => {
  it.effect("a token living less than the expiry skew is still reused, and refreshed ahead", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      // one call a second for a minute, with 5-second tokens
      for (let i = 0; i < 60; i++) {
        yield* client.getDesign(Sandbox.fixedNumbers.chair)
        yield* TestClock.adjust("1 second")
      }
      const stats = yield* sandboxStats
      // about one token per 2.5 s (refreshed half its life ahead), never one per call
      expect(stats.requests.token).toBeGreaterThanOrEqual(20)
      expect(stats.requests.token).toBeLessThanOrEqual(30)
      expect((yield* (yield* tokens).stats).waits).toBe(1)
    }).pipe(Effect.provide(clientLayer({ sandbox: { tokenLifetime: "5 seconds" } }))))
})

describe("TokenService with a token endpoint slow to answer", () => {
  const base = sandboxLayer({ sandbox: { tokenLifetime: "60 seconds" } })
  // every token answer arrives 10 s after the sandbox issued its token
  const slow = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      HttpClient.HttpClient,
      (client) =>
        HttpClient.transform(client, (answer, request) =>
          request.url.includes("access_token")
            ? Effect.tap(answer, () => Effect.sleep("10 seconds"))
            : answer)
    )
  )
  const layer = DesignSearchClient.layer().pipe(Layer.provideMerge(Layer.merge(base, Layer.provide(slow, base))))

  it.effect("a token's life counts from when its request was sent: no call goes out with an expired token", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* withTime(client.getDesign(Sandbox.fixedNumbers.chair), "10 seconds")
      // 62 s: the token was issued at 0 s and expired at 60 s, though it arrived at 10 s
      yield* TestClock.adjust("52 seconds")
      yield* withTime(client.getDesign(Sandbox.fixedNumbers.chair), "20 seconds")
      const stats = yield* sandboxStats
      expect(stats.requests.token).toBe(2)
      // no 401, and no retry after one
      expect(stats.requests.design).toBe(2)
    }).pipe(Effect.provide(layer)))
})

describe("TokenService when its scope closes", () => {
  it.effect("a get waiting on a fetch, and any get after, fail with Unavailable rather than hang", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(TokenService.layer().pipe(Layer.provideMerge(sandboxLayer())), scope)
      const service = Context.get(context, TokenService.TokenService)
      yield* Context.get(context, Sandbox.SandboxControl).injectFault({ target: "token", status: 200, delayMs: 60_000 })
      const waiting = yield* Effect.fork(Effect.flip(service.get))
      yield* TestClock.adjust("1 second")
      yield* Scope.close(scope, Exit.void)
      expect(yield* Fiber.join(waiting)).toMatchObject({
        reason: "Unavailable",
        detail: "the token service was shut down"
      })
      expect(yield* Effect.flip(service.get)).toMatchObject({ reason: "Unavailable" })
    }))

  it.effect("a token cached before the close is not handed out after it: the call fails and sends nothing", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        DesignSearchClient.layer().pipe(Layer.provideMerge(sandboxLayer())),
        scope
      )
      const client = Context.get(context, DesignSearchClient.DesignSearchClient)
      const control = Context.get(context, Sandbox.SandboxControl)
      yield* client.getDesign(Sandbox.fixedNumbers.chair)
      const before = yield* control.stats
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.flip(client.getDesign(Sandbox.fixedNumbers.chair))).toMatchObject({
        _tag: "TokenError",
        reason: "Unavailable",
        detail: "the token service was shut down"
      })
      expect(yield* control.stats).toEqual(before)
    }))
})

/** A store that offers `offered` (while the caller accepts it) instead of fetching, and whose invalidate does nothing, as when Redis was away. */
const offeringStore = (offered: Ref.Ref<AccessToken.AccessToken | undefined>) =>
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

const tokenFor = (value: string, lifetime: Duration.DurationInput) =>
  Effect.map(DateTime.now, (now): AccessToken.AccessToken => ({
    token: Redacted.make(value),
    tokenType: "Bearer",
    issuedAt: now,
    expiresAt: DateTime.addDuration(now, lifetime)
  }))

describe("TokenService with a TokenStore", () => {
  it.effect("a token refused with a 401 is not taken from the store again, though the store still holds it", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(
        yield* tokenFor("unknown-to-the-service", "1 hour")
      )
      yield* Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        yield* client.quickSearch({ query: "chair" })
        const stats = yield* sandboxStats
        // the stored token got a 401; the retry fetched a real one
        expect(stats.requests).toMatchObject({ token: 1, search: 2 })
        expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 1, sharedTokens: 1 })
      }).pipe(Effect.provide(
        DesignSearchClient.layer().pipe(Layer.provide(offeringStore(offered)), Layer.provideMerge(sandboxLayer()))
      ))
    }))

  it.effect("a retry handed a store's token fetched before the refusal, refused too, tries once more with one fetched here", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(undefined)
      yield* Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        const search = client.quickSearch({ query: "chair" })
        yield* search
        // another process stored a token the API refuses, and this store never lets it go
        yield* Ref.set(offered, yield* tokenFor("stored-before-the-refusal", "1 hour"))
        yield* (yield* control).revokeTokens
        yield* search
        // 401 with T1, 401 with the store's token, success with one fetched here
        expect((yield* sandboxStats).requests).toMatchObject({ token: 2, search: 4 })
        expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 2, sharedTokens: 1 })

        // a store's token refused, then one fetched here refused as well: the call fails, on its third try
        yield* Ref.set(offered, yield* tokenFor("another-stored", "1 hour"))
        yield* (yield* control).injectFault({ target: "search", status: 401, count: 3 })
        const error = yield* Effect.flip(search)
        expect(error._tag).toBe("AuthenticationError")
        expect((yield* sandboxStats).requests).toMatchObject({ token: 3, search: 7 })
      }).pipe(Effect.provide(
        DesignSearchClient.layer().pipe(Layer.provide(offeringStore(offered)), Layer.provideMerge(sandboxLayer()))
      ))
    }))

  it.effect("calls refused at once share one fetch for their last try", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(undefined)
      yield* Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        const search = client.quickSearch({ query: "chair" })
        yield* search
        yield* Ref.set(offered, yield* tokenFor("stored-before-the-refusal", "1 hour"))
        yield* (yield* control).revokeTokens
        yield* Effect.all(Array.from({ length: 20 }, () => search), { concurrency: "unbounded" })
        const stats = yield* sandboxStats
        expect(stats.requests.token).toBe(2)
        expect(stats.requests.search).toBe(1 + 20 * 3)
      }).pipe(Effect.provide(
        DesignSearchClient.layer().pipe(Layer.provide(offeringStore(offered)), Layer.provideMerge(sandboxLayer()))
      ))
    }))

  it.effect("a refresh takes a newer token from the store instead of fetching one", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(undefined)
      yield* Effect.gen(function*() {
        const service = yield* tokens
        const first = yield* service.get
        yield* service.get
        // another process refreshed 30 minutes in
        yield* TestClock.adjust("30 minutes")
        yield* Ref.set(offered, yield* tokenFor("refreshed-elsewhere", "1 hour"))
        yield* TestClock.adjust("30 minutes")
        const current = yield* service.get
        expect(Redacted.value(current.token)).toBe("refreshed-elsewhere")
        expect(AccessToken.sameToken(current, first)).toBe(false)
        expect((yield* sandboxStats).requests.token).toBe(1)
        expect(yield* service.stats).toMatchObject({ tokenRequests: 1, refreshes: 1, sharedTokens: 1 })
      }).pipe(
        Effect.provide(
          TokenService.layer().pipe(Layer.provide(offeringStore(offered)), Layer.provideMerge(sandboxLayer()))
        )
      )
    }))
})

/** A store whose invalidations wait until `open` completes, as while Redis is away, and report what they heard. */
const slowStore = (open: Deferred.Deferred<void>, heard: Array<string>, inFlight: { now: number; most: number }) =>
  Layer.succeed(TokenStore.TokenStore, {
    forClient: () => ({
      obtain: (fetch) => Effect.map(fetch, (token) => ({ token, shared: false })),
      invalidate: (token) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            inFlight.now++
            inFlight.most = Math.max(inFlight.most, inFlight.now)
          }),
          () => Effect.zipRight(Deferred.await(open), Effect.sync(() => void heard.push(Redacted.value(token.token)))),
          () => Effect.sync(() => void inFlight.now--)
        )
    })
  })

describe("TokenService tells its store of refused tokens", () => {
  it.scoped("one invalidation at a time, in order, however many pile up while the store is away; none after the close", () =>
    Effect.gen(function*() {
      const open = yield* Deferred.make<void>()
      const heard: Array<string> = []
      const inFlight = { now: 0, most: 0 }
      const scope = yield* Scope.make()
      const service = Context.get(
        yield* Layer.buildWithScope(
          Layer.provide(TokenService.layer(), Layer.merge(slowStore(open, heard, inFlight), sandboxLayer())),
          scope
        ),
        tokens
      )
      const refused = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => `refused-${i}`),
        (v) => tokenFor(v, "1 hour")
      )
      yield* Effect.forEach(refused, service.invalidate, { discard: true })
      // the same token refused again is not told again
      yield* service.invalidate(refused[0]!)
      yield* TestClock.adjust("1 minute")
      expect(inFlight).toEqual({ now: 1, most: 1 })
      yield* Deferred.succeed(open, void 0)
      while (heard.length < 50) yield* Effect.yieldNow()
      expect(heard).toEqual(refused.map((t) => Redacted.value(t.token)))
      expect(inFlight.most).toBe(1)
      // after the close, nothing is told
      yield* Scope.close(scope, Exit.void)
      yield* service.invalidate(yield* tokenFor("after-close", "1 hour"))
      yield* TestClock.adjust("1 minute")
      expect(heard).toHaveLength(50)
    }))
})
