/**
 * `Fleet.layer` against a real `redis-server`, in this process: wired below `DesignSearchClient.layer`
 * as the README wires it, two clients (standing for two processes) share one token and one pace; its
 * own options fail before any connection.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { createServer } from "node:net"
import { DesignSearchClient, Fleet, FleetRedis, RequestBudget, TokenService, TokenStore } from "../src/index.js"
import { always, client, failure, freshPrefix, tokenOf, valueOf } from "./support/fleetLayers.js"
import { sandboxLayer, sandboxStats } from "./support/layers.js"
import { listening } from "./support/loopback.js"
import { redisServer } from "./support/redis.js"

/** A loopback TCP listener that counts the connections made to it, closed with the scope. */
const connectionCounter = Effect.suspend(() => {
  let count = 0
  const server = createServer((socket) => {
    count++
    socket.destroy()
  })
  return Effect.map(listening(server), (port) => ({ port, connections: () => count }))
})

describe("Fleet.layer", () => {
  it.live("provided below DesignSearchClient.layer, as the README wires it: a second client takes the first one's token and keeps its pace", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const keyPrefix = freshPrefix()
      const connect = Effect.map(
        Layer.build(
          DesignSearchClient.layer().pipe(
            Layer.provideMerge(Layer.orDie(Fleet.layer({ url: redis.url, keyPrefix, requestsPerSecond: 10 })))
          )
        ),
        (context) => ({
          client: Context.get(context, DesignSearchClient.DesignSearchClient),
          tokens: Context.get(context, TokenService.TokenService),
          store: Context.get(context, TokenStore.TokenStore).forClient(client),
          budget: Context.get(context, RequestBudget.RequestBudget).forClient(client)
        })
      )
      const first = yield* connect
      const second = yield* connect
      yield* first.client.quickSearch({ query: "chair" })
      yield* second.client.quickSearch({ query: "chair" })
      expect((yield* sandboxStats).requests.token).toBe(1)
      expect(yield* first.tokens.stats).toMatchObject({ tokenRequests: 1, sharedTokens: 0 })
      expect(yield* second.tokens.stats).toMatchObject({ tokenRequests: 0, sharedTokens: 1 })
      const fetched = yield* first.store.obtain(tokenOf("shared"), always)
      const taken = yield* second.store.obtain(Effect.die("must not fetch"), always)
      expect([fetched.shared, taken.shared, valueOf(taken)]).toEqual([false, true, "shared"])
      // 10 a second, taken in turn: each slot 100 ms after the last, read off this process's clock
      // before and after each reservation (less the clocks' whole milliseconds)
      const slots = yield* Effect.forEach([first, second, first], ({ budget }) =>
        Effect.gen(function*() {
          const before = yield* Clock.currentTimeMillis
          const wait = Duration.toMillis(yield* budget.reserve)
          return { earliest: before + wait, latest: (yield* Clock.currentTimeMillis) + wait }
        }))
      for (let i = 1; i < slots.length; i++) {
        expect(slots[i]!.latest - slots[i - 1]!.earliest).toBeGreaterThanOrEqual(98)
      }
    }).pipe(Effect.provide(sandboxLayer()), Effect.scoped))

  it.live("the fleet's own options fail as a ConfigError naming the option, before any connection is made", () =>
    Effect.gen(function*() {
      const listener = yield* connectionCounter
      const counted = `redis://127.0.0.1:${listener.port}`
      expect(yield* failure(Fleet.layer({ url: counted, lockTtl: "0 millis" }))).toContain("lockTtl must be positive")
      expect(yield* failure(Fleet.layer({ url: counted, maxWait: -1 }))).toContain("maxWait")
      expect(yield* failure(Fleet.layer({ url: counted, requestsPerSecond: 0 }))).toContain("requestsPerSecond")
      expect(yield* failure(Fleet.layer({ url: counted, burst: 1.5 }))).toContain("burst")
      // no durations (Effect 4's `Duration` would read them as zero): refused
      expect(yield* failure(Fleet.layer({ url: counted, maxWait: {} as never }))).toContain("maxWait must be a finite")
      expect(yield* failure(Fleet.layer({ url: counted, commandTimeout: { secs: 1 } as never }))).toContain(
        "commandTimeout"
      )
      // ioredis decodes the user and password, and throws on a malformed escape: refused here, untold
      for (const userInfo of [":SECRET%zz", "user%E0%A4%A:SECRET"]) {
        const refused = yield* failure(Fleet.layer({ url: `redis://${userInfo}@127.0.0.1:${listener.port}` }))
        expect(refused).toContain("url's user or password has a malformed percent escape")
        expect(refused).not.toContain("SECRET")
      }
      expect(listener.connections()).toBe(0)
    }).pipe(Effect.scoped))

  it.live("a URL carries host, port, user, password and database only: a query or another path is refused, untold", () =>
    Effect.gen(function*() {
      const listener = yield* connectionCounter
      const at = `redis://:SECRET@127.0.0.1:${listener.port}`
      const queries = ["connectTimeout=abc", "db=abc", "keyPrefix=evil:", "enableOfflineQueue=1", "lazyConnect=1"]
      const refusedUrls = [...queries.map((q) => `${at}/?${q}`), `${at}?tls=x`, `${at}/0?sentinels=x`, `${at}/abc`]
      for (const url of [...refusedUrls, `${at}/1/2`, `${at}/-1`, `${at}/#db`]) {
        const refused = yield* failure(Fleet.layer({ url }))
        expect(refused).toContain("url carries host, port, user, password and database (/N) only")
        expect(refused).not.toContain("SECRET")
      }
      expect(listener.connections()).toBe(0)
    }).pipe(Effect.scoped))

  it.live("a URL's database index is selected; `REDISS://` is TLS as `rediss://` is", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      for (const url of [redis.url, `${redis.url}/`, `${redis.url}/3`]) {
        const fleet = yield* Layer.build(Layer.orDie(FleetRedis.layer({ url, keyPrefix: prefix })))
        expect(yield* Context.get(fleet, FleetRedis.FleetRedis).command("CLIENT", "INFO")).toContain(
          url.endsWith("/3") ? " db=3 " : " db=0 "
        )
      }
      // a TLS handshake against a plain Redis: never ready, so the command is refused, not answered
      const tls = yield* Layer.build(Layer.orDie(FleetRedis.layer({
        url: redis.url.replace("redis://", "REDISS://"),
        connectTimeout: "200 millis"
      })))
      const refused = yield* Effect.flip(Context.get(tls, FleetRedis.FleetRedis).command("PING"))
      expect(refused.detail).toContain("not connected")
    }).pipe(Effect.scoped))

  it.live("options that are not an object are a ConfigError at the options, when the layer is built: never a throw", () =>
    Effect.gen(function*() {
      const connection: FleetRedis.Connection = { status: "ready", connect: async () => {}, call: async () => null }
      const over = FleetRedis.layerClient(connection)
      const nothing = null as never
      const layers: ReadonlyArray<Layer.Layer<never, unknown>> = [
        Fleet.layer(nothing),
        FleetRedis.layer(nothing),
        FleetRedis.layerClient(connection, nothing),
        RequestBudget.layer(nothing),
        Layer.provide(RequestBudget.layerRedis(nothing), over),
        Layer.provide(TokenStore.layerRedis(nothing), over)
      ]
      for (const layer of layers) expect(yield* failure(layer)).toContain("expected an object of options")
      const made: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        FleetRedis.make(connection, nothing),
        RequestBudget.make(nothing),
        Effect.provide(RequestBudget.makeRedis(nothing), over),
        Effect.provide(TokenStore.makeRedis(nothing), over)
      ]
      for (const effect of made) expect(String(yield* Effect.flip(effect))).toContain("expected an object of options")
    }))
})
