/**
 * `FleetRedis` against a real `redis-server`, in this process: a Redis slower than the command
 * timeout counts as away, bad options are refused without telling a password, keys never name the
 * secret, a paused or restarted Redis is back at once, and an `ioredis` client the caller owns is a
 * `Connection` the service sends over, whose failures are `FleetUnavailable` and never defects.
 */
import { exitInterrupted, forkChild, timeoutFail, yieldNow } from "#edition/internal/seam"
import { failureOption, hasDie, poll } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Fiber, Layer, Option } from "effect"
import type { Scope } from "effect"
import { Redis } from "ioredis"
import { FleetRedis } from "../src/index.js"
import { always, client, failure, freshPrefix, pair, tokenOf, valueOf } from "./support/fleetLayers.js"
import { redisServer } from "./support/redis.js"

/**
 * An `ioredis` client configured as `FleetRedis` asks of a caller's own (`enableOfflineQueue: false`),
 * made with `lazyConnect` so that nothing connects until asked, disconnected when the scope closes.
 */
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
      })
        // connection errors are answered per command
        .on("error", () => {})
    ),
    (redis) => Effect.sync(() => redis.disconnect())
  )

/** Waits (at most 10 s) for ioredis's own `event` (`ready`, `end`) of `redis`, listened for from now. */
const eventOf = (redis: Redis, event: "ready" | "end"): Effect.Effect<Effect.Effect<void, string>> =>
  Effect.sync(() => {
    const heard = new Promise<void>((resolve) => redis.once(event, () => resolve()))
    return Effect.promise(() => heard).pipe(
      timeoutFail({ duration: "10 seconds", onTimeout: () => `never ${event} (${redis.status})` })
    )
  })

/** The service over `redis` by `layerClient`, alive for the rest of the scope. */
const serviceOver = (redis: FleetRedis.Connection, options: FleetRedis.Options = {}) =>
  Effect.map(Layer.build(Layer.orDie(FleetRedis.layerClient(redis, options))), Context.get(FleetRedis.FleetRedis))

/** `command`'s exit must be a `FleetUnavailable` failure, never a defect or an interruption. */
const expectUnavailable = (exit: Exit.Exit<unknown, FleetRedis.FleetUnavailable>) => {
  const cause = Exit.isFailure(exit) ? exit.cause : undefined
  expect(cause && { defect: hasDie(cause), interrupted: exitInterrupted(exit) }).toEqual({
    defect: false,
    interrupted: false
  })
  const failure = cause && Option.getOrUndefined(failureOption(cause))
  expect(failure).toBeInstanceOf(FleetRedis.FleetUnavailable)
  expect(failure).toMatchObject({ _tag: "FleetUnavailable", detail: expect.stringMatching(/./) })
}

describe("FleetRedis", () => {
  it.live("a Redis slower than the command timeout counts as away: the token is fetched here", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url)
      // the server stops answering anyone for 2 seconds
      yield* Effect.forkScoped(Effect.ignore(b.redis.command("DEBUG", "SLEEP", "2")))
      yield* yieldNow
      const obtained = yield* a.tokens.obtain(tokenOf("local"), always)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "local"])
      expect(Duration.toMillis(FleetRedis.defaults.commandTimeout)).toBeLessThan(2000)
    }).pipe(Effect.scoped))

  it.live("bad options are a ConfigError naming the option; a URL's password is never told", () =>
    Effect.gen(function*() {
      const url = yield* failure(FleetRedis.layer({ url: "http://user:hunter2@cache.internal:6379" }))
      expect(url).toContain("url must be a redis:// or rediss:// URL")
      expect(url).not.toContain("hunter2")
      expect(yield* failure(FleetRedis.layer({ url: "not a url" }))).toContain("url")
      // ioredis would take options from a query over the fleet's own: refused, the URL untold (test/Fleet.test.ts)
      for (const query of ["Connector=x", "sentinels=x", "scripts=x"]) {
        const refused = yield* failure(FleetRedis.layer({ url: `redis://:SECRET@127.0.0.1:1?${query}` }))
        expect(refused).toContain("url carries host, port, user, password and database (/N) only")
        expect(refused).not.toContain("SECRET")
      }
      expect(yield* failure(FleetRedis.layer({ keyPrefix: "" }))).toContain("keyPrefix")
      expect(yield* failure(FleetRedis.layer({ commandTimeout: 0 }))).toContain("commandTimeout must be positive")
      // the fleet's own options: test/Fleet.test.ts
    }))

  it("keys name the client by a digest of token URL and client id, never the secret", () => {
    const key = FleetRedis.keyOf("p", client, "token")
    expect(key).toMatch(/^p:\{[0-9a-f]{32}\}:token$/)
    expect(key).not.toContain(client.clientId)
    expect(FleetRedis.keyOf("p", { ...client, clientId: "other" }, "token")).not.toBe(key)
    expect(FleetRedis.keyOf("p", { ...client, tokenUrl: "https://auth.example/other" }, "token")).not.toBe(key)
    expect(FleetRedis.keyOf("p", client, "lock")).toBe(key.replace(/token$/, "lock"))
  })
})

/** A Redis and `FleetRedis.layer` over it, quick to give Redis up and looking again only once an hour. */
const patient = Effect.gen(function*() {
  const server = yield* redisServer
  const layer = FleetRedis.layer({ url: server.url, commandTimeout: "200 millis", probeInterval: "1 hour" })
  const fleet = Context.get(yield* Layer.build(Layer.orDie(layer)), FleetRedis.FleetRedis)
  /** Brings Redis back by `bring`, `reachable` waiting since before. */
  const back = <E>(bring: Effect.Effect<void, E>) =>
    Effect.flatMap(forkChild(fleet.reachable), (waiting) => Effect.andThen(bring, Fiber.join(waiting)))
  return { server, fleet, back }
})

describe("FleetRedis: Redis back", () => {
  it.live(
    "a paused Redis that answers late is back at once, whatever the probe interval; an urgent command sent meanwhile was carried out",
    () =>
      Effect.gen(function*() {
        const { back, fleet, server } = yield* patient
        yield* server.pause
        expectUnavailable(yield* Effect.exit(fleet.command("PING")))
        // sent while Redis looks away, where a command is refused at once
        expectUnavailable(yield* Effect.exit(fleet.urgent("SET", "urgent", "heard", "PX", 60_000)))
        expect(yield* Effect.flip(fleet.command("GET", "urgent"))).toMatchObject({ detail: "Redis is away" })
        yield* back(server.resume)
        expect(yield* fleet.command("GET", "urgent")).toBe("heard")
      }).pipe(Effect.scoped)
  )

  it.live("a Redis restarted is back as soon as the connection is, whatever the probe interval", () =>
    Effect.gen(function*() {
      const { back, fleet, server } = yield* patient
      yield* server.stop
      expectUnavailable(yield* Effect.exit(fleet.command("PING")))
      expect(yield* Effect.flip(fleet.command("PING"))).toMatchObject({ detail: "Redis is away" })
      yield* back(server.start)
      expect(yield* fleet.command("PING")).toBe("PONG")
    }).pipe(Effect.scoped))

  it.live("after a late answer, reachable waits for the probe then out, rather than pass at once", () =>
    Effect.gen(function*() {
      const answers: Array<(value: unknown) => void> = []
      const connection: FleetRedis.Connection = {
        status: "ready",
        connect: () => Promise.resolve(),
        call: () => new Promise((resolve) => void answers.push(resolve))
      }
      const fleet = yield* serviceOver(connection, { commandTimeout: "50 millis", probeInterval: "1 hour" })
      expectUnavailable(yield* Effect.exit(fleet.command("PING")))
      const settle = Effect.forEach(Array.from({ length: 20 }), () => yieldNow, { discard: true })
      answers[0]!("PONG") // late: Redis is back, and the next command is a probe
      yield* settle
      const probe = yield* forkChild(fleet.command("PING"))
      yield* settle
      expect(answers).toHaveLength(2)
      expect(yield* Effect.flip(fleet.command("GET", "k"))).toMatchObject({ detail: "Redis is away" })
      const back = yield* forkChild(fleet.reachable)
      yield* settle
      expect(Option.isNone(yield* poll(back))).toBe(true)
      answers[1]!("PONG")
      expect(yield* Fiber.join(probe)).toBe("PONG")
      yield* Fiber.join(back)
    }).pipe(Effect.scoped))
})

describe("FleetRedis.Connection", () => {
  it.effect("an ioredis client is a Connection: a lazy one waits, unconnected, until asked", () =>
    Effect.gen(function*() {
      // the type-level check: an ioredis client fits the public interface as it is
      const connection: FleetRedis.Connection = yield* ownClient(6379)
      expect(connection.status).toBe("wait")
      expect(typeof connection.connect).toBe("function")
      expect(typeof connection.call).toBe("function")
    }).pipe(Effect.scoped))

  it.live("layerClient over the caller's ioredis client connects a lazy one and sends its commands; stopped, a FleetUnavailable", () =>
    Effect.gen(function*() {
      const server = yield* redisServer
      const redis = yield* ownClient(server.port)
      const ready = yield* eventOf(redis, "ready")
      const service = yield* serviceOver(redis, { keyPrefix: freshPrefix() })
      // the layer started the lazy client connecting: nothing else asked it to
      yield* ready
      expect(redis.status).toBe("ready")
      const key = service.key(client, "probe")
      expect(yield* service.command("SET", key, "v")).toBe("OK")
      expect(yield* service.command("GET", key)).toBe("v")
      // what the service sent is in Redis, as the client itself reads it
      expect(yield* Effect.promise(() => redis.get(key))).toBe("v")
      // a command Redis refuses is a FleetUnavailable too
      expectUnavailable(yield* Effect.exit(service.command("NO-SUCH-COMMAND")))
      yield* server.stop
      expectUnavailable(yield* Effect.exit(service.command("GET", "k")))
      // and again while it is away: at once, still a failure
      expectUnavailable(yield* Effect.exit(service.command("GET", "k")))
    }).pipe(Effect.scoped))

  it.live("over a client that can reach no Redis, a command fails with FleetUnavailable, not a defect", () =>
    Effect.gen(function*() {
      // a port where a Redis was and is no longer: nothing listens there
      const server = yield* redisServer
      yield* server.stop
      const redis = yield* ownClient(server.port)
      const closed = yield* eventOf(redis, "end")
      const service = yield* serviceOver(redis)
      expectUnavailable(yield* Effect.exit(service.command("SET", "k", "v")))
      // once ioredis gave up connecting, still a failure and never a defect
      yield* closed
      expectUnavailable(yield* Effect.exit(service.command("GET", "k")))
    }).pipe(Effect.scoped))
})
