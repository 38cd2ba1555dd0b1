/**
 * The Effect 4 edition's `Fleet.layer` against a real `redis-server` (a compact port of
 * test/Fleet.test.ts): wired below `DesignSearchClient.layer` as the README wires it, two clients
 * share one token; two builds, standing for two processes, share one token and one pace; its own
 * options fail as a `ConfigError` before any connection is made.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:net"
import * as DesignSearchClient from "../../src/DesignSearchClient.js"
import * as Fleet from "../../src/Fleet.js"
import * as FleetRedis from "../../src/FleetRedis.js"
import * as RequestBudgets from "../../src/RequestBudget.js"
import { RequestBudget } from "../../src/RequestBudget.js"
import * as TokenService from "../../src/TokenService.js"
import * as TokenStores from "../../src/TokenStore.js"
import { TokenStore } from "../../src/TokenStore.js"
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
      // Effect 4's `Duration` reads these as zero: no duration
      assert.include(yield* failure(Fleet.layer({ url: counted, maxWait: {} })), "maxWait must be a finite")
      assert.include(
        yield* failure(Fleet.layer({ url: counted, commandTimeout: { secs: 1 } as never })),
        "commandTimeout"
      )
      // ioredis decodes the user and password, and throws on a malformed escape: refused here, untold
      for (const userInfo of [":SECRET%zz", "user%E0%A4%A:SECRET"]) {
        const refused = yield* failure(Fleet.layer({ url: `redis://${userInfo}@127.0.0.1:${listener.port}` }))
        assert.include(refused, "url's user or password has a malformed percent escape")
        assert.notInclude(refused, "SECRET")
      }
      assert.strictEqual(listener.count, 0)
    }))

  it.live("a URL carries host, port, user, password and database only: a query or another path is refused, untold", () =>
    Effect.gen(function*() {
      const listener = yield* connectionCounter
      const at = `redis://:SECRET@127.0.0.1:${listener.port}`
      const queries = ["connectTimeout=abc", "db=abc", "keyPrefix=evil:", "enableOfflineQueue=1", "lazyConnect=1"]
      const refusedUrls = [...queries.map((q) => `${at}/?${q}`), `${at}?tls=x`, `${at}/0?sentinels=x`, `${at}/abc`]
      for (const url of [...refusedUrls, `${at}/1/2`, `${at}/-1`, `${at}/#db`]) {
        const refused = yield* failure(Fleet.layer({ url }))
        assert.include(refused, "url carries host, port, user, password and database (/N) only")
        assert.notInclude(refused, "SECRET")
      }
      assert.strictEqual(listener.count, 0)
    }))

  it.live("a URL's database index is selected; `REDISS://` is TLS as `rediss://` is", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      for (const url of [redis.url, `${redis.url}/`, `${redis.url}/3`]) {
        const fleet = yield* Layer.build(Layer.orDie(FleetRedis.layer({ url, keyPrefix: prefix })))
        const info = yield* Context.get(fleet, FleetRedis.FleetRedis).command("CLIENT", "INFO")
        assert.include(info, url.endsWith("/3") ? " db=3 " : " db=0 ")
      }
      // a TLS handshake against a plain Redis: never ready, so the command is refused, not answered
      const tls = yield* Layer.build(Layer.orDie(FleetRedis.layer({
        url: redis.url.replace("redis://", "REDISS://"),
        connectTimeout: "200 millis"
      })))
      const refused = yield* Effect.flip(Context.get(tls, FleetRedis.FleetRedis).command("PING"))
      assert.include(refused.detail, "not connected")
    }))

  it.live("options that are not an object are a ConfigError at the options, when the layer is built: never a throw", () =>
    Effect.gen(function*() {
      const connection: FleetRedis.Connection = { status: "ready", connect: async () => {}, call: async () => null }
      const over = FleetRedis.layerClient(connection)
      const nothing = null as never
      const layers: ReadonlyArray<Layer.Layer<never, unknown>> = [
        Fleet.layer(nothing),
        FleetRedis.layer(nothing),
        FleetRedis.layerClient(connection, nothing),
        RequestBudgets.layer(nothing),
        Layer.provide(RequestBudgets.layerRedis(nothing), over),
        Layer.provide(TokenStores.layerRedis(nothing), over)
      ]
      for (const layer of layers) assert.include(yield* failure(layer), "expected an object of options")
      const made: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        FleetRedis.make(connection, nothing),
        RequestBudgets.make(nothing),
        Effect.provide(RequestBudgets.makeRedis(nothing), over),
        Effect.provide(TokenStores.makeRedis(nothing), over)
      ]
      for (const effect of made) assert.include(String(yield* Effect.flip(effect)), "expected an object of options")
    }))
})
