/**
 * `TokenStore.layerRedis`, `RequestBudget.layerRedis` and `Fleet.layer` against a real
 * `redis-server`, in this process: two connections stand for two processes of a fleet. Compare-and-delete, the stored
 * token's TTL, the fetch lock and its expiry, the shared back-off, and Redis never failing a call.
 */
import { describe, expect, it } from "@effect/vitest"
import { createServer } from "node:net"
import { Context, DateTime, Deferred, Duration, Effect, Fiber, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import type { AccessToken } from "../src/index.js"
import { DesignSearchClient, Fleet, FleetRedis, RequestBudget, TokenService, TokenStore } from "../src/index.js"
import { sandboxLayer, sandboxStats } from "./support/layers.js"
import { listening } from "./support/loopback.js"
import { redisServer } from "./support/redis.js"

/** A loopback TCP listener that counts the connections made to it, closed with the scope. */
const connectionCounter = Effect.suspend(() => {
  let count = 0
  const server = createServer((socket) => {
    count++
    socket.destroy()
  })
  return Effect.map(listening(server), (port) => ({ port, connections: () => count }))
})

const client = { tokenUrl: "https://auth.example/token", clientId: "fleet-client" }
let prefixes = 0

/** One process's view: its own connection, store and budget, alive for the rest of the scope. */
const member = (url: string, keyPrefix: string, options: TokenStore.RedisOptions = {}) =>
  Effect.map(
    Layer.build(
      Layer.merge(TokenStore.layerRedis(options), Layer.orDie(RequestBudget.layerRedis({ requestsPerSecond: 10 }))).pipe(
        Layer.provideMerge(FleetRedis.layer({ url, keyPrefix }))
      ).pipe(Layer.orDie)
    ),
    (context) => ({
      tokens: Context.get(context, TokenStore.TokenStore).forClient(client),
      budget: Context.get(context, RequestBudget.RequestBudget).forClient(client),
      redis: Context.get(context, FleetRedis.FleetRedis)
    })
  )

/** Two members of one fleet on a fresh key prefix. */
const pair = (url: string, options: TokenStore.RedisOptions = {}): Effect.Effect<
  readonly [Effect.Effect.Success<ReturnType<typeof member>>, Effect.Effect.Success<ReturnType<typeof member>>],
  never,
  Scope.Scope
> =>
  Effect.suspend(() => {
    const prefix = `test-${prefixes++}`
    return Effect.all([member(url, prefix, options), member(url, prefix, options)])
  })

const tokenOf = (value: string, lifetimeSeconds = 3600): Effect.Effect<AccessToken.AccessToken> =>
  Effect.map(DateTime.now, (now) => ({
    token: Redacted.make(value),
    tokenType: "Bearer",
    issuedAt: now,
    expiresAt: DateTime.addDuration(now, Duration.seconds(lifetimeSeconds))
  }))

const valueOf = (obtained: TokenStore.Obtained) => Redacted.value(obtained.token.token)
const always = () => true

describe("TokenStore.layerRedis", () => {
  it.scopedLive("a token fetched by one process is handed to the other, with a TTL of its remaining life", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const first = yield* a.tokens.obtain(tokenOf("t1", 60), always)
      expect(first.shared).toBe(false)
      const second = yield* b.tokens.obtain(Effect.die("must not fetch"), always)
      expect(second.shared).toBe(true)
      expect(valueOf(second)).toBe("t1")
      expect(DateTime.toEpochMillis(second.token.expiresAt)).toBe(DateTime.toEpochMillis(first.token.expiresAt))
      const ttl = yield* a.redis.command("PTTL", a.redis.key(client, "token"))
      expect(ttl).toBeGreaterThan(50_000)
      expect(ttl).toBeLessThanOrEqual(60_000)
      // a token the caller does not accept is replaced by a fetch
      const third = yield* b.tokens.obtain(tokenOf("t2"), (token) => Redacted.value(token.token) !== "t1")
      expect([third.shared, valueOf(third)]).toEqual([false, "t2"])
    }))

  it.scopedLive("invalidate is compare-and-delete: late 401s for an old token leave the new one", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const old = yield* tokenOf("old")
      yield* a.tokens.obtain(Effect.succeed(old), always)
      yield* b.tokens.obtain(tokenOf("new"), (token) => Redacted.value(token.token) !== "old")
      yield* Effect.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).tokens.invalidate(old)), {
        concurrency: "unbounded"
      })
      const kept = yield* a.tokens.obtain(Effect.die("must not fetch"), always)
      expect(valueOf(kept)).toBe("new")
      // the current token's own 401 does remove it
      yield* b.tokens.invalidate(kept.token)
      const fetched = yield* a.tokens.obtain(tokenOf("newer"), always)
      expect([fetched.shared, valueOf(fetched)]).toEqual([false, "newer"])
    }))

  it.scopedLive("while one process fetches under the lock, the other waits for its token instead of fetching", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const slowFetch = Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)).pipe(
        Effect.zipRight(tokenOf("from-a"))
      )
      const holder = yield* Effect.fork(a.tokens.obtain(slowFetch, always))
      yield* Deferred.await(started)
      const lockTtl = yield* a.redis.command("PTTL", a.redis.key(client, "lock"))
      expect(lockTtl).toBeGreaterThan(0)
      expect(lockTtl).toBeLessThanOrEqual(Duration.toMillis(TokenStore.redisDefaults.lockTtl))
      const waiter = yield* Effect.fork(b.tokens.obtain(Effect.die("must not fetch"), always))
      yield* Deferred.succeed(release, undefined)
      expect(valueOf(yield* Fiber.join(holder))).toBe("from-a")
      const waited = yield* Fiber.join(waiter)
      expect([waited.shared, valueOf(waited)]).toEqual([true, "from-a"])
      // the holder let go of the lock
      expect(yield* a.redis.command("EXISTS", a.redis.key(client, "lock"))).toBe(0)
    }))

  it.scopedLive("a holder whose fetch outlasts the lock's TTL renews it: the other still waits for its token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { lockTtl: "300 millis" })
      const started = yield* Deferred.make<void>()
      const slowFetch = Effect.zipRight(Deferred.succeed(started, undefined), Effect.sleep("1 second")).pipe(
        Effect.zipRight(tokenOf("from-a"))
      )
      const holder = yield* Effect.fork(a.tokens.obtain(slowFetch, always))
      yield* Deferred.await(started)
      const waited = yield* b.tokens.obtain(Effect.die("must not fetch"), always)
      expect([waited.shared, valueOf(waited)]).toEqual([true, "from-a"])
      expect(valueOf(yield* Fiber.join(holder))).toBe("from-a")
    }))

  it.scopedLive("a holder that never finishes holds the others back only for maxWait", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { lockTtl: "300 millis", maxWait: "600 millis" })
      const started = yield* Deferred.make<void>()
      yield* Effect.forkScoped(a.tokens.obtain(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never), always))
      yield* Deferred.await(started)
      const obtained = yield* b.tokens.obtain(tokenOf("from-b"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "from-b"])
      // the holder still holds its lock: it was renewed, not taken over
      expect(yield* a.redis.command("EXISTS", a.redis.key(client, "lock"))).toBe(1)
    }))

  it.scopedLive("with Redis stopped, obtain fetches here, invalidate and the budget answer locally; nothing fails", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a] = yield* pair(redis.url)
      yield* redis.stop
      const obtained = yield* a.tokens.obtain(tokenOf("local"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "local"])
      yield* a.tokens.invalidate(obtained.token)
      // the local budget keeps the rate: 10 per second
      const waits = yield* Effect.forEach([1, 2, 3], () => Effect.map(a.budget.reserve, Duration.toMillis))
      expect(waits[0]).toBe(0)
      expect(waits[2]! - waits[1]!).toBeCloseTo(100, -1)
    }))
})

describe("Fleet.layer", () => {
  it.scopedLive("provided below DesignSearchClient.layer, as the README wires it: a second client takes the first one's token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const keyPrefix = `test-${prefixes++}`
      const connect = Effect.map(
        Layer.build(DesignSearchClient.layer().pipe(Layer.provide(Layer.orDie(Fleet.layer({ url: redis.url, keyPrefix }))))),
        (context) => ({ client: Context.get(context, DesignSearchClient.DesignSearchClient), tokens: Context.get(context, TokenService.TokenService) })
      )
      const first = yield* connect
      const second = yield* connect
      yield* first.client.quickSearch({ query: "chair" })
      yield* second.client.quickSearch({ query: "chair" })
      expect((yield* sandboxStats).requests.token).toBe(1)
      expect(yield* first.tokens.stats).toMatchObject({ tokenRequests: 1, sharedTokens: 0 })
      expect(yield* second.tokens.stats).toMatchObject({ tokenRequests: 0, sharedTokens: 1 })
    }).pipe(Effect.provide(sandboxLayer())))
})

describe("FleetRedis", () => {
  it.scopedLive("a Redis slower than the command timeout counts as away: the token is fetched here", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // the server stops answering anyone for 2 seconds
      yield* Effect.forkScoped(Effect.ignore(b.redis.command("DEBUG", "SLEEP", "2")))
      yield* Effect.yieldNow()
      const obtained = yield* a.tokens.obtain(tokenOf("local"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "local"])
      expect(Duration.toMillis(FleetRedis.defaults.commandTimeout)).toBeLessThan(2000)
    }))

  it.live("bad options are a ConfigError naming the option; a URL's password is never told", () =>
    Effect.gen(function*() {
      const failure = <A, E>(layer: Layer.Layer<A, E>) =>
        Effect.map(Effect.flip(Effect.scoped(Layer.build(layer))), String)
      const url = yield* failure(FleetRedis.layer({ url: "http://user:hunter2@cache.internal:6379" }))
      expect(url).toContain("url must be a redis:// or rediss:// URL")
      expect(url).not.toContain("hunter2")
      expect(yield* failure(FleetRedis.layer({ url: "not a url" }))).toContain("url")
      expect(yield* failure(FleetRedis.layer({ keyPrefix: "" }))).toContain("keyPrefix")
      expect(yield* failure(FleetRedis.layer({ commandTimeout: 0 }))).toContain("commandTimeout must be positive")
      // the fleet's own options fail before any connection is made
      const listener = yield* connectionCounter
      const counted = `redis://127.0.0.1:${listener.port}`
      expect(yield* failure(Fleet.layer({ url: counted, lockTtl: "0 millis" }))).toContain("lockTtl must be positive")
      expect(yield* failure(Fleet.layer({ url: counted, maxWait: -1 }))).toContain("maxWait")
      expect(yield* failure(Fleet.layer({ url: counted, requestsPerSecond: 0 }))).toContain("requestsPerSecond")
      expect(yield* failure(Fleet.layer({ url: counted, burst: 1.5 }))).toContain("burst")
      expect(listener.connections()).toBe(0)
    }).pipe(Effect.scoped))

  it("keys name the client by a digest of token URL and client id, never the secret", () => {
    const key = FleetRedis.keyOf("p", client, "token")
    expect(key).toMatch(/^p:\{[0-9a-f]{32}\}:token$/)
    expect(key).not.toContain(client.clientId)
    expect(FleetRedis.keyOf("p", { ...client, clientId: "other" }, "token")).not.toBe(key)
    expect(FleetRedis.keyOf("p", { ...client, tokenUrl: "https://auth.example/other" }, "token")).not.toBe(key)
    expect(FleetRedis.keyOf("p", client, "lock")).toBe(key.replace(/token$/, "lock"))
  })
})

describe("RequestBudget.layerRedis", () => {
  it.scopedLive("shares slots and a 429's back-off between processes", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // 10 per second, taken alternately by both: each slot 100 ms after the last, whoever takes it
      const waits = yield* Effect.forEach([a, b, a, b], (m) => Effect.map(m.budget.reserve, Duration.toMillis))
      expect(waits[0]).toBe(0)
      for (let i = 1; i < waits.length; i++) expect(waits[i]! - waits[i - 1]!).toBeGreaterThanOrEqual(90)
      yield* a.budget.backOff(Duration.seconds(30))
      expect(Duration.toMillis(yield* b.budget.reserve)).toBeGreaterThan(25_000)
    }))
})
