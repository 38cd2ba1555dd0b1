/**
 * The toolkit against a client written by hand (bench/handwritten.ts), side by side in this process
 * over the same `HttpClient`, against the same fixed-body server (bench/fixedServer.ts, a process of
 * its own on a core of its own: bench/cores.ts), each `getDesign` decoded by the same `Design` schema:
 *
 * - `clientVsHandwrittenC64`: `getDesign`s a second at 64 at once, the toolkit's over the
 *   hand-written one's; each round measures both, in alternating order so that drift in the
 *   machine's load cancels, each on a heap just collected (`npm run bench` exposes `gc`), and the
 *   figure is the median of many short rounds' ratios;
 * - `cpuMsPerRequest`: this process's CPU (`process.cpuUsage`) per `getDesign` at concurrency 1; the
 *   server's CPU is its own process's and is not counted. Its rounds are long and start on the heap
 *   as it is: a collection forced before each short round doubled the figure, and no long-running
 *   process is collected by force every few hundred requests.
 *
 * Both over `FetchHttpClient.layer`, the default; the same pair at 64 over
 * `NodeHttpClient.layerUndici` is a reference.
 */
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { fork } from "node:child_process"
import { performance } from "node:perf_hooks"
import { DesignSearchClient, DesignSearchConfig } from "../src/index.js"
import { asClient, pinServer } from "./cores.js"
import * as Handwritten from "./handwritten.js"
import { median, round } from "./stats.js"

export type Contender = "toolkit" | "handwritten"
type Call = () => Effect.Effect<unknown>

/** Starts the fixed-body server in its own process (`pinned`: on the server core) until the scope closes. */
export const fixedServer = (options: { readonly pinned?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.async<{ readonly origin: string; readonly stop: () => void }>((resume) => {
      const child = fork(new URL("./fixedServer.ts", import.meta.url), [], {
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "pipe", "inherit", "ipc"]
      })
      if (options.pinned === true) pinServer(child.pid)
      child.stdout?.once("data", (data: Buffer) =>
        resume(Effect.succeed({
          origin: `http://127.0.0.1:${data.toString().trim()}`,
          stop: () => child.kill("SIGTERM")
        })))
    }),
    (server) => Effect.sync(server.stop)
  )

/** Both contenders' `getDesign` over `transport`, against the fixed server at `origin`, until the scope closes. */
export const contenders = (origin: string, transport: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.flatMap(
    Layer.build(
      DesignSearchClient.layer().pipe(
        Layer.provideMerge(
          Layer.orDie(
            DesignSearchConfig.layer({
              clientId: "bench",
              clientSecret: "bench",
              authUrl: origin,
              baseUrl: `${origin}/v1`
            })
          )
        ),
        Layer.provideMerge(transport)
      )
    ),
    (context) => Effect.provide(made, context)
  )

const made = Effect.gen(function*() {
  const toolkit = yield* DesignSearchClient.DesignSearchClient
  const config = yield* DesignSearchConfig.DesignSearchConfig
  const handwritten = yield* Handwritten.make({
    tokenUrl: config.tokenUrl,
    apiBaseUrl: config.apiBaseUrl,
    clientId: config.clientId,
    clientSecret: Redacted.value(config.clientSecret)
  })
  const number = "201900001"
  return {
    toolkit: () => Effect.orDie(toolkit.getDesign(number)),
    handwritten: () => Effect.orDie(handwritten.getDesign(number))
  } satisfies Record<Contender, Call>
})

/** `concurrency` fibers sharing `total` calls. */
export const loop = (call: Call, total: number, concurrency: number) =>
  Effect.suspend(() => {
    let started = 0
    const worker = Effect.whileLoop({ while: () => started++ < total, body: call, step: () => undefined })
    return Effect.all(Array.from({ length: concurrency }, () => worker), { concurrency: "unbounded", discard: true })
  })

export interface Measurement {
  readonly requestsPerSecond: number
  readonly cpuMsPerRequest: number
}

const measure = (call: Call, total: number, concurrency: number) =>
  Effect.gen(function*() {
    const cpu = process.cpuUsage()
    const start = performance.now()
    yield* loop(call, total, concurrency)
    const seconds = (performance.now() - start) / 1000
    const used = process.cpuUsage(cpu)
    return { requestsPerSecond: total / seconds, cpuMsPerRequest: (used.user + used.system) / 1000 / total }
  })

export interface Comparison {
  readonly concurrency: number
  readonly requests: number
  readonly rounds: number
  readonly toolkit: Measurement
  readonly handwritten: Measurement
  /** The toolkit's requests a second over the hand-written one's: the median of the rounds' ratios. */
  readonly ratio: number
  /** Each round's ratio, lowest to highest. */
  readonly ratios: ReadonlyArray<number>
}

/** `rounds` rounds of both contenders, alternating which goes first, after a warm-up of each. */
const compare = (
  calls: Record<Contender, Call>,
  options: {
    readonly rounds: number
    readonly requests: number
    readonly concurrency: number
    readonly collect: boolean
  }
) =>
  Effect.gen(function*() {
    const { concurrency, requests, rounds } = options
    for (const call of Object.values(calls)) yield* loop(call, 2_000, concurrency)
    const samples: Record<Contender, Array<Measurement>> = { toolkit: [], handwritten: [] }
    for (let r = 0; r < rounds; r++) {
      const order: ReadonlyArray<Contender> = r % 2 === 0 ? ["toolkit", "handwritten"] : ["handwritten", "toolkit"]
      for (const contender of order) {
        // each contender starts its round on a collected heap, so that neither pays for the other's garbage
        if (options.collect) (globalThis as { gc?: () => void }).gc?.()
        samples[contender].push(yield* measure(calls[contender], requests, concurrency))
      }
    }
    const ratios = samples.toolkit.map((t, i) => t.requestsPerSecond / samples.handwritten[i]!.requestsPerSecond)
    const summary = (of: ReadonlyArray<Measurement>): Measurement => ({
      requestsPerSecond: round(median(of.map((m) => m.requestsPerSecond)), 0),
      cpuMsPerRequest: round(median(of.map((m) => m.cpuMsPerRequest)), 4)
    })
    return {
      concurrency,
      requests,
      rounds,
      toolkit: summary(samples.toolkit),
      handwritten: summary(samples.handwritten),
      ratio: round(median(ratios)),
      ratios: ratios.map((x) => round(x)).sort((a, b) => a - b)
    } satisfies Comparison
  })

export interface ThroughputResult {
  /** Over `FetchHttpClient.layer`, 64 at once: `clientVsHandwrittenC64` is its `ratio`. */
  readonly fetchC64: Comparison
  /** Over `FetchHttpClient.layer`, one at a time: `cpuMsPerRequest` is its toolkit's. */
  readonly fetchC1: Comparison
  /** Over `NodeHttpClient.layerUndici`, 64 at once: a reference. */
  readonly undiciC64: Comparison
}

export interface Options {
  readonly rounds?: number
  readonly requests?: number
}

/** Every comparison, this process pinned to the client core, the server on the server core. */
export const run = (options: Options = {}): Promise<ThroughputResult> => {
  const rounds = options.rounds ?? 9
  const requests = options.requests ?? 10_000
  return asClient(() =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const { origin } = yield* fixedServer({ pinned: true })
      const overFetch = yield* contenders(origin, FetchHttpClient.layer)
      const overUndici = yield* contenders(origin, NodeHttpClient.layerUndici)
      return {
        fetchC64: yield* compare(overFetch, { rounds, requests, concurrency: 64, collect: true }),
        fetchC1: yield* compare(overFetch, { rounds: Math.ceil(rounds / 3), requests, concurrency: 1, collect: false }),
        undiciC64: yield* compare(overUndici, {
          rounds: Math.ceil(rounds / 3),
          requests,
          concurrency: 64,
          collect: true
        })
      }
    })))
  )
}
