/**
 * Fleet token economy: `processes` worker processes (`test/support/fleetWorker.ts`) each make
 * `calls` concurrent quick searches on a cold cache against the served sandbox, and the sandbox
 * counts the token requests. Two fleets per round, measured side by side: one sharing through a
 * real `redis-server` on loopback (`Fleet` layers; target: 1 token request), and the baseline, the
 * same processes each alone with the in-memory default (one token request per process). Each
 * round starts fresh processes, a fresh sandbox and a fresh key prefix; figures are medians.
 */
import { Effect } from "effect"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Sandbox } from "../src/index.js"
import { startFleet } from "../test/support/fleet.js"
import { redisServer } from "../test/support/redis.js"
import { median } from "./stats.js"

export interface Options {
  readonly rounds?: number
  readonly processes?: number
  readonly calls?: number
}

export interface Result {
  readonly processes: number
  readonly calls: number
  /** Median token requests of the fleet sharing through Redis. */
  readonly shared: number
  /** Median token requests of the same processes, each alone. */
  readonly alone: number
  readonly failedCalls: number
  readonly samples: ReadonlyArray<{ readonly shared: number; readonly alone: number }>
}

/** Token requests of one cold fleet, and the calls that failed. */
const coldFleet = (processes: number, calls: number, redisUrl: string | undefined, keyPrefix: string) =>
  Effect.scoped(Effect.gen(function*() {
    const served = yield* Sandbox.serve({ port: 0 })
    const fleet = yield* startFleet(processes, { served, redisUrl, keyPrefix })
    const results = yield* Effect.forEach(fleet, (w) => w.calls(calls), { concurrency: "unbounded" })
    const stats = yield* served.control.stats
    return { tokenRequests: stats.requests.token, failed: results.reduce((n, r) => n + r.failures.length, 0) }
  }))

export const run = (options: Options = {}): Promise<Result> => {
  const { calls = 100, processes = 8, rounds = 3 } = options
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const redis = yield* redisServer
    const samples: Array<{ shared: number; alone: number }> = []
    let failedCalls = 0
    for (let round = 0; round < rounds; round++) {
      const shared = yield* coldFleet(processes, calls, redis.url, `bench-${round}`)
      const alone = yield* coldFleet(processes, calls, undefined, `bench-alone-${round}`)
      failedCalls += shared.failed + alone.failed
      samples.push({ shared: shared.tokenRequests, alone: alone.tokenRequests })
    }
    return {
      processes,
      calls,
      shared: median(samples.map((s) => s.shared)),
      alone: median(samples.map((s) => s.alone)),
      failedCalls,
      samples
    }
  })))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  run().then((result) => console.log(JSON.stringify(result, null, 2)))
}
