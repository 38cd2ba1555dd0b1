/**
 * The Effect 4 edition's `TokenStore.layerRedis` against a real `redis-server` (a compact port of
 * test/TokenStore.test.ts): two connections stand for two processes of a fleet. One token shared
 * with the TTL of its remaining life, compare-and-delete, the marks of refused tokens, the fetch
 * lock, Redis never failing a call; and the stored form and keys core lays out, which processes of
 * the Effect 3 edition read and write too.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Deferred, Effect, Fiber, Redacted } from "effect"
import { keyOf, refusedMark } from "../../src/core/fleet/redis.js"
import * as TokenStore from "../../src/TokenStore.js"
import { always, client, freshPrefix, member, pair, tokenOf, valueOf } from "./support/fleet.js"
import { redisServer } from "./support/redis.js"

const mustNotFetch = Effect.die("must not fetch")

describe("TokenStore.layerRedis (Effect 4)", () => {
  it.live("a token fetched by one process is handed to the other, with a TTL of its remaining life", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const first = yield* a.tokens.obtain(tokenOf("t1", 60), always)
      assert.isFalse(first.shared)
      const second = yield* b.tokens.obtain(mustNotFetch, always)
      assert.deepStrictEqual([second.shared, valueOf(second)], [true, "t1"])
      assert.strictEqual(DateTime.toEpochMillis(second.token.expiresAt), DateTime.toEpochMillis(first.token.expiresAt))
      const ttl = Number(yield* a.redis.command("PTTL", a.redis.key(client, "token")))
      assert.isAbove(ttl, 50_000)
      assert.isAtMost(ttl, 60_000)
      // a token the caller does not accept is replaced by a fetch
      const third = yield* b.tokens.obtain(tokenOf("t2"), (token) => Redacted.value(token.token) !== "t1")
      assert.deepStrictEqual([third.shared, valueOf(third)], [false, "t2"])
    }))

  it.live("invalidate is compare-and-delete, and marks the refused token: put back, it is never handed out", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      const old = yield* tokenOf("old", 60)
      yield* a.tokens.obtain(Effect.succeed(old), always)
      const stored = yield* a.redis.command("GET", a.redis.key(client, "token"))
      yield* b.tokens.obtain(tokenOf("new"), (token) => Redacted.value(token.token) !== "old")
      // late 401s for the old token leave the new one
      yield* Effect.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).tokens.invalidate(old)), {
        concurrency: "unbounded"
      })
      const kept = yield* a.tokens.obtain(mustNotFetch, always)
      assert.strictEqual(valueOf(kept), "new")
      // brought back (a snapshot from before the refusal): not handed out, and gone
      yield* a.redis.command("SET", a.redis.key(client, "token"), String(stored), "PX", 60_000)
      const fetched = yield* b.tokens.obtain(tokenOf("fresh"), (token) => Redacted.value(token.token) !== "new")
      assert.deepStrictEqual([fetched.shared, valueOf(fetched)], [false, "fresh"])
    }))

  it.live("while one process fetches under the lock, the other waits for its token instead of fetching", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { lockTtl: "300 millis" })
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      // a fetch that outlasts the lock's TTL: its holder renews the lock
      const slowFetch = Deferred.succeed(started, undefined).pipe(
        Effect.andThen(Deferred.await(release)),
        Effect.andThen(tokenOf("from-a"))
      )
      const holder = yield* Effect.forkChild(a.tokens.obtain(slowFetch, always))
      yield* Deferred.await(started)
      const waiter = yield* Effect.forkChild(b.tokens.obtain(mustNotFetch, always))
      yield* Effect.sleep("1 second")
      assert.strictEqual(yield* a.redis.command("EXISTS", a.redis.key(client, "lock")), 1)
      yield* Deferred.succeed(release, undefined)
      assert.strictEqual(valueOf(yield* Fiber.join(holder)), "from-a")
      const waited = yield* Fiber.join(waiter)
      assert.deepStrictEqual([waited.shared, valueOf(waited)], [true, "from-a"])
      // the holder let go of the lock
      assert.strictEqual(yield* a.redis.command("EXISTS", a.redis.key(client, "lock")), 0)
    }))

  it.live("with Redis stopped, obtain fetches here and invalidate tries until heard; once Redis is back, the token is shared again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { probeInterval: "50 millis" })
      yield* redis.stop
      const local = yield* a.tokens.obtain(tokenOf("local"), always)
      assert.deepStrictEqual([local.shared, valueOf(local)], [false, "local"])
      const telling = yield* Effect.forkChild(a.tokens.invalidate(local.token))
      yield* redis.start
      yield* Effect.all([a.redis.reachable, b.redis.reachable])
      yield* Fiber.join(telling)
      const mark = refusedMark(a.redis.key(client, "refused:"), "local")
      assert.strictEqual(yield* a.redis.command("EXISTS", mark), 1)
      yield* a.tokens.obtain(tokenOf("after"), always)
      const shared = yield* b.tokens.obtain(mustNotFetch, always)
      assert.deepStrictEqual([shared.shared, valueOf(shared)], [true, "after"])
    }))

  it.live("reads and writes the stored form and keys core lays out, as the Effect 3 edition does", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      const [e4, raw] = yield* Effect.all([member(redis.url, prefix), member(redis.url, prefix)])
      const now = Date.now()
      // a token written by a process of the other edition: its canonical text under core's key
      const written = JSON.stringify({ token: "from-e3", tokenType: "Bearer", issuedAt: now, expiresAt: now + 60_000 })
      yield* raw.redis.command("SET", keyOf(prefix, client, "token"), written, "PX", 60_000)
      const read = yield* e4.tokens.obtain(mustNotFetch, always)
      assert.deepStrictEqual([read.shared, valueOf(read)], [true, "from-e3"])
      assert.strictEqual(DateTime.toEpochMillis(read.token.expiresAt), now + 60_000)
      // refused here: marked under core's name for it, which the other edition's script reads
      yield* e4.tokens.invalidate(read.token)
      const mark = refusedMark(keyOf(prefix, client, "refused:"), "from-e3")
      assert.strictEqual(yield* raw.redis.command("EXISTS", mark), 1)
      assert.strictEqual(yield* raw.redis.command("EXISTS", keyOf(prefix, client, "token")), 0)
      // fetched here: stored in the same canonical text, for the other edition's compare-and-delete
      const fetched = yield* e4.tokens.obtain(tokenOf("from-e4"), always)
      const { expiresAt, issuedAt } = fetched.token
      assert.strictEqual(
        yield* raw.redis.command("GET", keyOf(prefix, client, "token")),
        JSON.stringify({
          token: "from-e4",
          tokenType: "Bearer",
          issuedAt: DateTime.toEpochMillis(issuedAt),
          expiresAt: DateTime.toEpochMillis(expiresAt)
        })
      )
    }))

  it("memory keeps nothing: every token is fetched here", () =>
    Effect.gen(function*() {
      const tokens = TokenStore.memory.forClient(client)
      const first = yield* tokens.obtain(tokenOf("a"), always)
      const second = yield* tokens.obtain(tokenOf("b"), always)
      assert.deepStrictEqual([first.shared, valueOf(first), second.shared, valueOf(second)], [false, "a", false, "b"])
    }).pipe(Effect.runPromise))
})
