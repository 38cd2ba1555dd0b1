/** The README's Effect 4 sandbox test, between the markers: test/readme.test.ts runs and checks it. */
// README: begin
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { DesignSearchClient, Sandbox } from "../../src/index.js"

const TestLayer = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer({ designs: 500, seed: 1 })))

describe("the application against the sandbox, on Effect 4", () => {
  it.effect("retries a gateway hiccup", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "design", status: 503, count: 2 })
      const client = yield* DesignSearchClient.DesignSearchClient
      const fiber = yield* Effect.forkChild(client.getDesign(Sandbox.fixedNumbers.chair))
      yield* TestClock.adjust("10 seconds") // the retries' backoff
      const { data } = yield* Fiber.join(fiber)
      expect(data.title).toBe("Chair")
      expect((yield* control.stats).requests.design).toBe(3)
    }).pipe(Effect.provide(TestLayer)))
})
// README: end
