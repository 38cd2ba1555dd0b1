/**
 * `RequestBudget` in one process, on simulated time: evenly spaced slots, bursts, a 429's back-off
 * holding every call of the client, bad options refused, the optional package a paced budget
 * needs, and no pacing without a budget. And `RequestBudget.layerRedis` against a real
 * `redis-server`: two connections, standing for two processes, share the slots and the back-off.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, ConfigError, Context, Duration, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { DesignSearchClient, FleetRedis, RequestBudget, Sandbox } from "../src/index.js"
import { FailingImports } from "../src/internal/optionalPeer.js"
import { freshPrefix, pair } from "./support/fleetLayers.js"
import { clientLayer, sandboxStats } from "./support/layers.js"
import { redisServer } from "./support/redis.js"

const client = { tokenUrl: "https://auth.example/token", clientId: "a" }

const waits = (budget: RequestBudget.ClientBudget, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.map(budget.reserve, Duration.toMillis))

/** When `count` calls started together are let through, in milliseconds from now (in order), on the test clock. */
const sendTimes = (budget: RequestBudget.ClientBudget, count: number) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const fibers = yield* Effect.forEach(
      Array.from({ length: count }),
      () => Effect.fork(Effect.zipRight(RequestBudget.take(budget), Clock.currentTimeMillis))
    )
    yield* TestClock.adjust("1 hour")
    return (yield* Fiber.joinAll(fibers)).map((t) => t - start).sort((x, y) => x - y)
  })

/** The client over the in-process sandbox, with `budget` in its context. */
const pacedClient = (options: RequestBudget.Options) =>
  clientLayer().pipe(Layer.provide(Layer.orDie(RequestBudget.layer(options))))

const searches = (count: number) =>
  Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (c) =>
      Effect.fork(
        Effect.all(Array.from({ length: count }, () => c.quickSearch({ query: "chair" })), { concurrency: "unbounded" })
      )
  )

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

  it.effect("a back-off holds every slot until it has passed; without a rate, only the back-off applies", () =>
    Effect.gen(function*() {
      const budget = (yield* RequestBudget.make({})).forClient(client)
      expect(yield* waits(budget, 3)).toEqual([0, 0, 0])
      yield* budget.backOff(Duration.seconds(5))
      // a shorter back-off does not shorten a longer one
      yield* budget.backOff(Duration.seconds(1))
      expect(yield* sendTimes(budget, 2)).toEqual([5000, 5000])
      expect(yield* waits(budget, 1)).toEqual([0])
    }))

  it.effect("calls held by a back-off resume at the rate, not all at once", () =>
    Effect.gen(function*() {
      const budget = (yield* RequestBudget.make({ requestsPerSecond: 10 })).forClient(client)
      yield* budget.backOff(Duration.seconds(5))
      expect(yield* sendTimes(budget, 3)).toEqual([5000, 5100, 5200])
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

  it.effect("one budget per client id", () =>
    Effect.gen(function*() {
      const service = yield* RequestBudget.make({ requestsPerSecond: 1 })
      expect(yield* waits(service.forClient(client), 2)).toEqual([0, 1000])
      expect(yield* waits(service.forClient({ ...client, clientId: "b" }), 1)).toEqual([0])
      expect(yield* waits(service.forClient(client), 1)).toEqual([2000])
    }))

  it.effect("a paced budget needs @effect/experimental: without it, MissingData naming it; unpaced, it needs none", () =>
    Effect.gen(function*() {
      const notInstalled = () =>
        Promise.reject(Object.assign(new Error("Cannot find package"), { code: "ERR_MODULE_NOT_FOUND" }))
      const without = Effect.provideService(FailingImports, new Map([["@effect/experimental", notInstalled]]))
      const error = yield* Effect.flip(RequestBudget.make({ requestsPerSecond: 1 })).pipe(without)
      expect(ConfigError.isConfigError(error) && error._op).toBe("MissingData")
      expect(String(error)).toContain("install it: npm install @effect/experimental@~0.61 (ERR_MODULE_NOT_FOUND)")
      const unpaced = (yield* RequestBudget.make({}).pipe(without)).forClient(client)
      expect(yield* waits(unpaced, 2)).toEqual([0, 0])
    }))

  it.effect("refuses a rate that is not a positive number, a burst that is not a positive integer, a back-off cap that is not a positive duration", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<RequestBudget.Options> = [
        { requestsPerSecond: 0 },
        { requestsPerSecond: Number.NaN },
        { requestsPerSecond: -1 },
        { burst: 0 },
        { burst: 1.5 },
        { maxBackOff: 0 },
        { maxBackOff: Duration.infinity }
      ]
      for (const options of bad) {
        const exit = yield* Effect.exit(RequestBudget.make(options))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(String(exit)).toMatch(/requestsPerSecond|burst|maxBackOff/)
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

describe("RequestBudget.layerRedis", () => {
  it.scopedLive("shares slots and a 429's back-off between processes", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // 10 per second, taken alternately by both: each slot 100 ms after the last, whoever takes it
      const slots = yield* Effect.forEach(
        [a, b, a, b],
        (m) => Effect.zipWith(m.budget.reserve, Clock.currentTimeMillis, (wait, now) => now + Duration.toMillis(wait))
      )
      for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBeGreaterThanOrEqual(90)
      // a back-off one takes holds the other
      yield* Effect.sleep(Duration.millis(slots.at(-1)! - (yield* Clock.currentTimeMillis)))
      const start = yield* Clock.currentTimeMillis
      yield* a.budget.backOff(Duration.millis(1500))
      yield* RequestBudget.take(b.budget)
      expect((yield* Clock.currentTimeMillis) - start).toBeGreaterThanOrEqual(1400)
    }))

  it.scopedLive("a rate whose interval is no whole number of milliseconds (3 a second) is kept in Redis", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const context = yield* Layer.build(
        RequestBudget.layerRedis({ requestsPerSecond: 3 }).pipe(
          Layer.provideMerge(FleetRedis.layer({ url: redis.url, keyPrefix: freshPrefix() })),
          Layer.orDie
        )
      )
      const budget = Context.get(context, RequestBudget.RequestBudget).forClient(client)
      const slots = yield* Effect.forEach(
        [1, 2, 3],
        () => Effect.zipWith(budget.reserve, Clock.currentTimeMillis, (wait, now) => now + Duration.toMillis(wait))
      )
      for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBeGreaterThanOrEqual(320)
      // the schedule is in Redis, not in this process's stand-in for it
      const fleet = Context.get(context, FleetRedis.FleetRedis)
      expect(yield* fleet.command("PTTL", fleet.key(client, "pace"))).toBeGreaterThan(0)
    }))
})
