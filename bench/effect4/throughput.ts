/**
 * bench/throughput.ts for the Effect 4 edition: its `getDesign` against a hand-written Effect 4
 * client (bench/effect4/handwritten.ts), side by side in one process over `FetchHttpClient` from
 * `effect/http`, against the same fixed-body server, measured the same way (the same rounds,
 * order, collections and CPU accounting). Run as a process of its own by bench/run.ts, with
 * effect4/register.mjs so that `effect` is the edition's effect 4:
 * `node --expose-gc --import tsx --import ./effect4/register.mjs bench/effect4/throughput.ts ROUNDS REQUESTS`.
 * It prints its result as one line of JSON: `ThroughputResult` without `undiciC64`.
 */
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { fork } from "node:child_process"
import { performance } from "node:perf_hooks"
import { DesignSearchClient, DesignSearchConfig } from "../../dist/effect4/index.js"
import { asClient, pinServer } from "../cores.js"
import { median, round } from "../stats.js"
import * as Handwritten from "./handwritten.js"

type Contender = "toolkit" | "handwritten"
type Call = () => Effect.Effect<unknown>

const fixedServer = Effect.acquireRelease(
  Effect.callback<{ readonly origin: string; readonly stop: () => void }>((resume) => {
    const child = fork(new URL("../fixedServer.ts", import.meta.url), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "inherit", "ipc"]
    })
    pinServer(child.pid)
    child.stdout?.once(
      "data",
      (data: Buffer) =>
        resume(
          Effect.succeed({ origin: `http://127.0.0.1:${data.toString().trim()}`, stop: () => child.kill("SIGTERM") })
        )
    )
  }),
  (server) => Effect.sync(server.stop)
)

const contenders = (origin: string, transport: Layer.Layer<HttpClient.HttpClient>) =>
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

const loop = (call: Call, total: number, concurrency: number) =>
  Effect.suspend(() => {
    let started = 0
    const worker = Effect.whileLoop({ while: () => started++ < total, body: call, step: () => undefined })
    return Effect.all(Array.from({ length: concurrency }, () => worker), { concurrency: "unbounded", discard: true })
  })

interface Measurement {
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
    }
  })

const [rounds, requests] = process.argv.slice(2).map(Number)

asClient(() =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { origin } = yield* fixedServer
    const overFetch = yield* contenders(origin, FetchHttpClient.layer)
    const r = rounds ?? 9
    const n = requests ?? 10_000
    return {
      fetchC64: yield* compare(overFetch, { rounds: r, requests: n, concurrency: 64, collect: true }),
      fetchC1: yield* compare(overFetch, { rounds: Math.ceil(r / 3), requests: n, concurrency: 1, collect: false })
    }
  })))
).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`), (error: unknown) => {
  process.stderr.write(`bench/effect4/throughput: ${String(error)}\n`)
  process.exitCode = 1
})
