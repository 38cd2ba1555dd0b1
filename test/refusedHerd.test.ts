/**
 * A herd refused together renews once: however many calls of a process are refused with the same
 * token, and whenever the 401s start, one renewal serves them all, and each call makes at most two
 * API requests (one with the refused token, one with the renewed one). Over HTTP, so that the 401s
 * come back spread out, as they do from a real service.
 */
import { NodeHttpClient } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import fc from "fast-check"
import { DesignSearchClient, DesignSearchConfig, Sandbox, TokenStore } from "../src/index.js"

/** `n` calls at once to a served sandbox refusing every token from its `after`-th design request on. */
const herd = (n: number, after: number, store: boolean) =>
  Effect.scoped(Effect.gen(function*() {
    const served = yield* Sandbox.serve({ port: 0 })
    const client = DesignSearchClient.layer().pipe(
      Layer.provide(DesignSearchConfig.layer(served.clientOptions)),
      Layer.provide(NodeHttpClient.layerUndici),
      Layer.provide(store ? Layer.succeed(TokenStore.TokenStore, TokenStore.memory) : Layer.empty)
    )
    const { getDesign } = Context.get(yield* Layer.build(client), DesignSearchClient.DesignSearchClient)
    yield* served.control.injectFault({ target: "design", status: 401, after, count: 1_000_000 })
    const exits = yield* Effect.all(
      Array.from({ length: n }, () => Effect.exit(getDesign(Sandbox.fixedNumbers.chair))),
      { concurrency: "unbounded" }
    )
    const { requests } = yield* served.control.stats
    return { failed: exits.filter(Exit.isFailure).length, tokens: requests.token, api: requests.design }
  }))

describe("a herd refused together", () => {
  for (const store of [false, true]) {
    it.live(`200 calls against an API that refuses every token, ${store ? "with" : "without"} a TokenStore: 2 token requests, at most 400 API requests`, () =>
      Effect.gen(function*() {
        const { api, failed, tokens } = yield* herd(200, 0, store)
        expect(failed).toBe(200)
        expect(tokens).toBe(2)
        expect(api).toBeGreaterThan(200)
        expect(api).toBeLessThanOrEqual(400)
      }))
  }

  it(
    "whatever the herd's size and the moment the 401s start: at most 2 token requests and 2 API requests a call",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 60 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))),
          fc.boolean(),
          async ([n, after], store) => {
            const { api, failed, tokens } = await Effect.runPromise(herd(n, after, store))
            expect(tokens).toBeLessThanOrEqual(2)
            expect(api).toBeLessThanOrEqual(2 * n)
            // the first `after` requests are answered; every call after them is refused on each try
            expect(failed).toBe(n - after)
          }
        ),
        { numRuns: 25 }
      )
    },
    120_000
  )
})
