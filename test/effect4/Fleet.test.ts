/**
 * The Effect 4 edition's `Fleet.layer` against a real `redis-server` (a compact port of
 * test/Fleet.test.ts): wired below `DesignSearchClient.layer` as the README wires it, two clients
 * share one token; two builds, standing for two processes, share one token and one pace; its own
 * options fail as a `ConfigError` before any connection is made.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:net"
import * as DesignSearchClient from "../../src/effect4/DesignSearchClient.js"
import * as Fleet from "../../src/effect4/Fleet.js"
import { RequestBudget } from "../../src/effect4/RequestBudget.js"
import * as TokenService from "../../src/effect4/TokenService.js"
import { TokenStore } from "../../src/effect4/TokenStore.js"
import { always, client, freshPrefix, slotAt, tokenOf, valueOf } from "./support/fleet.js"
import { sandboxLayer, sandboxStats } from "./support/layers.js"
import { redisServer } from "./support/redis.js"

/** A loopback TCP listener that counts the connections made to it, closed with the scope. */
const connectionCounter = Effect.acquireRelease(
  Effect.callback<{ readonly port: number; readonly server: ReturnType<typeof createServer>; count: number }>(
    (resume) => {
      const counter = { port: 0, server: createServer((socket) => void (counter.count++, socket.destroy())), count: 0 }
      counter.server.listen(0, "127.0.0.1", () => {
        const address = counter.server.address()
        counter.port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed(counter))
      })
    }
  ),
  ({ server }) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
)

/** What building `layer` fails with, as text. */
const failure = <A, E>(layer: Layer.Layer<A, E>) => Effect.map(Effect.flip(Effect.scoped(Layer.build(layer))), String)

describe("Fleet.layer (Effect 4)", () => {
  it.live("provided below DesignSearchClient.layer, as the README wires it: a second client takes the first one's token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const keyPrefix = freshPrefix()
      const connect = Effect.map(
        Layer.build(
          DesignSearchClient.layer().pipe(Layer.provide(Layer.orDie(Fleet.layer({ url: redis.url, keyPrefix }))))
        ),
        (context) => ({
          client: Context.get(context, DesignSearchClient.DesignSearchClient),
          tokens: Context.get(context, TokenService.TokenService)
        })
      )
      const first = yield* connect
      const second = yield* connect
      yield* first.client.quickSearch({ query: "chair" })
      yield* second.client.quickSearch({ query: "chair" })
      assert.strictEqual((yield* sandboxStats).requests.token, 1)
      assert.deepInclude(yield* first.tokens.stats, { tokenRequests: 1, sharedTokens: 0 })
      assert.deepInclude(yield* second.tokens.stats, { tokenRequests: 0, sharedTokens: 1 })
    }).pipe(Effect.provide(sandboxLayer())))

  it.live("two processes share one token and one pace", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const keyPrefix = freshPrefix()
      const connect = Effect.map(
        Layer.build(Layer.orDie(Fleet.layer({ url: redis.url, keyPrefix, requestsPerSecond: 10 }))),
        (context) => ({
          tokens: Context.get(context, TokenStore).forClient(client),
          budget: Context.get(context, RequestBudget).forClient(client)
        })
      )
      const first = yield* connect
      const second = yield* connect
      const fetched = yield* first.tokens.obtain(tokenOf("shared"), always)
      const taken = yield* second.tokens.obtain(Effect.die("must not fetch"), always)
      assert.deepStrictEqual([fetched.shared, taken.shared, valueOf(taken)], [false, true, "shared"])
      const slots = yield* Effect.forEach([first, second, first], (p) => slotAt(p.budget))
      for (let i = 1; i < slots.length; i++) assert.isAtLeast(slots[i]! - slots[i - 1]!, 90)
    }))

  it.live("the fleet's own options fail as a ConfigError naming the option, before any connection is made", () =>
    Effect.gen(function*() {
      const listener = yield* connectionCounter
      const counted = `redis://127.0.0.1:${listener.port}`
      assert.include(yield* failure(Fleet.layer({ url: counted, lockTtl: "0 millis" })), "lockTtl must be positive")
      assert.include(yield* failure(Fleet.layer({ url: counted, maxWait: -1 })), "maxWait")
      assert.include(yield* failure(Fleet.layer({ url: counted, requestsPerSecond: 0 })), "requestsPerSecond")
      assert.include(yield* failure(Fleet.layer({ url: counted, burst: 1.5 })), "burst")
      // ioredis decodes the user and password, and throws on a malformed escape: refused here, untold
      for (const userInfo of [":SECRET%zz", "user%E0%A4%A:SECRET"]) {
        const refused = yield* failure(Fleet.layer({ url: `redis://${userInfo}@127.0.0.1:${listener.port}` }))
        assert.include(refused, "url's user or password has a malformed percent escape")
        assert.notInclude(refused, "SECRET")
      }
      assert.strictEqual(listener.count, 0)
    }))
})
