/**
 * Waits that speak: every wait before another try is logged at `Debug` as it begins, saying why and
 * for how long, so that an application (and the CLI) can tell a user what the client is doing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, HashMap, Logger, LogLevel, Ref, TestClock } from "effect"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"

interface Told {
  readonly message: string
  readonly retry: unknown
  readonly waitMillis: unknown
}

/** `effect` with its `Debug` logs collected, not printed. */
const collectingLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const told = yield* Ref.make<ReadonlyArray<Told>>([])
    const logger = Logger.make(({ annotations, message }) =>
      Effect.runSync(Ref.update(told, (all) => [...all, {
        message: String(Array.isArray(message) ? message[0] : message),
        retry: HashMap.get(annotations, "retry").pipe((o) => o._tag === "Some" ? o.value : undefined),
        waitMillis: HashMap.get(annotations, "waitMillis").pipe((o) => o._tag === "Some" ? o.value : undefined)
      }]))
    )
    const result = yield* effect.pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Logger.withMinimumLogLevel(LogLevel.Debug)
    )
    return { result, told: yield* Ref.get(told) }
  })

describe("waits that speak", () => {
  it.effect("each retry of a call is logged as it begins: why, how long, which retry", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* control.injectFault({ target: "design", status: 503, count: 2 })
      const fiber = yield* Effect.fork(collectingLogs(client.getDesign(Sandbox.fixedNumbers.chair)))
      yield* TestClock.adjust("10 seconds")
      const { result, told } = yield* Fiber.join(fiber)
      expect(result.data.title).toBe("Chair")
      const waits = told.filter((t) => t.retry !== undefined)
      expect(waits.map((t) => t.retry)).toEqual([1, 2])
      for (const wait of waits) {
        expect(wait.message).toMatch(/^the service answered 503; trying again in \d/)
        expect(wait.waitMillis).toBeGreaterThan(0)
      }
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a call that succeeds at once logs no wait", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const { told } = yield* collectingLogs(client.getDesign(Sandbox.fixedNumbers.chair))
      expect(told.filter((t) => t.retry !== undefined)).toEqual([])
    }).pipe(Effect.provide(clientLayer())))
})
