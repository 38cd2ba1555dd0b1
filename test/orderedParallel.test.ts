/**
 * `mapInOrder`, the bounded-concurrency ordered map behind `searchDesigns`: results in input order
 * whatever order the calls finish in, never more than `concurrency` calls at once, a failure in its
 * place with the calls still running interrupted, and the calls interrupted when the reader stops.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Fiber, Option, Ref, Stream } from "effect"
import * as fc from "fast-check"
import { mapInOrder } from "../src/internal/orderedParallel.js"

/** Calls that finish when the test says so, and a record of how many ran at once. */
const gated = (count: number) =>
  Effect.gen(function*() {
    const gates = yield* Effect.forEach(Array.from({ length: count }), () => Deferred.make<void>())
    const started = yield* Ref.make<ReadonlyArray<number>>([])
    const interrupted = yield* Ref.make<ReadonlyArray<number>>([])
    const running = yield* Ref.make(0)
    const peak = yield* Ref.make(0)
    const call = (i: number) =>
      Effect.gen(function*() {
        yield* Ref.update(started, (s) => [...s, i])
        const now = yield* Ref.updateAndGet(running, (n) => n + 1)
        yield* Ref.update(peak, (p) => Math.max(p, now))
        yield* Deferred.await(gates[i]!)
        return i * 10
      }).pipe(
        Effect.onInterrupt(() => Ref.update(interrupted, (s) => [...s, i])),
        Effect.ensuring(Ref.update(running, (n) => n - 1))
      )
    const open = (i: number) => Deferred.succeed(gates[i]!, undefined)
    return { call, open, started, interrupted, peak }
  })

const items = (count: number) => Array.from({ length: count }, (_, i) => i)

describe("mapInOrder", () => {
  it.effect("emits results in input order when calls finish in reverse, with at most `concurrency` running", () =>
    Effect.gen(function*() {
      const g = yield* gated(10)
      const fiber = yield* Effect.fork(Stream.runCollect(mapInOrder(items(10), g.call, 3)))
      // 0, 1 and 2 run first and finish last; the others finish as soon as they start
      for (let i = 9; i >= 0; i--) {
        yield* Effect.yieldNow()
        yield* g.open(i)
      }
      expect(Chunk.toReadonlyArray(yield* Fiber.join(fiber))).toEqual(items(10).map((i) => i * 10))
      expect(yield* Ref.get(g.peak)).toBe(3)
      expect(yield* Ref.get(g.started)).toEqual(items(10))
    }))

  it.effect("a failure comes after the results before it; the calls still running are interrupted, none starts after it", () =>
    Effect.gen(function*() {
      const g = yield* gated(8)
      // item 2 fails once the test opens it
      const failAt2 = (i: number) => i === 2 ? Effect.zipRight(g.call(i), Effect.fail(`item ${i}`)) : g.call(i)
      const seen = yield* Ref.make<ReadonlyArray<number>>([])
      const fiber = yield* Effect.fork(Effect.either(
        Stream.runForEach(mapInOrder(items(8), failAt2, 4), (b) => Ref.update(seen, (s) => [...s, b]))
      ))
      const untilStarted = (count: number) =>
        Effect.repeat(Effect.zipRight(Effect.yieldNow(), Ref.get(g.started)), { until: (s) => s.length >= count })
      yield* untilStarted(4)
      // 0 and 1 finish, so their workers start 4 and 5; then 2 fails
      yield* g.open(0)
      yield* g.open(1)
      yield* untilStarted(6)
      yield* g.open(2)
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && result.left).toBe("item 2")
      expect(yield* Ref.get(seen)).toEqual([0, 10])
      expect([...(yield* Ref.get(g.started))].sort()).toEqual([0, 1, 2, 3, 4, 5])
      expect([...(yield* Ref.get(g.interrupted))].sort()).toEqual([3, 4, 5])
    }))

  it.effect("a reader that stops early interrupts the calls in flight", () =>
    Effect.gen(function*() {
      const g = yield* gated(8)
      const fiber = yield* Effect.fork(Stream.runCollect(Stream.take(mapInOrder(items(8), g.call, 4), 2)))
      yield* Effect.yieldNow()
      yield* g.open(0)
      yield* g.open(1)
      expect(Chunk.toReadonlyArray(yield* Fiber.join(fiber))).toEqual([0, 10])
      expect([...(yield* Ref.get(g.interrupted))].sort()).toEqual(
        yield* Effect.map(Ref.get(g.started), (s) => s.filter((i) => i > 1))
      )
      expect((yield* Ref.get(g.interrupted)).length).toBeGreaterThan(0)
    }))

  it.effect("workers stop at 4 × concurrency unread results and go on once the reader reads", () =>
    Effect.gen(function*() {
      const started = yield* Ref.make(0)
      const call = (i: number) => Effect.as(Ref.update(started, (n) => n + 1), i)
      const pull = yield* Stream.toPull(mapInOrder(items(100), call, 2))
      // one result read (a batch is concurrency / 2), then the reader stops reading
      expect(Chunk.toReadonlyArray(yield* pull)).toEqual([0])
      yield* Effect.repeatN(Effect.yieldNow(), 50)
      expect(yield* Ref.get(started)).toBe(1 + 4 * 2)
      const rest: Array<number> = []
      yield* Effect.ignore(Effect.forever(Effect.map(pull, (chunk) => rest.push(...chunk))))
      expect(rest).toEqual(items(100).slice(1))
      expect(yield* Ref.get(started)).toBe(100)
    }).pipe(Effect.scoped))

  it.effect("after a failure no worker starts another call, even while the reader is behind", () =>
    Effect.gen(function*() {
      const started = yield* Ref.make(0)
      const call = (i: number) =>
        Effect.zipRight(Ref.update(started, (n) => n + 1), i === 2 ? Effect.fail("item 2") : Effect.succeed(i))
      const pull = yield* Stream.toPull(mapInOrder(items(100), call, 2))
      expect(Chunk.toReadonlyArray(yield* pull)).toEqual([0])
      yield* Effect.repeatN(Effect.yieldNow(), 50)
      // 0, 1, 2 and at most the one the other worker took as 2 failed; the buffer would allow 9
      expect(yield* Ref.get(started)).toBeLessThanOrEqual(4)
      expect(Chunk.toReadonlyArray(yield* pull)).toEqual([1])
      expect(yield* Effect.flip(pull)).toEqual(Option.some("item 2"))
    }).pipe(Effect.scoped))

  it.live("no wake-up is lost when the fibers yield between a look and a wait", () =>
    Effect.gen(function*() {
      // Few operations before each yield put a yield between almost any look and its wait.
      const items1000 = items(1000)
      for (const concurrency of [1, 2, 3, 8]) {
        for (let maxOps = 16; maxOps < 32; maxOps += 3) {
          const call = (i: number) => Effect.as(Effect.repeatN(Effect.yieldNow(), (i * 7 + maxOps) % 4), i)
          const out = yield* Stream.runCollect(mapInOrder(items1000, call, concurrency)).pipe(
            Effect.withMaxOpsBeforeYield(maxOps),
            Effect.timeoutTo({
              duration: "5 seconds",
              onSuccess: Chunk.toReadonlyArray,
              onTimeout: () => "stuck" as const
            })
          )
          expect(out, `concurrency ${concurrency}, ${maxOps} operations before a yield`).toEqual(items1000)
        }
      }
    }))

  it.effect("an empty input is an empty stream", () =>
    Effect.map(Stream.runCollect(mapInOrder([], Effect.succeed, 4)), (c) => expect(Chunk.size(c)).toBe(0)))

  it.effect.prop(
    "any input, concurrency and finishing order: the same results as a sequential map",
    [fc.array(fc.integer(), { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), fc.array(fc.nat(3), { maxLength: 60 })],
    ([input, concurrency, yields]) =>
      Effect.gen(function*() {
        const call = (x: number) =>
          Effect.zipRight(
            Effect.repeatN(Effect.yieldNow(), yields[Math.abs(x) % Math.max(1, yields.length)] ?? 0),
            Effect.succeed(x * 2)
          )
        const out = yield* Stream.runCollect(mapInOrder(input, call, concurrency))
        expect(Chunk.toReadonlyArray(out)).toEqual(input.map((x) => x * 2))
      })
  )
})
