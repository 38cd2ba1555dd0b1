/**
 * Waits that speak: every wait before another try is logged at `Debug` as it begins, saying why and
 * for how long, so that an application (and the CLI) can tell a user what the client is doing.
 */
import { logsTo } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { DesignSearchClient, RequestBudget, Sandbox } from "../src/index.js"
import { clientLayer, withTime } from "./support/layers.js"

interface Told {
  readonly message: string
  readonly retry: unknown
  readonly waitMillis: unknown
}

/** `effect` with its `Debug` logs collected, not printed. */
const collectingLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const told: Array<Told> = []
    return effect.pipe(
      logsTo("Debug", ({ annotations, message }) =>
        told.push({
          message: String(Array.isArray(message) ? message[0] : message),
          retry: annotations["retry"],
          waitMillis: annotations["waitMillis"]
        })),
      Effect.map((result) => ({ result, told }))
    )
  })

describe("waits that speak", () => {
  it.effect("each retry of a call is logged as it begins: why, how long, which retry", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* control.injectFault({ target: "design", status: 503, count: 2 })
      const { result, told } = yield* withTime(
        collectingLogs(client.getDesign(Sandbox.fixedNumbers.chair)),
        "10 seconds"
      )
      expect(result.data.title).toBe("Chair")
      const waits = told.filter((t) => t.retry !== undefined)
      expect(waits.map((t) => t.retry)).toEqual([1, 2])
      for (const wait of waits) {
        expect(wait.message).toMatch(/^the service answered 503; trying again in \d/)
        expect(wait.waitMillis).toBeGreaterThan(0)
      }
    }).pipe(Effect.provide(clientLayer())))

  it.effect("each retry of a token request is logged the same way", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* control.injectFault({ target: "token", status: 503, count: 2 })
      const { told } = yield* withTime(collectingLogs(client.getDesign(Sandbox.fixedNumbers.chair)), "1 minute")
      const waits = told.filter((t) => t.retry !== undefined)
      expect(waits.map((t) => t.retry)).toEqual([1, 2])
      for (const wait of waits) expect(wait.message).toMatch(/^the token endpoint answered 503; trying again in \d/)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a wait of the rate budget is logged when it lasts a second or more, and a shorter one is not", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const twice = Effect.andThen(
        client.getDesign(Sandbox.fixedNumbers.chair),
        client.getDesign(Sandbox.fixedNumbers.bottle)
      )
      const slow = yield* withTime(collectingLogs(twice), "10 seconds")
      const budgetWaits = slow.told.filter((t) => t.message.startsWith("waiting for the rate budget"))
      expect(budgetWaits.map((t) => t.waitMillis)).toEqual([Duration.toMillis("2 seconds")])
    }).pipe(
      Effect.provide(clientLayer().pipe(Layer.provide(Layer.orDie(RequestBudget.layer({ requestsPerSecond: 0.5 })))))
    ))

  it.effect("a paced budget's waits under a second are not logged", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const calls = Effect.forEach([1, 2, 3], () => client.getDesign(Sandbox.fixedNumbers.chair), { discard: true })
      const { told } = yield* withTime(collectingLogs(calls), "10 seconds")
      expect(told.filter((t) => t.waitMillis !== undefined)).toEqual([])
    }).pipe(
      Effect.provide(clientLayer().pipe(Layer.provide(Layer.orDie(RequestBudget.layer({ requestsPerSecond: 4 })))))
    ))

  it.effect("a token request that fails logs nothing but its waits: no fiber left failing unheard", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* control.injectFault({ target: "token", status: 401, count: 1 })
      const { result, told } = yield* collectingLogs(Effect.flip(client.getDesign(Sandbox.fixedNumbers.chair)))
      expect(result._tag).toBe("TokenError")
      expect(told).toEqual([])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a call that succeeds at once logs no wait", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const { told } = yield* collectingLogs(client.getDesign(Sandbox.fixedNumbers.chair))
      expect(told.filter((t) => t.retry !== undefined)).toEqual([])
    }).pipe(Effect.provide(clientLayer())))
})
