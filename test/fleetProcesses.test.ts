/**
 * Fleets of real worker processes (`support/fleetWorker.ts`) sharing one token and one rate budget
 * through a real `redis-server`, against the served sandbox: one token request for a cold fleet,
 * refresh in one process, a dead lock holder, Redis stopped and restarted, concurrent 401s, and the
 * fleet's request rate read off the sandbox's counters.
 */
import { type DurationInput, forkChild, timeoutFail, toResult } from "#edition/internal/seam"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Schedule } from "effect"
import { Sandbox } from "../src/index.js"
import { type FleetOptions, freshPrefix, startFleet, type Worker } from "./support/fleet.js"
import { redisServer } from "./support/redis.js"

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

/** Every worker's `calls(count)`, at once; all must succeed. */
const everyoneCalls = (fleet: ReadonlyArray<Worker>, count: number) =>
  Effect.map(Effect.forEach(fleet, (w) => w.calls(count), { concurrency: "unbounded" }), (results) => {
    expect(results.flatMap((r) => r.failures)).toEqual([])
    expect(sum(results.map((r) => r.ok))).toBe(fleet.length * count)
  })

const statsOf = (fleet: ReadonlyArray<Worker>) => Effect.forEach(fleet, (w) => w.stats, { concurrency: "unbounded" })

/** Checks `condition` every 50 ms until it holds, for at most `limit`. */
const eventually = <E, R>(condition: Effect.Effect<boolean, E, R>, what: string, limit: DurationInput = "20 seconds") =>
  condition.pipe(
    Effect.filterOrFail((ok) => ok, () => what),
    Effect.retry(Schedule.spaced("50 millis")),
    timeoutFail({ duration: limit, onTimeout: () => what }),
    Effect.mapError((e) => new Error(`never true: ${e}`)),
    Effect.orDie
  )

/** A Redis, a served sandbox and `count` workers sharing through that Redis, on a fresh key prefix. */
const fleetOf = (count: number, sandbox: Sandbox.Options = {}, options: Partial<FleetOptions> = {}) =>
  Effect.gen(function*() {
    const redis = yield* redisServer
    const served = yield* Sandbox.serve({ port: 0, ...sandbox })
    const fleet = yield* startFleet(count, { served, redisUrl: redis.url, keyPrefix: freshPrefix(), ...options })
    return { redis, served, fleet }
  })

const occurrences = (text: string, pattern: string) => text.split(pattern).length - 1

// each test starts its processes: more than the default timeout on a loaded machine
describe("a fleet sharing tokens through Redis", { timeout: 120_000 }, () => {
  it.live("8 processes × 100 concurrent cold calls make exactly 1 token request", () =>
    Effect.gen(function*() {
      const { fleet, served } = yield* fleetOf(8)
      yield* everyoneCalls(fleet, 100)
      const stats = yield* served.control.stats
      expect(stats.requests.token).toBe(1)
      expect(stats.requests.search).toBe(800)
      const tokens = yield* statsOf(fleet)
      expect(sum(tokens.map((s) => s.tokenRequests))).toBe(1)
      expect(sum(tokens.map((s) => s.sharedTokens))).toBe(7)
    }).pipe(Effect.scoped))

  it.live("refresh ahead happens in one process; the others take its token", () =>
    Effect.gen(function*() {
      // 6-second tokens are refreshed 3 seconds after their fetch
      const { fleet, served } = yield* fleetOf(4, { tokenLifetime: "6 seconds" })
      // a token is refreshed only once it has been used after its fetch: each process takes it again
      // from its cache as soon as it has it, not after a round of calls that may outlast the 3 seconds
      expect(yield* Effect.forEach(fleet, (w) => w.token, { concurrency: "unbounded" })).toEqual(fleet.map(() => true))
      const refreshed = statsOf(fleet).pipe(
        Effect.map((all) => all.every((s) => s.refreshes >= 1 && s.tokenRequests + s.sharedTokens >= 2))
      )
      yield* eventually(refreshed, "every process refreshed")
      expect((yield* served.control.stats).requests.token).toBe(2)
      const tokens = yield* statsOf(fleet)
      expect(sum(tokens.map((s) => s.tokenRequests))).toBe(2)
      expect(sum(tokens.map((s) => s.sharedTokens))).toBe(6)
      // the refreshed token serves every process's calls
      yield* everyoneCalls(fleet, 10)
    }).pipe(Effect.scoped))

  it.live(
    "the lock holder killed mid-fetch: another process fetches once the lock has expired",
    () =>
      Effect.gen(function*() {
        const lockTtlMillis = 1500
        const { fleet: [holder, other], served } = yield* fleetOf(2, {}, { lockTtlMillis })
        // the holder's token request hangs
        yield* served.control.injectFault({ target: "token", status: 503, delayMs: 600_000 })
        yield* Effect.forkScoped(toResult(holder!.calls(1)))
        yield* eventually(Effect.map(served.control.stats, (s) => s.requests.token === 1), "the holder's token request")
        yield* holder!.kill
        const killedAt = yield* Clock.currentTimeMillis
        yield* everyoneCalls([other!], 1)
        const waited = (yield* Clock.currentTimeMillis) - killedAt
        // bounded by the lock's expiry (plus the fetch), not by the holder's token timeout
        expect(waited).toBeLessThan(lockTtlMillis + 5000)
        expect((yield* served.control.stats).requests.token).toBe(2)
        expect((yield* other!.stats).tokenRequests).toBe(1)
      }).pipe(Effect.scoped)
  )

  it.live(
    "Redis stopped: no call fails and each process warns once; restarted: the fleet shares again",
    () =>
      Effect.gen(function*() {
        const { fleet, redis, served } = yield* fleetOf(4)
        yield* everyoneCalls(fleet, 20)
        expect((yield* served.control.stats).requests.token).toBe(1)

        yield* redis.stop
        // revoked tokens make every process fetch anew, with Redis away
        yield* served.control.revokeTokens
        yield* everyoneCalls(fleet, 20)
        yield* everyoneCalls(fleet, 20)
        expect((yield* served.control.stats).requests.token).toBe(1 + fleet.length)
        for (const worker of fleet) expect(occurrences(worker.output(), "Redis unreachable")).toBe(1)

        yield* redis.start
        yield* eventually(
          Effect.map(Effect.forEach(fleet, (w) => w.ping), (answers) => answers.every((ok) => ok)),
          "every process reconnected"
        )
        yield* served.control.revokeTokens
        yield* everyoneCalls(fleet, 20)
        expect((yield* served.control.stats).requests.token).toBe(2 + fleet.length)
        for (const worker of fleet) {
          expect(occurrences(worker.output(), "Redis unreachable")).toBe(1)
          expect(occurrences(worker.output(), "Redis reachable again")).toBe(1)
        }
      }).pipe(Effect.scoped)
  )

  it.live(
    "concurrent 401s in every process replace the revoked token with exactly one new one",
    () =>
      Effect.gen(function*() {
        const { fleet, served } = yield* fleetOf(4)
        yield* everyoneCalls(fleet, 10)
        for (let round = 1; round <= 3; round++) {
          yield* served.control.revokeTokens
          yield* everyoneCalls(fleet, 25)
          expect((yield* served.control.stats).requests.token).toBe(1 + round)
        }
      }).pipe(Effect.scoped)
  )

  it.live("the fleet's calls reach the service at the configured rate", () =>
    Effect.gen(function*() {
      const requestsPerSecond = 40
      const { fleet, served } = yield* fleetOf(4, {}, { requestsPerSecond })
      const samples: Array<readonly [number, number]> = []
      const sample = Effect.flatMap(
        served.control.stats,
        (s) => Effect.map(Clock.currentTimeMillis, (t) => void samples.push([t, s.requests.search]))
      )
      const sampler = yield* forkChild(Effect.repeat(sample, Schedule.spaced("50 millis")))
      yield* everyoneCalls(fleet, 40)
      yield* Fiber.interrupt(sampler)
      yield* sample
      expect(samples.at(-1)![1]).toBe(160)
      // Over every window of at least 2 seconds, no more than the rate allows over that window widened
      // by the longest stall of this process, which counts the requests: what queued while it stalled
      // is counted in a burst after. 15% and 4 requests of tolerance besides. Unshared, four
      // processes would send at four times the rate.
      const stall = Math.max(0, ...samples.slice(1).map(([t], k) => t - samples[k]![0] - 50))
      let windows = 0
      for (let i = 0; i < samples.length; i++) {
        const j = samples.findIndex(([t]) => t >= samples[i]![0] + 2000)
        if (j < 0) break
        const [t0, c0] = samples[i]!
        const [t1, c1] = samples[j]!
        windows++
        expect(c1 - c0).toBeLessThanOrEqual(Math.ceil(requestsPerSecond * ((t1 - t0 + stall) / 1000) * 1.15) + 4)
      }
      // 160 calls at 40 a second take about 4 seconds: the check saw windows
      expect(windows).toBeGreaterThan(10)
    }).pipe(Effect.scoped))
})
