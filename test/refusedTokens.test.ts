/**
 * A token the API refused is never handed out again while it lives, whatever Redis went through in
 * between: paused (SIGSTOP, as a partition looks), or restarted keeping its data. One process, then
 * two (each its own `FleetRedis` connection and `TokenService`), over the in-process sandbox and a
 * real `redis-server`; the sandbox's revocation stands for the API's, its counters count requests.
 */
import { forkChild } from "#edition/internal/seam"
import { poll } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Option, Schedule, Scope } from "effect"
import { DesignSearchClient, FleetRedis, RequestBudget, Sandbox, TokenService, TokenStore } from "../src/index.js"
import { client as fleetClient, freshPrefix, member, tokenOf, valueOf } from "./support/fleetLayers.js"
import { sandboxLayer, sandboxStats } from "./support/layers.js"
import type { RedisServer } from "./support/redis.js"
import { redisServer, redisServerKeepingData } from "./support/redis.js"

/**
 * Quick to give Redis up, so that an outage costs the test little time; looking again only every
 * second (the default), so that no command sent during the outage is a probe that a paused Redis
 * would still carry out when it resumes.
 */
const fleetTimings = { commandTimeout: "200 millis", probeInterval: "1 second" } as const

/** One process: a client over the sandbox sharing its token and budget through `redis`. */
const clientProcess = (redis: RedisServer, keyPrefix: string) =>
  Effect.map(
    Layer.build(
      DesignSearchClient.layer().pipe(
        Layer.provideMerge(
          Layer.merge(TokenStore.layerRedis(), RequestBudget.layerRedis({ requestsPerSecond: 100 })).pipe(
            Layer.provideMerge(FleetRedis.layer({ url: redis.url, keyPrefix, ...fleetTimings })),
            Layer.orDie
          )
        )
      )
    ),
    (context) => ({
      client: Context.get(context, DesignSearchClient.DesignSearchClient),
      tokens: Context.get(context, TokenService.TokenService),
      redis: Context.get(context, FleetRedis.FleetRedis)
    })
  )

/** `effect` tried every 20 ms until it succeeds, for at most 10 s. */
const retried = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeout(Effect.retry(effect, Schedule.spaced("20 millis")), "10 seconds")

/** Waits until `redis` answers again, looking as often as the connection lets a command through. */
const reachable = (redis: FleetRedis.Service) => retried(redis.command("PING"))

const revoke = Effect.flatMap(Sandbox.SandboxControl, (control) => control.revokeTokens)
const search = (client: DesignSearchClient.Service) => client.quickSearch({ query: "chair" })

/**
 * The outage: one call stores T1; Redis goes away; the API refuses T1 and a call succeeds with its
 * own T2; Redis comes back (still holding T1); the API refuses T2. The next call must not be handed
 * T1 back: it fetches T3 and succeeds.
 */
const throughAnOutage = (
  redis: RedisServer,
  away: Effect.Effect<void, unknown>,
  back: Effect.Effect<void, unknown>
) =>
  Effect.gen(function*() {
    const keyPrefix = freshPrefix()
    const one = yield* clientProcess(redis, keyPrefix)
    yield* search(one.client)
    yield* away
    yield* revoke
    yield* search(one.client)
    yield* back
    yield* reachable(one.redis)
    yield* revoke
    yield* search(one.client)
    expect((yield* sandboxStats).requests.token).toBe(3)
    expect(yield* one.tokens.stats).toMatchObject({ tokenRequests: 3, sharedTokens: 0 })
    // another process, which never saw a 401, gets a token that works: T3, or one of its own
    const other = yield* clientProcess(redis, keyPrefix)
    yield* search(other.client)
  })

describe("a refused token is never handed out again", () => {
  it.live("across a Redis paused and resumed (SIGSTOP, SIGCONT), which kept the refused token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      yield* throughAnOutage(redis, redis.pause, redis.resume)
    }).pipe(Effect.provide(sandboxLayer()), Effect.scoped))

  it.live("across a Redis restarted with its data, which brings the refused token back", () =>
    Effect.gen(function*() {
      const redis = yield* redisServerKeepingData
      yield* throughAnOutage(redis, redis.stop, redis.start)
    }).pipe(Effect.provide(sandboxLayer()), Effect.scoped))
})

describe("TokenStore.layerRedis: an invalidation Redis did not hear is made once it can", () => {
  it.live("made while Redis is paused, it is done after the resume: the refused token is gone", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const prefix = freshPrefix()
      const a = yield* member(redis.url, prefix, {})
      const t1 = yield* tokenOf("T1")
      yield* a.tokens.obtain(Effect.succeed(t1), () => false)
      yield* redis.pause
      const invalidation = yield* forkChild(a.tokens.invalidate(t1))
      // a command sent after the invalidation's first try fails after it: that try has failed
      expect((yield* Effect.flip(a.redis.command("PING")))._tag).toBe("FleetUnavailable")
      expect(Option.isNone(yield* poll(invalidation))).toBe(true)
      yield* redis.resume
      yield* Fiber.join(invalidation)
      expect(yield* a.redis.command("GET", a.redis.key(fleetClient, "token"))).toBeNull()
      // another process, which never heard of the 401, finds nothing to take and fetches
      const b = yield* member(redis.url, prefix, {})
      const obtained = yield* b.tokens.obtain(tokenOf("T2"), () => true)
      expect([obtained.shared, valueOf(obtained)]).toEqual([false, "T2"])
    }).pipe(Effect.scoped))

  it.live("made while Redis is stopped, it is done after a restart that kept the token", () =>
    Effect.gen(function*() {
      const redis = yield* redisServerKeepingData
      const a = yield* member(redis.url, freshPrefix(), {})
      const t1 = yield* tokenOf("T1")
      yield* a.tokens.obtain(Effect.succeed(t1), () => false)
      yield* redis.stop
      const invalidation = yield* forkChild(a.tokens.invalidate(t1))
      expect(Option.isNone(yield* poll(invalidation))).toBe(true)
      yield* redis.start
      yield* Fiber.join(invalidation)
      expect(yield* a.redis.command("GET", a.redis.key(fleetClient, "token"))).toBeNull()
    }).pipe(Effect.scoped))

  it.live("an invalidation gives up once the token has expired: nothing is left to protect", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const a = yield* member(redis.url, freshPrefix(), {})
      yield* redis.stop
      yield* a.tokens.invalidate(yield* tokenOf("short", 0))
    }).pipe(Effect.scoped))

  it.live("a stored token no header could carry, or not Bearer, is never handed out", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const a = yield* member(redis.url, freshPrefix(), {})
      const key = a.redis.key(fleetClient, "token")
      const now = Date.now()
      for (const [token, tokenType] of [["bad\r\nX-Injected: 1", "Bearer"], ["has space", "Bearer"], ["ok", "MAC"]]) {
        const stored = JSON.stringify({ token, tokenType, issuedAt: now, expiresAt: now + 3_600_000 })
        yield* a.redis.command("SET", key, stored, "PX", 3_600_000)
        const obtained = yield* a.tokens.obtain(tokenOf("fetched"), () => true)
        expect([obtained.shared, valueOf(obtained)]).toEqual([false, "fetched"])
        yield* a.redis.command("DEL", key)
      }
    }).pipe(Effect.scoped))
})

/** Waits until `effect` answers `true`, looking every 20 ms for at most 10 s: an event of Redis's, not a sleep. */
const until = (effect: Effect.Effect<boolean, unknown>, what: string) =>
  retried(Effect.filterOrFail(Effect.orElseSucceed(effect, () => false), (ok) => ok, () => `not yet: ${what}`))

/** Whether Redis, asked through `redis`, holds no token for the test's client. */
const noStoredToken = (redis: FleetRedis.Service) =>
  Effect.map(redis.command("GET", redis.key(fleetClient, "token")), (stored) => stored === null)

/** The sandbox's token and search requests so far. */
const counts = Effect.map(sandboxStats, (s) => ({ token: s.requests.token, search: s.requests.search }))

/**
 * Two processes A and B, each with its own `Fleet` connection and `TokenService`. A stores T1;
 * Redis goes away; the API refuses T1 and A succeeds with its own T2, which Redis never hears of;
 * Redis comes back still holding T1 (`back`, then `settled`: what the test waits for before B's
 * call); B calls; the API refuses every token; A calls, then B. No call fails.
 */
const twoProcesses = (
  redis: RedisServer,
  options: {
    readonly away: Effect.Effect<void, unknown>
    readonly back: Effect.Effect<void, unknown>
    /** Closes A's scope before Redis is back: its invalidation dies with it. */
    readonly aExits?: boolean
    readonly settled: (a: FleetRedis.Service, b: FleetRedis.Service) => Effect.Effect<void, unknown>
  }
) =>
  Effect.gen(function*() {
    const keyPrefix = freshPrefix()
    const aScope = yield* Scope.make()
    const a = yield* Effect.provideService(clientProcess(redis, keyPrefix), Scope.Scope, aScope)
    const b = yield* clientProcess(redis, keyPrefix)
    yield* search(a.client)
    expect(yield* counts).toEqual({ token: 1, search: 1 })
    yield* options.away
    yield* revoke
    yield* search(a.client)
    expect(yield* counts).toEqual({ token: 2, search: 3 })
    if (options.aExits === true) yield* Scope.close(aScope, Exit.void)
    yield* options.back
    yield* reachable(b.redis)
    yield* options.settled(a.redis, b.redis)
    const beforeB = yield* counts
    yield* search(b.client)
    const afterB = yield* counts
    if (options.aExits !== true) {
      yield* revoke
      // A's T2 is refused; the store hands it B's T3, refused too: A fetches T4 itself
      yield* search(a.client)
      // B's T3 is refused; the store hands it A's T4
      yield* search(b.client)
    }
    return { b: { token: afterB.token - beforeB.token, search: afterB.search - beforeB.search }, all: yield* counts }
  })

describe("two processes: a token refused in one is never the reason a call fails in another", () => {
  it.live(
    "Redis paused and resumed: B, calling as soon as Redis answers it, is not handed T1; A's call after a revocation of every token succeeds",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const result = yield* twoProcesses(redis, {
          away: redis.pause,
          back: redis.resume,
          settled: () => Effect.void
        })
        // B: one token request, one search; A: 401 with T2, 401 with B's T3, T4, success; B: 401, A's T4
        expect(result.b).toEqual({ token: 1, search: 1 })
        expect(result.all).toEqual({ token: 4, search: 9 })
      }).pipe(Effect.provide(sandboxLayer()), Effect.scoped)
  )

  it.live("Redis paused, A gone before it resumes: the refusal A sent reaches Redis all the same", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const result = yield* twoProcesses(redis, {
        away: redis.pause,
        back: redis.resume,
        aExits: true,
        settled: () => Effect.void
      })
      expect(result.b).toEqual({ token: 1, search: 1 })
    }).pipe(Effect.provide(sandboxLayer()), Effect.scoped))

  it.live("Redis restarted with its data: once A is connected again its refusal is made, and B is not handed T1", () =>
    Effect.gen(function*() {
      const redis = yield* redisServerKeepingData
      const result = yield* twoProcesses(redis, {
        away: redis.stop,
        back: redis.start,
        settled: (a) => until(noStoredToken(a), "A's refusal of T1 heard")
      })
      expect(result.b).toEqual({ token: 1, search: 1 })
      expect(result.all).toEqual({ token: 4, search: 9 })
    }).pipe(Effect.provide(sandboxLayer()), Effect.scoped))

  it.live(
    "Redis restarted with its data, A gone before: B is handed T1, refused, and fetches its own; one more request",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServerKeepingData
        const result = yield* twoProcesses(redis, {
          away: redis.stop,
          back: redis.start,
          aExits: true,
          settled: () => Effect.void
        })
        expect(result.b).toEqual({ token: 1, search: 2 })
      }).pipe(Effect.provide(sandboxLayer()), Effect.scoped)
  )
})
