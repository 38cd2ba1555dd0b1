/**
 * `RequestBudget` in one process, on simulated time: evenly spaced slots, bursts, a 429's back-off
 * holding every call of the client, bad options refused, the optional package a paced budget
 * needs in Effect 3, and no pacing without a budget. And `RequestBudget.layerRedis` against a real
 * `redis-server`: two connections, standing for two processes, share the slots and the back-off
 * under core's keys, each keeps the rate alone while Redis is away, and shares it again once back.
 */
import { forkChild } from "#edition/internal/seam"
import { edition, isConfigError, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Exit, Fiber, Layer } from "effect"
import { extendBackOff, keyOf } from "../src/core/fleet/redis.js"
import { DesignSearchClient, FleetRedis, RequestBudget, Sandbox } from "../src/index.js"
import { FailingImports } from "../src/internal/optionalPeer.js"
import { client, freshPrefix, member, pair } from "./support/fleetLayers.js"
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
      () => forkChild(Effect.andThen(RequestBudget.take(budget), Clock.currentTimeMillis))
    )
    yield* TestClock.adjust("1 hour")
    return (yield* Fiber.joinAll(fibers)).map((t) => t - start).sort((x, y) => x - y)
  })

/** The client over the in-process sandbox, with `budget` in its context. */
const pacedClient = (options: RequestBudget.Options) =>
  clientLayer().pipe(Layer.provide(Layer.orDie(RequestBudget.layer(options))))

const search = Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.quickSearch({ query: "chair" }))
const searches = (count: number) =>
  forkChild(Effect.all(Array.from({ length: count }, () => search), { concurrency: "unbounded" }))

describe("RequestBudget", () => {
  it.effect("spaces slots evenly at the configured rate", () =>
    Effect.gen(function*() {
      const budget = (yield* RequestBudget.make({ requestsPerSecond: 4 })).forClient(client)
      expect(yield* waits(budget, 5)).toEqual([0, 250, 500, 750, 1000])
      yield* TestClock.adjust("10 seconds")
      // a quiet spell does not bank slots beyond the burst
      expect(yield* waits(budget, 2)).toEqual([0, 250])
    }))

  it.effect("lets `burst` calls start at once, then keeps the rate", () =>
    Effect.gen(function*() {
      const budget = (yield* RequestBudget.make({ requestsPerSecond: 10, burst: 3 })).forClient(client)
      expect(yield* waits(budget, 5)).toEqual([0, 0, 0, 100, 200])
    }))

  it.effect("a back-off holds every slot until it has passed (without a rate, only it applies); then calls resume at the rate", () =>
    Effect.gen(function*() {
      const unpaced = (yield* RequestBudget.make({})).forClient(client)
      expect(yield* waits(unpaced, 3)).toEqual([0, 0, 0])
      yield* unpaced.backOff(Duration.seconds(5))
      // a shorter back-off does not shorten a longer one
      yield* unpaced.backOff(Duration.seconds(1))
      expect(yield* sendTimes(unpaced, 2)).toEqual([5000, 5000])
      expect(yield* waits(unpaced, 1)).toEqual([0])
      // held calls resume at the rate, not all at once
      const paced = (yield* RequestBudget.make({ requestsPerSecond: 10 })).forClient(client)
      yield* paced.backOff(Duration.seconds(5))
      expect(yield* sendTimes(paced, 3)).toEqual([5000, 5100, 5200])
    }))

  it.effect("a back-off lasts at most `maxBackOff`, whatever the 429 asked", () =>
    Effect.gen(function*() {
      const capped = (yield* RequestBudget.make({})).forClient(client)
      yield* capped.backOff(Duration.hours(1))
      expect(yield* sendTimes(capped, 1)).toEqual([Duration.toMillis(RequestBudget.defaults.maxBackOff)])
      const shorter = (yield* RequestBudget.make({ maxBackOff: "2 seconds" })).forClient(client)
      yield* shorter.backOff(Duration.infinity)
      expect(yield* sendTimes(shorter, 1)).toEqual([2000])
    }))

  it.effect("one budget per client id; each build holds its own", () =>
    Effect.gen(function*() {
      const service = yield* RequestBudget.make({ requestsPerSecond: 1 })
      expect(yield* waits(service.forClient(client), 2)).toEqual([0, 1000])
      expect(yield* waits(service.forClient({ ...client, clientId: "b" }), 1)).toEqual([0])
      expect(yield* waits(service.forClient(client), 1)).toEqual([2000])
      // each build holds its own
      expect(yield* waits((yield* RequestBudget.make({ requestsPerSecond: 1 })).forClient(client), 1)).toEqual([0])
    }))

  it.effect("a paced budget needs @effect/experimental in Effect 3 (MissingData naming it without it), an unpaced none", () =>
    Effect.gen(function*() {
      const notInstalled = () =>
        Promise.reject(Object.assign(new Error("Cannot find package"), { code: "ERR_MODULE_NOT_FOUND" }))
      const without = Effect.provideService(FailingImports, new Map([["@effect/experimental", notInstalled]]))
      const paced = RequestBudget.make({ requestsPerSecond: 1 }).pipe(without)
      if (edition === 3) {
        const error = yield* Effect.flip(paced)
        expect(isConfigError(error)).toBe(true)
        expect(error).toMatchObject({ _op: "MissingData" })
        expect(String(error)).toContain("install it: npm install @effect/experimental@~0.61 (ERR_MODULE_NOT_FOUND)")
      } else {
        // Effect 4's limiter is Effect's own
        expect(yield* waits((yield* paced).forClient(client), 2)).toEqual([0, 1000])
      }
      const unpaced = (yield* RequestBudget.make({}).pipe(without)).forClient(client)
      expect(yield* waits(unpaced, 2)).toEqual([0, 0])
    }))

  it.effect("refuses a rate that is not a positive number, a burst that is not a positive integer, a back-off cap that is not a positive duration", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<readonly [RequestBudget.Options, string]> = [
        [{ requestsPerSecond: 0 }, "requestsPerSecond"],
        [{ requestsPerSecond: Number.NaN }, "requestsPerSecond"],
        [{ requestsPerSecond: -1 }, "requestsPerSecond"],
        [{ burst: 0 }, "burst"],
        [{ burst: 1.5 }, "burst"],
        [{ maxBackOff: 0 }, "maxBackOff must be positive"],
        [{ maxBackOff: Duration.infinity }, "maxBackOff"]
      ]
      for (const [options, named] of bad) {
        const exit = yield* Effect.exit(RequestBudget.make(options))
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain(named)
      }
    }))

  it.effect("the client takes a slot before each request: 5 calls at 2 per second reach the API over 2 seconds", () =>
    Effect.gen(function*() {
      const fiber = yield* searches(5)
      yield* TestClock.adjust("1 millis")
      expect((yield* sandboxStats).requests.search).toBe(1)
      yield* TestClock.adjust("1 second")
      expect((yield* sandboxStats).requests.search).toBe(3)
      yield* TestClock.adjust("1 second")
      expect((yield* sandboxStats).requests.search).toBe(5)
      expect((yield* Fiber.join(fiber)).length).toBe(5)
    }).pipe(Effect.provide(pacedClient({ requestsPerSecond: 2 }))))

  it.effect("a 429 backs off every call of the client until its Retry-After", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "search", status: 429, headers: { "retry-after": "5" } })
      const first = yield* searches(1)
      yield* TestClock.adjust("1 millis")
      expect((yield* sandboxStats).requests.search).toBe(1)
      // a call started after the 429 waits out the back-off too
      const second = yield* searches(1)
      yield* TestClock.adjust("4900 millis")
      expect((yield* sandboxStats).requests.search).toBe(1)
      yield* TestClock.adjust("200 millis")
      expect((yield* sandboxStats).requests.search).toBe(3)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
    }).pipe(Effect.provide(pacedClient({}))))

  it.effect("a call waits for its turn before it takes a token: a long wait does not send an expired one", () =>
    Effect.gen(function*() {
      // 20 calls at one per 10 s take 190 s; every token lives 120 s
      const fiber = yield* searches(20)
      yield* TestClock.adjust("200 seconds")
      expect((yield* Fiber.join(fiber)).length).toBe(20)
      // no call was refused with a 401 and sent again
      expect((yield* sandboxStats).requests.search).toBe(20)
    }).pipe(Effect.provide(
      clientLayer({ sandbox: { tokenLifetime: "120 seconds" } }).pipe(
        Layer.provide(Layer.orDie(RequestBudget.layer({ requestsPerSecond: 0.1 })))
      )
    )))

  it.effect("with no budget in context, calls are not paced", () =>
    Effect.gen(function*() {
      const fiber = yield* searches(5)
      yield* TestClock.adjust("1 millis")
      expect((yield* sandboxStats).requests.search).toBe(5)
      yield* Fiber.join(fiber)
    }).pipe(Effect.provide(clientLayer())))
})

/**
 * The bounds of the slot `budget` reserves next, read off this process's clock before and after the
 * reservation: its clock and Redis's agree, but how long a reservation takes on a busy machine varies.
 */
const slotOf = (budget: RequestBudget.ClientBudget) =>
  Effect.map(
    Effect.all([Clock.currentTimeMillis, Effect.map(budget.reserve, Duration.toMillis), Clock.currentTimeMillis]),
    ([before, wait, after]) => ({ wait, earliest: before + wait, latest: after + wait })
  )

/** Slots at least `millis` apart, each after the one before, as far as their bounds tell. */
const expectApart = (slots: ReadonlyArray<{ earliest: number; latest: number }>, millis: number) => {
  for (let i = 1; i < slots.length; i++) {
    expect(slots[i]!.latest - slots[i - 1]!.earliest).toBeGreaterThanOrEqual(millis)
  }
}

describe("RequestBudget.layerRedis", () => {
  it.live("shares slots and a 429's back-off between processes", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // 10 per second, taken alternately by both: each slot 100 ms after the last, whoever takes it
      expectApart(yield* Effect.forEach([a, b, a, b], (m) => slotOf(m.budget)), 90)
      // the pace is in Redis, under the key core names
      expect(Number(yield* a.redis.command("PTTL", a.redis.key(client, "pace")))).toBeGreaterThan(0)
      // a back-off one takes holds the other
      const start = yield* Clock.currentTimeMillis
      yield* a.budget.backOff(Duration.millis(1500))
      yield* RequestBudget.take(b.budget)
      expect((yield* Clock.currentTimeMillis) - start).toBeGreaterThanOrEqual(1400)
    }).pipe(Effect.scoped))

  it.live("while Redis is away each process keeps the rate on its own; once it is back, the pace is shared again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      // commands answer late on a busy machine: only Redis being away may send a member to its fallback
      const [a, b] = yield* pair(redis.url, { probeInterval: "50 millis", commandTimeout: "10 seconds" })
      yield* redis.stop
      // both keep to the whole budget alone: each one's slots 100 ms apart, the two not apart
      const alone = yield* Effect.forEach([a, a, b, b], (m) => slotOf(m.budget))
      for (const [first, second] of [[alone[0]!, alone[1]!], [alone[2]!, alone[3]!]] as const) {
        expectApart([first, second], 90)
        expect(second.earliest - first.latest).toBeLessThanOrEqual(110)
      }
      // b's first slot is its own, not after a's
      expect([alone[0]!.wait, alone[2]!.wait]).toEqual([0, 0])
      yield* redis.start
      // each connection, having found Redis away, tells when it is back
      yield* Effect.all([a.redis.reachable, b.redis.reachable])
      expectApart(yield* Effect.forEach([a, b, a, b], (m) => slotOf(m.budget)), 90)
      expect(Number(yield* b.redis.command("PTTL", b.redis.key(client, "pace")))).toBeGreaterThan(0)
    }).pipe(Effect.scoped))

  it.live("keeps the pace and back-off under the keys core lays out, as every edition does", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      const { budget, redis: connection } = yield* member(redis.url, prefix)
      // slots just taken by a process of the other edition (10 per second): ten calls, a second to run
      yield* connection.command("SET", keyOf(prefix, client, "pace"), 10, "PX", 1000)
      const wait = Duration.toMillis(yield* budget.reserve)
      expect(wait).toBeGreaterThan(500)
      expect(wait).toBeLessThanOrEqual(1000)
      // a back-off it was told of, by core's script
      const start = yield* Clock.currentTimeMillis
      yield* connection.command("EVAL", extendBackOff, 1, keyOf(prefix, client, "backoff"), 1500)
      yield* RequestBudget.take(budget)
      expect((yield* Clock.currentTimeMillis) - start).toBeGreaterThanOrEqual(1400)
    }).pipe(Effect.scoped))

  it.live("a rate whose interval is no whole number of milliseconds (3 a second) is kept in Redis", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const { redis: fleet } = yield* member(redis.url, freshPrefix())
      const service = yield* RequestBudget.makeRedis({ requestsPerSecond: 3 }).pipe(
        Effect.provideService(FleetRedis.FleetRedis, fleet)
      )
      expectApart(yield* Effect.forEach([1, 2, 3], () => slotOf(service.forClient(client))), 320)
      // the schedule is in Redis, not in this process's stand-in for it
      expect(Number(yield* fleet.command("PTTL", fleet.key(client, "pace")))).toBeGreaterThan(0)
    }).pipe(Effect.scoped))
})
