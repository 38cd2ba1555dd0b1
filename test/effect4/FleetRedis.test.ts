/**
 * The Effect 4 edition's `FleetRedis` against a real `redis-server` (a compact port of
 * test/FleetRedis.test.ts): a Redis slower than the command timeout counts as away, bad options are
 * refused without telling a password, keys never name the secret, a paused or restarted Redis is
 * back at once, and an `ioredis` client the caller owns is a `Connection` whose failures are
 * `FleetUnavailable` and never defects.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option } from "effect"
import type { Scope } from "effect"
import { Redis } from "ioredis"
import * as FleetRedis from "../../src/FleetRedis.js"
import { always, client, freshPrefix, pair, tokenOf, valueOf } from "./support/fleet.js"
import { redisServer } from "./support/redis.js"

/** An `ioredis` client as `FleetRedis` asks of a caller's own, made with `lazyConnect`, disconnected with the scope. */
const ownClient = (port: number): Effect.Effect<Redis, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() =>
      new Redis({
        host: "127.0.0.1",
        port,
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null
      }).on("error", () => {})
    ),
    (redis) => Effect.sync(() => redis.disconnect())
  )

/** The service by `layer` or `layerClient`, alive for the rest of the scope. */
const serviceOf = (layer: Layer.Layer<FleetRedis.FleetRedis, unknown>) =>
  Effect.map(Layer.build(Layer.orDie(layer)), Context.get(FleetRedis.FleetRedis))

/** `command`'s exit must be a `FleetUnavailable` failure, never a defect or an interruption. */
const assertUnavailable = (exit: Exit.Exit<unknown, FleetRedis.FleetUnavailable>) => {
  assert.isTrue(Exit.isFailure(exit))
  if (Exit.isSuccess(exit)) return
  assert.isFalse(Cause.hasDies(exit.cause))
  assert.isFalse(Cause.hasInterrupts(exit.cause))
  const failure = Cause.findErrorOption(exit.cause)
  assert.isTrue(Option.isSome(failure) && failure.value._tag === "FleetUnavailable" && failure.value.detail !== "")
}

/** What building `layer` fails with, as text. */
const failure = <A, E>(layer: Layer.Layer<A, E>) => Effect.map(Effect.flip(Effect.scoped(Layer.build(layer))), String)

describe("FleetRedis (Effect 4)", () => {
  it.live("a Redis slower than the command timeout counts as away: the token is fetched here", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // the server stops answering anyone for 2 seconds
      yield* Effect.forkScoped(Effect.ignore(b.redis.command("DEBUG", "SLEEP", "2")))
      yield* Effect.yieldNow
      const obtained = yield* a.tokens.obtain(tokenOf("local"), always)
      assert.deepStrictEqual([obtained.shared, valueOf(obtained)], [false, "local"])
      assert.isBelow(Duration.toMillis(FleetRedis.defaults.commandTimeout), 2000)
    }))

  it.live("bad options are a ConfigError naming the option; a URL's password is never told", () =>
    Effect.gen(function*() {
      const url = yield* failure(FleetRedis.layer({ url: "http://user:hunter2@cache.internal:6379" }))
      assert.include(url, "url must be a redis:// or rediss:// URL")
      assert.notInclude(url, "hunter2")
      // ioredis would take options from a query over the fleet's own: refused, the URL untold (test/Fleet.test.ts)
      for (const query of ["Connector=x", "sentinels=x", "scripts=x"]) {
        const refused = yield* failure(FleetRedis.layer({ url: `redis://:SECRET@127.0.0.1:1?${query}` }))
        assert.include(refused, "url carries host, port, user, password and database (/N) only")
        assert.notInclude(refused, "SECRET")
      }
      assert.include(yield* failure(FleetRedis.layer({ keyPrefix: "" })), "keyPrefix")
      assert.include(yield* failure(FleetRedis.layer({ commandTimeout: 0 })), "commandTimeout must be positive")
    }))

  it("keys name the client by a digest of token URL and client id, never the secret", () => {
    const key = FleetRedis.keyOf("p", client, "token")
    assert.match(key, /^p:\{[0-9a-f]{32}\}:token$/)
    assert.notInclude(key, client.clientId)
    assert.notStrictEqual(FleetRedis.keyOf("p", { ...client, clientId: "other" }, "token"), key)
    assert.strictEqual(FleetRedis.keyOf("p", client, "lock"), key.replace(/token$/, "lock"))
  })

  it.live("a paused Redis that answers late is back at once, whatever the probe interval; an urgent command sent meanwhile was carried out", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const fleet = yield* serviceOf(
        FleetRedis.layer({ url: server.url, commandTimeout: "200 millis", probeInterval: "1 hour" })
      )
      yield* server.pause
      assertUnavailable(yield* Effect.exit(fleet.command("PING")))
      assertUnavailable(yield* Effect.exit(fleet.urgent("SET", "urgent", "heard", "PX", 60_000)))
      assert.strictEqual((yield* Effect.flip(fleet.command("GET", "urgent"))).detail, "Redis is away")
      const back = yield* Effect.forkChild(fleet.reachable)
      yield* server.resume
      yield* Fiber.join(back)
      assert.strictEqual(yield* fleet.command("GET", "urgent"), "heard")
    }))

  it.live("a Redis restarted is back as soon as the connection is, whatever the probe interval", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const fleet = yield* serviceOf(
        FleetRedis.layer({ url: server.url, commandTimeout: "200 millis", probeInterval: "1 hour" })
      )
      yield* server.stop
      assertUnavailable(yield* Effect.exit(fleet.command("PING")))
      assert.strictEqual((yield* Effect.flip(fleet.command("PING"))).detail, "Redis is away")
      const back = yield* Effect.forkChild(fleet.reachable)
      yield* server.start
      yield* Fiber.join(back)
      assert.strictEqual(yield* fleet.command("PING"), "PONG")
    }))

  it.live("layerClient over the caller's ioredis client connects a lazy one and sends its commands; stopped, a FleetUnavailable", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const redis = yield* ownClient(server.port)
      const ready = yield* Deferred.make<void>()
      redis.once("ready", () => Deferred.doneUnsafe(ready, Effect.void))
      const service = yield* serviceOf(FleetRedis.layerClient(redis, { keyPrefix: freshPrefix() }))
      // the layer started the lazy client connecting: nothing else asked it to
      yield* Deferred.await(ready).pipe(Effect.timeout("10 seconds"))
      const key = service.key(client, "probe")
      assert.strictEqual(yield* service.command("SET", key, "v"), "OK")
      assert.strictEqual(yield* Effect.promise(() => redis.get(key)), "v")
      assertUnavailable(yield* Effect.exit(service.command("NO-SUCH-COMMAND")))
      yield* server.stop
      assertUnavailable(yield* Effect.exit(service.command("GET", key)))
      assertUnavailable(yield* Effect.exit(service.command("GET", key)))
    }))
})
