/**
 * `TokenStore.layerRedis` against a real `redis-server`, in this process: two connections stand for
 * two processes of a fleet. Compare-and-delete, the stored token's TTL, the marks of refused tokens,
 * the fetch lock and its expiry, Redis never failing a call, and the stored form and keys core lays
 * out, which processes of either edition read and write. And `memory`, which keeps nothing.
 */
import { forkChild } from "#edition/internal/seam"
import { describe, expect, it } from "@effect/vitest"
import { Clock, DateTime, Deferred, Duration, Effect, Fiber, Redacted } from "effect"
import { keyOf, refusedMark } from "../src/core/fleet/redis.js"
import { TokenStore } from "../src/index.js"
import { always, client, freshPrefix, member, pair, tokenOf, valueOf } from "./support/fleetLayers.js"
import { redisServer } from "./support/redis.js"

const mustNotFetch = Effect.die("must not fetch")

describe("TokenStore.layerRedis", () => {
  it.live("a token fetched by one process is handed to the other, with a TTL of its remaining life", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const first = yield* a.tokens.obtain(tokenOf("t1", 60), always)
      expect(first.shared).toBe(false)
      const second = yield* b.tokens.obtain(mustNotFetch, always)
      expect([second.shared, valueOf(second)]).toEqual([true, "t1"])
      expect(DateTime.toEpochMillis(second.token.expiresAt)).toBe(DateTime.toEpochMillis(first.token.expiresAt))
      const ttl = Number(yield* a.redis.command("PTTL", a.redis.key(client, "token")))
      expect(ttl).toBeGreaterThan(50_000)
      expect(ttl).toBeLessThanOrEqual(60_000)
      // a token the caller does not accept is replaced by a fetch
      const third = yield* b.tokens.obtain(tokenOf("t2"), (token) => Redacted.value(token.token) !== "t1")
      expect([third.shared, valueOf(third)]).toEqual([false, "t2"])
    }).pipe(Effect.scoped))

  it.live("invalidate is compare-and-delete: late 401s for an old token leave the new one", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const old = yield* tokenOf("old")
      yield* a.tokens.obtain(Effect.succeed(old), always)
      yield* b.tokens.obtain(tokenOf("new"), (token) => Redacted.value(token.token) !== "old")
      yield* Effect.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).tokens.invalidate(old)), {
        concurrency: "unbounded"
      })
      const kept = yield* a.tokens.obtain(mustNotFetch, always)
      expect(valueOf(kept)).toBe("new")
      // the current token's own 401 does remove it
      yield* b.tokens.invalidate(kept.token)
      const fetched = yield* a.tokens.obtain(tokenOf("newer"), always)
      expect([fetched.shared, valueOf(fetched)]).toEqual([false, "newer"])
    }).pipe(Effect.scoped))

  it.live("a refused token is marked for the fleet for its remaining life: put back in the store, it is never handed out", () =>
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
      const ttl = Number(yield* a.redis.command("PTTL", String(marks)))
      expect(ttl).toBeGreaterThan(50_000)
      expect(ttl).toBeLessThanOrEqual(60_000)
      // brought back (a snapshot from before the refusal, a writer that never heard of it): not handed out, and gone
      yield* a.redis.command("SET", key, String(stored), "PX", 60_000)
      const obtained = yield* b.tokens.obtain(tokenOf("fresh"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "fresh"])
      expect(valueOf(yield* a.tokens.obtain(mustNotFetch, always))).toBe("fresh")
    }).pipe(Effect.scoped))

  it.live("while one process fetches under the lock, the other waits for its token instead of fetching", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const slow = Effect.andThen(
        Effect.andThen(Deferred.succeed(started, void 0), Deferred.await(release)),
        tokenOf("from-a")
      )
      const holder = yield* forkChild(a.tokens.obtain(slow, always))
      yield* Deferred.await(started)
      const lockTtl = Number(yield* a.redis.command("PTTL", a.redis.key(client, "lock")))
      expect(lockTtl).toBeGreaterThan(0)
      expect(lockTtl).toBeLessThanOrEqual(Duration.toMillis(TokenStore.redisDefaults.lockTtl))
      const waiter = yield* forkChild(b.tokens.obtain(mustNotFetch, always))
      yield* Deferred.succeed(release, undefined)
      expect(valueOf(yield* Fiber.join(holder))).toBe("from-a")
      const waited = yield* Fiber.join(waiter)
      expect([waited.shared, valueOf(waited)]).toEqual([true, "from-a"])
      // the holder let go of the lock
      expect(yield* a.redis.command("EXISTS", a.redis.key(client, "lock"))).toBe(0)
    }).pipe(Effect.scoped))

  it.live("a holder whose fetch outlasts the lock's TTL renews it: the other still waits for its token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { lockTtl: "300 millis" })
      const started = yield* Deferred.make<void>()
      const slow = Effect.andThen(
        Effect.andThen(Deferred.succeed(started, void 0), Effect.sleep("1 second")),
        tokenOf("from-a")
      )
      const holder = yield* forkChild(a.tokens.obtain(slow, always))
      yield* Deferred.await(started)
      const waited = yield* b.tokens.obtain(mustNotFetch, always)
      expect([waited.shared, valueOf(waited)]).toEqual([true, "from-a"])
      expect(valueOf(yield* Fiber.join(holder))).toBe("from-a")
    }).pipe(Effect.scoped))

  it.live("a holder that never finishes holds the others back only for maxWait", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      // a lock that outlives the wait without a renewal: what is shown is the wait, on a busy machine too
      const [a, b] = yield* pair(redis.url, { lockTtl: "5 seconds", maxWait: "600 millis" })
      const started = yield* Deferred.make<void>()
      yield* Effect.forkScoped(
        a.tokens.obtain(Effect.andThen(Deferred.succeed(started, undefined), Effect.never), always)
      )
      yield* Deferred.await(started)
      const obtained = yield* b.tokens.obtain(tokenOf("from-b"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "from-b"])
      // the holder still holds its lock: the other fetched beside it, and did not take it over
      expect(yield* a.redis.command("EXISTS", a.redis.key(client, "lock"))).toBe(1)
    }).pipe(Effect.scoped))

  it.live("with Redis stopped, obtain fetches here, the budget answers locally, invalidate tries until heard; once Redis is back, the token is shared again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      // commands answer late on a busy machine: only Redis being away may send a member to its fallback
      const [a, b] = yield* pair(redis.url, { probeInterval: "50 millis", commandTimeout: "10 seconds" })
      yield* redis.stop
      const local = yield* a.tokens.obtain(tokenOf("local"), always)
      expect([local.shared, valueOf(local)]).toEqual([false, "local"])
      // the local budget keeps the rate, 10 per second: the third slot 200 ms after the first, which
      // came at once, less the time the reservations took
      const before = yield* Clock.currentTimeMillis
      const waits = yield* Effect.forEach([1, 2, 3], () => Effect.map(a.budget.reserve, Duration.toMillis))
      const took = (yield* Clock.currentTimeMillis) - before
      expect(waits[0]).toBe(0)
      expect(waits[2]).toBeLessThanOrEqual(200)
      expect(waits[2]).toBeGreaterThanOrEqual(200 - took - 1)
      // b finds Redis away too, so that its `reachable` waits for its own connection to come back
      yield* Effect.ignore(b.redis.command("PING"))
      const telling = yield* forkChild(a.tokens.invalidate(local.token))
      yield* redis.start
      yield* Effect.all([a.redis.reachable, b.redis.reachable])
      yield* Fiber.join(telling)
      expect(yield* a.redis.command("EXISTS", refusedMark(a.redis.key(client, "refused:"), "local"))).toBe(1)
      yield* a.tokens.obtain(tokenOf("after"), always)
      const shared = yield* b.tokens.obtain(mustNotFetch, always)
      expect([shared.shared, valueOf(shared)]).toEqual([true, "after"])
    }).pipe(Effect.scoped))

  it.live("reads and writes the stored form and keys core lays out, as every edition does", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      const [store, raw] = yield* Effect.all([member(redis.url, prefix), member(redis.url, prefix)])
      const key = keyOf(prefix, client, "token")
      const now = Date.now()
      const canonical = (token: string, issuedAt: number, expiresAt: number) =>
        JSON.stringify({ token, tokenType: "Bearer", issuedAt, expiresAt })
      // a token written by a process of the other edition: its canonical text under core's key
      yield* raw.redis.command("SET", key, canonical("written", now, now + 60_000), "PX", 60_000)
      const read = yield* store.tokens.obtain(mustNotFetch, always)
      expect([read.shared, valueOf(read)]).toEqual([true, "written"])
      expect(DateTime.toEpochMillis(read.token.expiresAt)).toBe(now + 60_000)
      // refused here: marked under core's name for it, which the other edition's script reads
      yield* store.tokens.invalidate(read.token)
      expect(yield* raw.redis.command("EXISTS", refusedMark(keyOf(prefix, client, "refused:"), "written"))).toBe(1)
      expect(yield* raw.redis.command("EXISTS", key)).toBe(0)
      // fetched here: stored in the same canonical text, for the other edition's compare-and-delete
      const { expiresAt, issuedAt } = (yield* store.tokens.obtain(tokenOf("fetched"), always)).token
      expect(yield* raw.redis.command("GET", key)).toBe(
        canonical("fetched", DateTime.toEpochMillis(issuedAt), DateTime.toEpochMillis(expiresAt))
      )
    }).pipe(Effect.scoped))
})

describe("TokenStore.memory", () => {
  it.effect("keeps nothing: every token is fetched here", () =>
    Effect.gen(function*() {
      const tokens = TokenStore.memory.forClient(client)
      const first = yield* tokens.obtain(tokenOf("a"), always)
      const second = yield* tokens.obtain(tokenOf("b"), always)
      expect([first.shared, valueOf(first), second.shared, valueOf(second)]).toEqual([false, "a", false, "b"])
    }))
})
