/**
 * A herd refused together renews once: however many calls of a process are refused with the same
 * token, and whenever the 401s start, one renewal serves them all, and each call makes at most two
 * API requests (one with the refused token, one with the renewed one).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import fc from "fast-check"
import { DesignSearchClient, Sandbox, TokenStore } from "../src/index.js"
import { clientLayer, sandboxStats } from "./support/layers.js"

/** `n` calls at once, the API refusing every token from its `after`-th design request on. */
const herd = (n: number, after: number) =>
  Effect.gen(function*() {
    const control = yield* Sandbox.SandboxControl
    const client = yield* DesignSearchClient.DesignSearchClient
    yield* control.injectFault({ target: "design", status: 401, after, count: 1_000_000 })
    const exits = yield* Effect.all(
      Array.from({ length: n }, () => Effect.exit(client.getDesign(Sandbox.fixedNumbers.chair))),
      { concurrency: "unbounded" }
    )
    const stats = yield* sandboxStats
    return { failed: exits.filter(Exit.isFailure).length, tokens: stats.tokensIssued, api: stats.requests.design }
  })

const withStore = Layer.succeed(TokenStore.TokenStore, TokenStore.memory)

describe("a herd refused together", () => {
  for (
    const [name, layer] of [["without a TokenStore", clientLayer()], [
      "with a TokenStore",
      clientLayer().pipe(Layer.provide(withStore))
    ]] as const
  ) {
    it.effect(`200 calls against an API that refuses every token, ${name}: 2 token requests, 400 API requests`, () =>
      Effect.gen(function*() {
        const { api, failed, tokens } = yield* herd(200, 0)
        expect(failed).toBe(200)
        expect(tokens).toBe(2)
        expect(api).toBe(400)
      }).pipe(Effect.provide(layer)))
  }

  it("whatever the herd's size and the moment the 401s start: at most 2 token requests and 2 API requests a call", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))),
        async ([n, after]) => {
          const { api, failed, tokens } = await Effect.runPromise(Effect.provide(herd(n, after), clientLayer()))
          expect(tokens).toBeLessThanOrEqual(2)
          expect(api).toBeLessThanOrEqual(2 * n)
          expect(failed).toBeLessThanOrEqual(n - Math.min(after, n) + Math.min(after, n))
          expect(failed).toBeGreaterThanOrEqual(n - after)
        }
      ),
      { numRuns: 25 }
    )
  })
})
