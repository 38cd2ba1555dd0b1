/**
 * `TokenStore.layerRedis` against a real `redis-server`, in this process: two connections stand for
 * two processes of a fleet. Compare-and-delete, the stored token's TTL, the fetch lock and its
 * expiry, and Redis never failing a call.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Deferred, Duration, Effect, Fiber, Redacted } from "effect"
import { TokenStore } from "../src/index.js"
import { always, client, pair, tokenOf, valueOf } from "./support/fleetLayers.js"
import { redisServer } from "./support/redis.js"

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

  it.scopedLive("a refused token is marked for the fleet for its remaining life: put back in the store, it is never handed out", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const key = a.redis.key(client, "token")
      const refused = yield* tokenOf("refused-token-value", 60)
      yield* a.tokens.obtain(Effect.succeed(refused), always)
      const stored = yield* a.redis.command("GET", key)
      yield* a.tokens.invalidate(refused)
      expect(yield* a.redis.command("EXISTS", key)).toBe(0)
      // one mark, named by a digest of the token and never the token, living as long as the token
      const marks = yield* a.redis.command("KEYS", a.redis.key(client, "refused:*"))
      expect(Array.isArray(marks) ? marks.length : marks).toBe(1)
      expect(String(marks)).not.toContain("refused-token-value")
      const ttl = yield* a.redis.command("PTTL", String(marks))
      expect(ttl).toBeGreaterThan(50_000)
      expect(ttl).toBeLessThanOrEqual(60_000)
      // brought back (a snapshot from before the refusal, a writer that never heard of it): not handed out, and gone
      yield* a.redis.command("SET", key, String(stored), "PX", 60_000)
      const obtained = yield* b.tokens.obtain(tokenOf("fresh"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "fresh"])
      expect(valueOf(yield* a.tokens.obtain(Effect.die("must not fetch"), always))).toBe("fresh")
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
      yield* Effect.forkScoped(
        a.tokens.obtain(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never), always)
      )
      yield* Deferred.await(started)
      const obtained = yield* b.tokens.obtain(tokenOf("from-b"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "from-b"])
      // the holder still holds its lock: it was renewed, not taken over
      expect(yield* a.redis.command("EXISTS", a.redis.key(client, "lock"))).toBe(1)
    }))

  it.scopedLive("with Redis stopped, obtain fetches here and the budget answers locally; nothing fails", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a] = yield* pair(redis.url)
      yield* redis.stop
      const obtained = yield* a.tokens.obtain(tokenOf("local"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "local"])
      // the local budget keeps the rate: 10 per second
      const waits = yield* Effect.forEach([1, 2, 3], () => Effect.map(a.budget.reserve, Duration.toMillis))
      expect(waits[0]).toBe(0)
      expect(waits[2]! - waits[1]!).toBeCloseTo(100, -1)
    }))
})
