/**
 * The Effect 4 `TokenService` over a token endpoint of the tests' own (`support/tokenEndpoint.ts`):
 * the token economy (a cold herd, steady traffic, idle), retries and `Retry-After`, refusals, the
 * 401 → renew protocol, the scope's close, and what it takes from and tells a `TokenStore`.
 */
import { assert, describe, expect, it } from "@effect/vitest"
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
  Option,
  Redacted,
  Ref,
  Schedule,
  Scope,
  Tracer
} from "effect"
import { TestClock } from "effect/testing"
import type * as AccessToken from "../../src/AccessToken.js"
import type { DesignSearchError } from "../../src/ApiError.js"
import * as DesignSearchClient from "../../src/DesignSearchClient.js"
import * as Sandbox from "../../src/Sandbox.js"
import * as TokenService from "../../src/TokenService.js"
import * as TokenStore from "../../src/TokenStore.js"
import { sandboxLayer, sandboxStats } from "./support/layers.js"
import * as Endpoint from "./support/tokenEndpoint.js"

const tokens = TokenService.TokenService
const get = Effect.flatMap(tokens, (s) => s.get)
const inject = (fault: Endpoint.Fault) => Effect.flatMap(Endpoint.TokenEndpoint, (e) => e.inject(fault))
const valueOf = (token: AccessToken.AccessToken) => Redacted.value(token.token)

/** Runs `effect` in the background while simulated time passes, then joins it. */
const withTime = <A, E, R>(effect: Effect.Effect<A, E, R>, time: Duration.Input) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    yield* TestClock.adjust(time)
    return yield* Fiber.join(fiber)
  })

/** `count` gets, one a simulated minute. */
const everyMinute = (count: number) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.andThen(get, TestClock.adjust("1 minute")), {
    discard: true
  })

describe("the token economy", () => {
  it.effect("100 concurrent cold gets cause exactly one token request", () =>
    Effect.gen(function*() {
      const got = yield* Effect.all(Array.from({ length: 100 }, () => get), { concurrency: "unbounded" })
      assert.strictEqual(yield* Endpoint.requests, 1)
      assert.strictEqual(new Set(got.map(valueOf)).size, 1)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("steady traffic over 3 hours refreshes once an hour, ahead, and nobody waits after the first get", () =>
    Effect.gen(function*() {
      yield* everyMinute(180)
      // fetched at 0, refreshed at 59, 118 and 177 minutes (1 minute ahead of each 60-minute expiry)
      assert.strictEqual(yield* Endpoint.requests, 4)
      expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 4, refreshes: 3, waits: 1 })
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("one get then 3 idle hours makes no further request; the next get fetches once", () =>
    Effect.gen(function*() {
      yield* get
      yield* TestClock.adjust("3 hours")
      assert.strictEqual(yield* Endpoint.requests, 1)
      yield* get
      assert.strictEqual(yield* Endpoint.requests, 2)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("a token used after its fetch is refreshed once; the new one, unused, is left to expire", () =>
    Effect.gen(function*() {
      yield* get
      yield* get
      yield* TestClock.adjust("3 hours")
      assert.strictEqual(yield* Endpoint.requests, 2)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("a token living less than the skew is still reused, and refreshed half its life ahead", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 60; i++) yield* Effect.andThen(get, TestClock.adjust("1 second"))
      const requests = yield* Endpoint.requests
      assert.isTrue(requests >= 20 && requests <= 30, `${requests} token requests`)
      assert.strictEqual((yield* (yield* tokens).stats).waits, 1)
    }).pipe(Effect.provide(Endpoint.serviceLayer({ lifetime: "5 seconds" }))))

  it.effect("expiresAt is the sending instant plus expires_in; the cache stops handing a token out 30 s before", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("10 seconds")
      const token = yield* get
      assert.strictEqual(DateTime.toEpochMillis(token.issuedAt), 10_000)
      assert.strictEqual(DateTime.toEpochMillis(token.expiresAt), 610_000)
      yield* TestClock.adjust(Duration.seconds(600 - 31))
      assert.strictEqual(valueOf(yield* get), valueOf(token))
      yield* TestClock.adjust("2 seconds")
      assert.notStrictEqual(valueOf(yield* get), valueOf(token))
      assert.strictEqual(yield* Endpoint.requests, 2)
    }).pipe(Effect.provide(Endpoint.serviceLayer({ lifetime: "600 seconds" }))))
})

describe("failures of the token endpoint", () => {
  it.effect("503, 503, 200: the get succeeds after the backoff", () =>
    Effect.gen(function*() {
      yield* inject({ status: 503, count: 2 })
      assert.isTrue(Exit.isSuccess(yield* withTime(Effect.exit(get), "1 minute")))
      assert.strictEqual(yield* Endpoint.requests, 3)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("an endpoint that stays unavailable fails every waiter with Unavailable after one flight's retries", () =>
    Effect.gen(function*() {
      yield* inject({ status: 503, count: 100 })
      const errors = yield* withTime(
        Effect.all([get, get, get].map(Effect.flip), { concurrency: "unbounded" }),
        "10 minutes"
      )
      assert.deepStrictEqual(errors.map((e) => [e.reason, e.status]), Array(3).fill(["Unavailable", 503]))
      // the first try and four retries, shared by all three callers
      assert.strictEqual(yield* Endpoint.requests, 5)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("a request that never answers times out: Unavailable after five tries", () =>
    Effect.gen(function*() {
      yield* inject({ status: 200, count: 100, delay: "10 minutes" })
      const error = yield* withTime(Effect.flip(get), "30 minutes")
      expect(error).toMatchObject({ reason: "Unavailable", detail: "no token response within 15s" })
      assert.strictEqual(yield* Endpoint.requests, 5)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("refused credentials fail every waiter with InvalidCredentials after one request, and are not cached", () =>
    Effect.gen(function*() {
      const errors = yield* Effect.all(Array.from({ length: 5 }, () => Effect.flip(get)), { concurrency: "unbounded" })
      for (const error of errors) {
        expect(error).toMatchObject({
          _tag: "TokenError",
          reason: "InvalidCredentials",
          status: 401,
          error: "invalid_client"
        })
      }
      assert.strictEqual(yield* Endpoint.requests, 1)
      yield* Effect.flip(get)
      assert.strictEqual(yield* Endpoint.requests, 2)
    }).pipe(Effect.provide(Endpoint.serviceLayer({ secret: "wrong" }))))

  it.effect("429 with Retry-After 20 every time: each retry waits it; Unavailable with retryAfter after four", () =>
    Effect.gen(function*() {
      yield* inject({ status: 429, count: 100, headers: { "retry-after": "20" } })
      const fiber = yield* Effect.forkChild(Effect.flip(get))
      yield* TestClock.adjust("79 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      assert.strictEqual(yield* Endpoint.requests, 4)
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ reason: "Unavailable", status: 429 })
      assert.deepStrictEqual(error.retryAfter, Duration.seconds(20))
      assert.strictEqual(yield* Endpoint.requests, 5)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("a Retry-After past 30 seconds is not waited: the get fails at once, telling it", () =>
    Effect.gen(function*() {
      yield* inject({ status: 429, count: 100, headers: { "retry-after": "120" } })
      const error = yield* Effect.flip(get)
      assert.deepStrictEqual(error.retryAfter, Duration.seconds(120))
      assert.strictEqual(yield* Endpoint.requests, 1)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("a retrySchedule of the user's is stepped only with transient failures", () => {
    const seen: Array<number | undefined> = []
    const retrySchedule = Schedule.recurs(3).pipe(
      Schedule.setInputType<DesignSearchError>(),
      Schedule.tap(({ input }) => Effect.sync(() => void seen.push("status" in input ? input.status : undefined)))
    )
    return Effect.gen(function*() {
      yield* inject({ status: 400 })
      yield* inject({ status: 404 })
      yield* inject({ status: 503 })
      expect(yield* Effect.flip(get)).toMatchObject({ reason: "InvalidCredentials" })
      expect(yield* Effect.flip(get)).toMatchObject({ reason: "InvalidResponse" })
      yield* withTime(get, "1 second")
      assert.deepStrictEqual(seen, [503])
      assert.strictEqual(yield* Endpoint.requests, 4)
    }).pipe(Effect.provide(Endpoint.serviceLayer({ retrySchedule })))
  })
})

describe("refreshes that fail", () => {
  it.effect("a failed refresh retries while the old token is valid; callers keep the old token meanwhile", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* get
      yield* get
      yield* inject({ status: 503, count: 2 })
      yield* TestClock.adjust("59 minutes")
      assert.strictEqual(valueOf(yield* get), valueOf(first))
      yield* TestClock.adjust("1 minute")
      assert.notStrictEqual(valueOf(yield* get), valueOf(first))
      assert.strictEqual((yield* service.stats).waits, 1)
      assert.strictEqual(yield* Endpoint.requests, 4)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("callers that come to wait on a refresh get every retry a fetch of their own would have", () =>
    Effect.gen(function*() {
      yield* get
      yield* get
      // the refresh starts at 59 min 30 s, as the old token stops being handed out; its one slow try
      // fails after the callers have come, and four more 503s follow: their fifth try gets the token
      yield* TestClock.adjust(Duration.seconds(3569))
      yield* inject({ status: 503, delay: "2 seconds" })
      yield* inject({ status: 503, count: 4 })
      const waiting = Effect.all([get, get, get], { concurrency: "unbounded" }).pipe(Effect.delay("2 seconds"))
      const got = yield* withTime(waiting, "1 minute")
      assert.strictEqual(new Set(got.map(valueOf)).size, 1)
      assert.strictEqual(yield* Endpoint.requests, 7)
      assert.strictEqual((yield* (yield* tokens).stats).refreshes, 1)
    }).pipe(
      Effect.provide(Endpoint.serviceLayer({ config: { refreshBefore: "30 seconds", expirySkew: "30 seconds" } }))
    ))

  it.effect("a refresh whose retries outlast the old token starts over for the callers that wait on it", () =>
    Effect.gen(function*() {
      const first = yield* get
      yield* get
      for (const delay of ["14 seconds", "14 seconds", "5 seconds"] as const) yield* inject({ status: 503, delay })
      yield* TestClock.adjust(Duration.seconds(3571))
      const got = yield* withTime(get, "1 minute")
      assert.notStrictEqual(valueOf(got), valueOf(first))
      assert.strictEqual(yield* Endpoint.requests, 5)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))
})

describe("401s: invalidate and renew", () => {
  it.effect("invalidate is compare-and-clear: a late 401 for an old token leaves the new one", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* get
      yield* service.invalidate(first)
      const second = yield* get
      assert.notStrictEqual(valueOf(second), valueOf(first))
      yield* service.invalidate(first)
      assert.strictEqual(valueOf(yield* get), valueOf(second))
      assert.strictEqual(yield* Endpoint.requests, 2)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))

  it.effect("renew: calls refused at once share one fetch; a token fetched since the refusal is refused too", () =>
    Effect.gen(function*() {
      const service = yield* tokens
      const first = yield* get
      yield* TestClock.adjust("1 second")
      const since = yield* Clock.currentTimeMillis
      const renewed = yield* Effect.all(Array.from({ length: 20 }, () => service.renew(first, since)), {
        concurrency: "unbounded"
      })
      const values = new Set(renewed.map((t) => Option.isSome(t) ? valueOf(t.value) : "none"))
      assert.deepStrictEqual([...values], ["token-2"])
      assert.strictEqual(yield* Endpoint.requests, 2)
      // the renewed token refused as well: nothing more to try, and nothing fetched
      assert.isTrue(Option.isNone(yield* service.renew(yield* get, since)))
      assert.strictEqual(yield* Endpoint.requests, 2)
    }).pipe(Effect.provide(Endpoint.serviceLayer())))
})

describe("TokenService when its scope closes", () => {
  const build = (scope: Scope.Scope) =>
    Effect.map(Layer.buildWithScope(Endpoint.serviceLayer(), scope), (context) => ({
      service: Context.get(context, tokens),
      endpoint: Context.get(context, Endpoint.TokenEndpoint)
    }))

  it.effect("the refresh stops: left open, the used token is refreshed; closed, nothing runs", () =>
    Effect.gen(function*() {
      const run = (close: boolean) =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const { endpoint, service } = yield* build(scope)
          yield* service.get
          yield* service.get
          if (close) yield* Scope.close(scope, Exit.void)
          yield* TestClock.adjust("2 hours")
          const requests = yield* endpoint.requests
          yield* Scope.close(scope, Exit.void)
          return requests
        })
      assert.strictEqual(yield* run(false), 2)
      assert.strictEqual(yield* run(true), 1)
    }))

  it.effect("a get waiting on a fetch, and any get after, fail with Unavailable rather than hang", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { endpoint, service } = yield* build(scope)
      yield* endpoint.inject({ status: 200, delay: "1 minute" })
      const waiting = yield* Effect.forkChild(Effect.flip(service.get))
      yield* TestClock.adjust("1 second")
      yield* Scope.close(scope, Exit.void)
      expect(yield* Fiber.join(waiting)).toMatchObject({
        reason: "Unavailable",
        detail: "the token service was shut down"
      })
      expect(yield* Effect.flip(service.get)).toMatchObject({ reason: "Unavailable" })
    }))

  it.effect("a get whose fetch has not begun when the scope closes hears of the close all the same", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { service } = yield* build(scope)
      // the get runs up to its wait at once; the fetch it started has not run when the scope closes
      const waiting = yield* Effect.forkChild(Effect.flip(service.get), { startImmediately: true })
      yield* Scope.close(scope, Exit.void)
      expect(yield* Fiber.join(waiting)).toMatchObject({ detail: "the token service was shut down" })
    }))

  it.effect("a token cached before the close is not handed out after it", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { endpoint, service } = yield* build(scope)
      yield* service.get
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.flip(service.get)).toMatchObject({ detail: "the token service was shut down" })
      assert.strictEqual(yield* endpoint.requests, 1)
    }))
})

const tokenFor = (value: string, lifetime: Duration.Input) =>
  Effect.map(DateTime.now, (now): AccessToken.AccessToken => ({
    token: Redacted.make(value),
    tokenType: "Bearer",
    issuedAt: now,
    expiresAt: DateTime.addDuration(now, lifetime)
  }))

/** A store that offers `offered` (while the caller accepts it) instead of fetching, and hears no invalidation. */
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

const withStore = (store: Layer.Layer<TokenStore.TokenStore>) =>
  TokenService.layer().pipe(Layer.provide(store), Layer.provideMerge(Endpoint.layer()))

describe("TokenService with a TokenStore", () => {
  it.effect("a token refused with a 401 is not taken from the store again, though the store still holds it", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(yield* tokenFor("stored", "1 hour"))
      yield* Effect.gen(function*() {
        const service = yield* tokens
        const stored = yield* get
        assert.strictEqual(valueOf(stored), "stored")
        yield* service.invalidate(stored)
        assert.strictEqual(valueOf(yield* get), "token-1")
        expect(yield* service.stats).toMatchObject({ tokenRequests: 1, sharedTokens: 1 })
      }).pipe(Effect.provide(withStore(offeringStore(offered))))
    }))

  it.effect("a refresh takes a newer token from the store instead of fetching one", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(undefined)
      yield* Effect.gen(function*() {
        const service = yield* tokens
        yield* get
        yield* get
        // another process refreshed 30 minutes in
        yield* TestClock.adjust("30 minutes")
        yield* Ref.set(offered, yield* tokenFor("refreshed-elsewhere", "1 hour"))
        yield* TestClock.adjust("30 minutes")
        assert.strictEqual(valueOf(yield* get), "refreshed-elsewhere")
        expect(yield* service.stats).toMatchObject({ tokenRequests: 1, refreshes: 1, sharedTokens: 1 })
      }).pipe(Effect.provide(withStore(offeringStore(offered))))
    }))

  it.effect("refused tokens are told to the store one at a time, in order, once each; none after the close", () =>
    Effect.gen(function*() {
      const open = yield* Deferred.make<void>()
      const heard: Array<string> = []
      const inFlight = { now: 0, most: 0 }
      // invalidations wait until `open`, as while Redis is away
      const slowStore = Layer.succeed(TokenStore.TokenStore, {
        forClient: () => ({
          obtain: (fetch) => Effect.map(fetch, (token) => ({ token, shared: false })),
          invalidate: (token) =>
            Effect.acquireUseRelease(
              Effect.sync(() => void (inFlight.most = Math.max(inFlight.most, ++inFlight.now))),
              () => Effect.andThen(Deferred.await(open), Effect.sync(() => void heard.push(valueOf(token)))),
              () => Effect.sync(() => void inFlight.now--)
            )
        })
      })
      const scope = yield* Scope.make()
      const service = Context.get(yield* Layer.buildWithScope(withStore(slowStore), scope), tokens)
      const refused = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => `refused-${i}`),
        (v) => tokenFor(v, "1 hour")
      )
      yield* Effect.forEach(refused, service.invalidate, { discard: true })
      yield* service.invalidate(refused[0]!)
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(inFlight, { now: 1, most: 1 })
      yield* Deferred.succeed(open, void 0)
      while (heard.length < 50) yield* Effect.yieldNow
      assert.deepStrictEqual(heard, refused.map(valueOf))
      assert.strictEqual(inFlight.most, 1)
      yield* Scope.close(scope, Exit.void)
      yield* service.invalidate(yield* tokenFor("after-close", "1 hour"))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(heard.length, 50)
    }))
})

describe("the 401 → renew protocol, through the client and the sandbox, with a store", () => {
  const withClient = (offered: Ref.Ref<AccessToken.AccessToken | undefined>) =>
    DesignSearchClient.layer().pipe(Layer.provide(offeringStore(offered)), Layer.provideMerge(sandboxLayer()))
  const search = Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (client) => client.quickSearch({ query: "chair" })
  )
  const revoke = Effect.flatMap(Sandbox.SandboxControl, (control) => control.revokeTokens)
  const requests = Effect.map(sandboxStats, (stats) => ({ token: stats.requests.token, search: stats.requests.search }))

  it.effect("a store's token refused with a 401 is not taken again: the retry fetches one here", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(yield* tokenFor("unknown", "1 hour"))
      yield* Effect.gen(function*() {
        yield* search
        assert.deepStrictEqual(yield* requests, { token: 1, search: 2 })
        expect(yield* (yield* tokens).stats).toMatchObject({ tokenRequests: 1, sharedTokens: 1 })
      }).pipe(Effect.provide(withClient(offered)))
    }))

  it.effect("a retry handed a store's token from before the refusal tries once more with one fetched here", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(undefined)
      yield* Effect.gen(function*() {
        yield* search
        // another process stored a token the API refuses, and this store never lets it go
        yield* Ref.set(offered, yield* tokenFor("stored-before-the-refusal", "1 hour"))
        yield* revoke
        yield* search
        // 401 with T1, 401 with the store's token, success with one fetched here
        assert.deepStrictEqual(yield* requests, { token: 2, search: 4 })
        // a store's token refused, then one fetched here refused as well: the call fails on its third try
        yield* Ref.set(offered, yield* tokenFor("another-stored", "1 hour"))
        yield* Effect.flatMap(Sandbox.SandboxControl, (c) => c.injectFault({ target: "search", status: 401, count: 3 }))
        assert.strictEqual((yield* Effect.flip(search))._tag, "AuthenticationError")
        assert.deepStrictEqual(yield* requests, { token: 3, search: 7 })
      }).pipe(Effect.provide(withClient(offered)))
    }))

  it.effect("calls refused at once share one fetch for their last try", () =>
    Effect.gen(function*() {
      const offered = yield* Ref.make<AccessToken.AccessToken | undefined>(undefined)
      yield* Effect.gen(function*() {
        yield* search
        yield* Ref.set(offered, yield* tokenFor("stored-before-the-refusal", "1 hour"))
        yield* revoke
        yield* Effect.all(Array.from({ length: 20 }, () => search), { concurrency: "unbounded" })
        assert.deepStrictEqual(yield* requests, { token: 2, search: 1 + 20 * 3 })
      }).pipe(Effect.provide(withClient(offered)))
    }))
})

describe("the spans of token requests", () => {
  /** The spans `effect` makes, recorded by a tracer over the current one. */
  const spansOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const base = yield* Effect.tracer
      const spans: Array<Tracer.Span> = []
      const tracer = Tracer.make({
        span: (options) => spans[spans.push(base.span(options)) - 1]!,
        context: base.context
      })
      yield* Effect.withTracer(effect, tracer)
      return (name: string) => spans.find((span) => span.name === name)!
    })
  const parentOf = (span: Tracer.Span) => Option.getOrUndefined(Option.map(span.parent, (p) => p.spanId))

  for (const built of ["in a span", "in no span"] as const) {
    it.effect(`a fetch of a service built ${built} is a span of the service, linked to the call that started it`, () =>
      Effect.gen(function*() {
        const named = yield* spansOf(Effect.gen(function*() {
          const build = Layer.build(Endpoint.serviceLayer())
          const context = yield* built === "in a span" ? Effect.withSpan(build, "app.start") : build
          yield* Effect.withSpan(Context.get(context, tokens).get, "app.request")
        }))
        const fetch = named("TokenService.fetch")
        assert.strictEqual(parentOf(fetch), built === "in a span" ? named("app.start").spanId : undefined)
        assert.deepStrictEqual(fetch.links.map((link) => link.span.spanId), [named("app.request").spanId])
      }))
  }
})
