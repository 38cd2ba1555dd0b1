/** The README's Effect 3 sandbox test, between the markers: test/readme.test.ts runs and checks it. */
// README: begin
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { DesignSearchClient, Sandbox } from "../../src/index.js"

// The client over the in-process sandbox: no sockets, no credentials.
const TestLayer = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer({ designs: 500, seed: 1 })))

describe("the application against the sandbox", () => {
  it.effect("retries a gateway hiccup", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "design", status: 503, count: 2 })
      const client = yield* DesignSearchClient.DesignSearchClient
      const fiber = yield* Effect.fork(client.getDesign(Sandbox.fixedNumbers.chair))
      yield* TestClock.adjust("10 seconds") // the retries' backoff
      const { data } = yield* Fiber.join(fiber)
      expect(data.title).toBe("Chair")
      expect((yield* control.stats).requests.design).toBe(3)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("sends registered designs only; a failed search for bottles is retried", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      // A fault that matches requests: the next quick search for "bottle" gets a 503.
      yield* control.injectFault({ target: "search", status: 503, match: { body: { query: "bottle" } } })
      const client = yield* DesignSearchClient.DesignSearchClient
      const fiber = yield* Effect.fork(
        client.quickSearch({ query: "bottle", filters: { statusFilter: ["REGISTERED"] } })
      )
      yield* TestClock.adjust("10 seconds") // the retry's backoff
      yield* Fiber.join(fiber)
      // The journal: what the application sent, and which fault answered (none, the second time).
      const sent = yield* control.expectRequest({ target: "search", body: { "filters.statusFilter[0]": "REGISTERED" } })
      expect(sent.fault).toBeUndefined()
    }).pipe(Effect.provide(TestLayer)))
})
// README: end
