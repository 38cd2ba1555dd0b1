/**
 * The Effect 4 edition's `RequestBudget` (a compact port of test/RequestBudget.test.ts): in one
 * process on simulated time, the Effect 3 edition's figures (evenly spaced slots, bursts, a 429's
 * back-off, its cap, one budget per client id, bad options refused, a client's calls paced and held
 * by a 429); over a real `redis-server`, two processes sharing the slots and the back-off under
 * core's keys, the fallback to this process's pace while Redis is away, and the shared pace again
 * once it is back.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { extendBackOff, keyOf } from "../../src/core/fleet/redis.js"
import * as DesignSearchClient from "../../src/DesignSearchClient.js"
import { FleetRedis } from "../../src/FleetRedis.js"
import * as RequestBudget from "../../src/RequestBudget.js"
import * as Sandbox from "../../src/Sandbox.js"
import { client, freshPrefix, member, pair, slotAt } from "./support/fleet.js"
import { clientLayer, sandboxStats } from "./support/layers.js"
import { redisServer } from "./support/redis.js"

const waits = (budget: RequestBudget.ClientBudget, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.map(budget.reserve, Duration.toMillis))

/** When `count` calls started together are let through, in milliseconds from now (in order), on the test clock. */
const sendTimes = (budget: RequestBudget.ClientBudget, count: number) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const fibers = yield* Effect.forEach(
      Array.from({ length: count }),
      () => Effect.forkChild(Effect.andThen(RequestBudget.take(budget), Clock.currentTimeMillis))
    )
    yield* TestClock.adjust("1 hour")
    return (yield* Fiber.joinAll(fibers)).map((t) => t - start).sort((x, y) => x - y)
  })

/** The client over the in-process sandbox, with a budget of `options` in its context. */
const pacedClient = (options: RequestBudget.Options) =>
  clientLayer().pipe(Layer.provide(Layer.orDie(RequestBudget.layer(options))))

const searches = (count: number) =>
  Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (c) =>
      Effect.forkChild(
        Effect.all(Array.from({ length: count }, () => c.quickSearch({ query: "chair" })), { concurrency: "unbounded" })
      )
  )

const budgetOf = (options: RequestBudget.Options) =>
  Effect.map(RequestBudget.make(options), (service) => service.forClient(client))

describe("RequestBudget (Effect 4)", () => {
  it.effect("spaces slots evenly at the configured rate; a quiet spell banks nothing beyond the burst", () =>
    Effect.gen(function*() {
      const budget = yield* budgetOf({ requestsPerSecond: 4 })
      assert.deepStrictEqual(yield* waits(budget, 5), [0, 250, 500, 750, 1000])
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(yield* waits(budget, 2), [0, 250])
    }))

  it.effect("lets `burst` calls start at once, then keeps the rate", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* waits(yield* budgetOf({ requestsPerSecond: 10, burst: 3 }), 5), [0, 0, 0, 100, 200])
    }))

  it.effect("a back-off holds every slot until it has passed, then calls resume at the rate", () =>
    Effect.gen(function*() {
      const unpaced = yield* budgetOf({})
      assert.deepStrictEqual(yield* waits(unpaced, 3), [0, 0, 0])
      yield* unpaced.backOff(Duration.seconds(5))
      // a shorter back-off does not shorten a longer one
      yield* unpaced.backOff(Duration.seconds(1))
      assert.deepStrictEqual(yield* sendTimes(unpaced, 2), [5000, 5000])
      const paced = yield* budgetOf({ requestsPerSecond: 10 })
      yield* paced.backOff(Duration.seconds(5))
      assert.deepStrictEqual(yield* sendTimes(paced, 3), [5000, 5100, 5200])
    }))

  it.effect("a back-off lasts at most `maxBackOff`, whatever the 429 asked", () =>
    Effect.gen(function*() {
      const capped = yield* budgetOf({})
      yield* capped.backOff(Duration.hours(1))
      assert.deepStrictEqual(yield* sendTimes(capped, 1), [Duration.toMillis(RequestBudget.defaults.maxBackOff)])
      const shorter = yield* budgetOf({ maxBackOff: "2 seconds" })
      yield* shorter.backOff(Duration.infinity)
      assert.deepStrictEqual(yield* sendTimes(shorter, 1), [2000])
    }))

  it.effect("one budget per client id; each build holds its own", () =>
    Effect.gen(function*() {
      const service = yield* RequestBudget.make({ requestsPerSecond: 1 })
      assert.deepStrictEqual(yield* waits(service.forClient(client), 2), [0, 1000])
      assert.deepStrictEqual(yield* waits(service.forClient({ ...client, clientId: "b" }), 1), [0])
      assert.deepStrictEqual(yield* waits(service.forClient(client), 1), [2000])
      assert.deepStrictEqual(yield* waits(yield* budgetOf({ requestsPerSecond: 1 }), 1), [0])
    }))

  it.effect("the client takes a slot before each request: 5 calls at 2 per second reach the API over 2 seconds", () =>
    Effect.gen(function*() {
      const fiber = yield* searches(5)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* sandboxStats).requests.search, 1)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* sandboxStats).requests.search, 3)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* sandboxStats).requests.search, 5)
      assert.strictEqual((yield* Fiber.join(fiber)).length, 5)
    }).pipe(Effect.provide(pacedClient({ requestsPerSecond: 2 }))))

  it.effect("a 429 backs off every call of the client until its Retry-After", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "search", status: 429, headers: { "retry-after": "5" } })
      const first = yield* searches(1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* sandboxStats).requests.search, 1)
      // a call started after the 429 waits out the back-off too
      const second = yield* searches(1)
      yield* TestClock.adjust("4900 millis")
      assert.strictEqual((yield* sandboxStats).requests.search, 1)
      yield* TestClock.adjust("200 millis")
      assert.strictEqual((yield* sandboxStats).requests.search, 3)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
    }).pipe(Effect.provide(pacedClient({}))))

  it.effect("refuses a rate that is not a positive number, a burst that is not a positive integer, a back-off cap that is not a positive duration", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<readonly [RequestBudget.Options, string]> = [
        [{ requestsPerSecond: 0 }, "requestsPerSecond"],
        [{ requestsPerSecond: Number.NaN }, "requestsPerSecond"],
        [{ burst: 1.5 }, "burst"],
        [{ maxBackOff: 0 }, "maxBackOff must be positive"],
        [{ maxBackOff: Duration.infinity }, "maxBackOff"]
      ]
      for (const [options, named] of bad) {
        const exit = yield* Effect.exit(RequestBudget.make(options))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) assert.include(String(exit.cause), named)
      }
    }))
})

describe("RequestBudget.layerRedis (Effect 4)", () => {
  it.live("shares slots and a 429's back-off between processes", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // 10 per second, taken alternately by both: each slot 100 ms after the last, whoever takes it
      const slots = yield* Effect.forEach([a, b, a, b], (m) => slotAt(m.budget))
      for (let i = 1; i < slots.length; i++) assert.isAtLeast(slots[i]! - slots[i - 1]!, 90)
      // the pace is in Redis, under the key core names
      assert.isAbove(Number(yield* a.redis.command("PTTL", a.redis.key(client, "pace"))), 0)
      yield* Effect.sleep(Duration.millis(slots.at(-1)! - (yield* Clock.currentTimeMillis)))
      const start = yield* Clock.currentTimeMillis
      yield* a.budget.backOff(Duration.millis(1500))
      yield* RequestBudget.take(b.budget)
      assert.isAtLeast((yield* Clock.currentTimeMillis) - start, 1400)
    }))

  it.live("while Redis is away each process keeps the rate on its own; once it is back, the pace is shared again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { probeInterval: "50 millis" })
      yield* redis.stop
      // both keep to the whole budget alone: each one's slots 100 ms apart, the two not apart
      const alone = yield* Effect.forEach([a, a, b, b], (m) => slotAt(m.budget))
      assert.closeTo(alone[1]! - alone[0]!, 100, 10)
      assert.closeTo(alone[3]! - alone[2]!, 100, 10)
      assert.isBelow(Math.abs(alone[2]! - alone[0]!), 50)
      yield* redis.start
      // each connection tells when it is back (ioredis reconnects at most a second apart)
      yield* Effect.all([a.redis.reachable, b.redis.reachable])
      const shared = yield* Effect.forEach([a, b, a, b], (m) => slotAt(m.budget))
      for (let i = 1; i < shared.length; i++) assert.isAtLeast(shared[i]! - shared[i - 1]!, 90)
      assert.isAbove(Number(yield* b.redis.command("PTTL", b.redis.key(client, "pace"))), 0)
    }))

  it.live("keeps the pace and back-off under the keys core lays out, as the Effect 3 edition does", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      const { budget, redis: connection } = yield* member(redis.url, prefix)
      // a slot just taken by a process of the other edition (10 per second): one call, 100 ms to run
      yield* connection.command("SET", keyOf(prefix, client, "pace"), 1, "PX", 100)
      const wait = Duration.toMillis(yield* budget.reserve)
      assert.isAbove(wait, 50)
      assert.isAtMost(wait, 100)
      // a back-off it was told of, by core's script
      yield* connection.command("EVAL", extendBackOff, 1, keyOf(prefix, client, "backoff"), 1500)
      const start = yield* Clock.currentTimeMillis
      yield* RequestBudget.take(budget)
      assert.isAtLeast((yield* Clock.currentTimeMillis) - start, 1400)
    }))

  it.live("a rate whose interval is no whole number of milliseconds (3 a second) is kept in Redis", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { redis: connection } = yield* member(redis.url, freshPrefix())
      const budget = (yield* RequestBudget.makeRedis({ requestsPerSecond: 3 }).pipe(
        Effect.provideService(FleetRedis, connection)
      )).forClient(client)
      const slots = yield* Effect.forEach([1, 2, 3], () => slotAt(budget))
      for (let i = 1; i < slots.length; i++) assert.isAtLeast(slots[i]! - slots[i - 1]!, 320)
      // the schedule is in Redis, not in this process's stand-in for it
      assert.isAbove(Number(yield* connection.command("PTTL", connection.key(client, "pace"))), 0)
    }))
})
