/**
 * Throughput and CPU per request of quick searches on loopback against one fixed-body server (in
 * its own process), at concurrency 1 and 64, for: raw `undici.request` with a hand-rolled token
 * cache (the limit); native `fetch` with a hand-rolled token cache; this toolkit over
 * `NodeHttpClient.layerUndici`; this toolkit over its default transport. Each is measured several
 * times, interleaved, and reported as the median and as a ratio to raw undici. Raw undici and the
 * default transport, the headline pair, run side by side in three times as many rounds as the
 * others, in alternating order; the default transport's ratio is the median of its per-round ratios,
 * whose spread is reported with it.
 */
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime } from "effect"
import { fork } from "node:child_process"
import { performance } from "node:perf_hooks"
import { request as undiciRequest } from "undici"
import { DesignSearchClient, DesignSearchConfig } from "../src/index.js"
import { asClient, pinServer } from "./cores.js"
import { median, round } from "./stats.js"

export type Variant = "undici" | "fetch" | "toolkitLayerUndici" | "toolkitDefault"

export interface Measurement {
  readonly requestsPerSecond: number
  readonly cpuMicrosPerRequest: number
}

const searchBody = JSON.stringify({ query: "chair" })

/** A hand-rolled token cache: what a person writes around a raw HTTP client. */
const tokenCache = (fetchToken: () => Promise<{ access_token: string; expires_in: number; token_type: string }>) => {
  let cached: { header: string; expiresAt: number } | undefined
  let inflight: Promise<string> | undefined
  return (): Promise<string> => {
    if (cached !== undefined && Date.now() < cached.expiresAt - 30_000) return Promise.resolve(cached.header)
    inflight ??= fetchToken().then((t) => {
      cached = { header: `${t.token_type} ${t.access_token}`, expiresAt: Date.now() + t.expires_in * 1000 }
      inflight = undefined
      return cached.header
    })
    return inflight
  }
}

const form = "grant_type=client_credentials&client_id=bench&client_secret=bench"

const undiciClient = (origin: string) => {
  const token = tokenCache(async () => {
    const r = await undiciRequest(`${origin}/public/external-token-api/v1/access_token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form
    })
    return (await r.body.json()) as { access_token: string; expires_in: number; token_type: string }
  })
  return async () => {
    const r = await undiciRequest(`${origin}/public/australian-design-search-api/v1/search/quick`, {
      method: "POST",
      headers: { authorization: await token(), "content-type": "application/json", accept: "application/json" },
      body: searchBody
    })
    if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`)
    return r.body.json()
  }
}

const fetchClient = (origin: string) => {
  const token = tokenCache(async () => {
    const r = await fetch(`${origin}/public/external-token-api/v1/access_token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form
    })
    return (await r.json()) as { access_token: string; expires_in: number; token_type: string }
  })
  return async () => {
    const r = await fetch(`${origin}/public/australian-design-search-api/v1/search/quick`, {
      method: "POST",
      headers: { authorization: await token(), "content-type": "application/json", accept: "application/json" },
      body: searchBody
    })
    if (r.status !== 200) throw new Error(`status ${r.status}`)
    return r.json()
  }
}

/** `concurrency` workers sharing `total` calls of a promise-returning client. */
export const promiseLoop = async (call: () => Promise<unknown>, total: number, concurrency: number) => {
  let started = 0
  const worker = async () => {
    while (started < total) {
      started++
      await call()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/** The toolkit over `transport`: one client, `concurrency` workers sharing `total` quick searches. */
export const toolkitLoop = (
  transport: Layer.Layer<HttpClient.HttpClient>,
  origin: string
) => {
  const runtime = ManagedRuntime.make(
    DesignSearchClient.layer().pipe(
      Layer.provide(transport),
      Layer.provide(Layer.orDie(DesignSearchConfig.layer({
        clientId: "bench",
        clientSecret: "bench",
        authUrl: origin,
        baseUrl: `${origin}/public/australian-design-search-api/v1`
      })))
    )
  )
  return {
    run: (total: number, concurrency: number) =>
      runtime.runPromise(Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        let started = 0
        const worker = Effect.whileLoop({
          while: () => started < total,
          body: () =>
            Effect.suspend(() => {
              started++
              return client.quickSearch({ query: "chair" })
            }),
          step: () => undefined
        })
        yield* Effect.all(Array.from({ length: concurrency }, () => worker), {
          concurrency: "unbounded",
          discard: true
        })
      })),
    dispose: () => runtime.dispose()
  }
}

const measure = async (run: () => Promise<unknown>, total: number): Promise<Measurement> => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  await run()
  const elapsed = performance.now() - start
  const used = process.cpuUsage(cpu)
  return { requestsPerSecond: (total / elapsed) * 1000, cpuMicrosPerRequest: (used.user + used.system) / total }
}

/**
 * Starts the fixed-body server in its own process; resolves with its origin and a stop function.
 * `pinned`: on the server core (bench/cores.ts), away from the measuring process.
 */
export const startFixedServer = (options: { readonly pinned?: boolean } = {}) =>
  new Promise<{ origin: string; stop: () => void }>((resolve, reject) => {
    const child = fork(new URL("./fixedServer.ts", import.meta.url), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "inherit", "ipc"]
    })
    if (options.pinned === true) pinServer(child.pid)
    child.once("error", reject)
    child.stdout?.once(
      "data",
      (data: Buffer) =>
        resolve({ origin: `http://127.0.0.1:${data.toString().trim()}`, stop: () => child.kill("SIGTERM") })
    )
  })

export interface ThroughputResult {
  readonly concurrency: number
  readonly requests: number
  /** Rounds of raw undici and the toolkit over its default transport, side by side. */
  readonly pairedRounds: number
  /** Rounds of the two slow references (fetch, `layerUndici`). */
  readonly rounds: number
  readonly variants: Record<Variant, Measurement & { readonly ratioToUndici: number }>
  /** The default transport's ratio in each paired round, lowest to highest. */
  readonly defaultRatios: ReadonlyArray<number>
}

export interface Options {
  /** Rounds of the slow references (fetch, `layerUndici`). */
  readonly rounds?: number
  /** Rounds of raw undici and the default transport side by side; three times `rounds` unless set. */
  readonly pairedRounds?: number
  readonly requests?: number
}

/** Every variant, in this process pinned to the client core, against a server on the server core. */
export const run = (
  defaultTransport: Layer.Layer<HttpClient.HttpClient>,
  options: Options = {}
): Promise<ReadonlyArray<ThroughputResult>> => asClient(() => measureAll(defaultTransport, options))

const measureAll = async (
  defaultTransport: Layer.Layer<HttpClient.HttpClient>,
  options: Options
): Promise<ReadonlyArray<ThroughputResult>> => {
  const rounds = options.rounds ?? 5
  const pairedRounds = options.pairedRounds ?? rounds * 3
  const server = await startFixedServer({ pinned: true })
  try {
    const undiciCall = undiciClient(server.origin)
    const fetchCall = fetchClient(server.origin)
    const layerUndici = toolkitLoop(NodeHttpClient.layerUndici, server.origin)
    const ours = toolkitLoop(defaultTransport, server.origin)
    const runners: Record<Variant, (total: number, concurrency: number) => Promise<unknown>> = {
      undici: (n, c) => promiseLoop(undiciCall, n, c),
      fetch: (n, c) => promiseLoop(fetchCall, n, c),
      toolkitLayerUndici: layerUndici.run,
      toolkitDefault: ours.run
    }
    const results: Array<ThroughputResult> = []
    for (const concurrency of [1, 64]) {
      const total = options.requests ?? (concurrency === 1 ? 3_000 : 20_000)
      // warm up every variant (connections, JIT, the token) before measuring
      for (const runner of Object.values(runners)) await runner(Math.min(total, 2_000), concurrency)
      const samples: Record<Variant, Array<Measurement>> = {
        undici: [],
        fetch: [],
        toolkitLayerUndici: [],
        toolkitDefault: []
      }
      // Raw undici and the default transport run in pairs, in alternating order, for many more
      // rounds than the slow references: the machine's load moves from one second to the next,
      // and a pair sees the same load.
      const ratios: Array<number> = []
      for (let r = 0; r < pairedRounds; r++) {
        const pair = r % 2 === 0 ? (["undici", "toolkitDefault"] as const) : (["toolkitDefault", "undici"] as const)
        for (const variant of pair) {
          samples[variant].push(await measure(() => runners[variant](total, concurrency), total))
        }
        ratios.push(samples.toolkitDefault[r]!.requestsPerSecond / samples.undici[r]!.requestsPerSecond)
        if (r < rounds) {
          for (const variant of ["fetch", "toolkitLayerUndici"] as const) {
            samples[variant].push(await measure(() => runners[variant](total, concurrency), total))
          }
        }
      }
      const summarize = (variant: Variant) => ({
        requestsPerSecond: round(median(samples[variant].map((s) => s.requestsPerSecond)), 0),
        cpuMicrosPerRequest: round(median(samples[variant].map((s) => s.cpuMicrosPerRequest)), 1)
      })
      const limit = summarize("undici").requestsPerSecond
      const variants = Object.fromEntries((Object.keys(runners) as Array<Variant>).map((v) => {
        const m = summarize(v)
        // the default transport: the median of its paired ratios; the others: against the median
        const ratio = v === "toolkitDefault" ? median(ratios) : m.requestsPerSecond / limit
        return [v, { ...m, ratioToUndici: round(ratio) }]
      })) as ThroughputResult["variants"]
      results.push({
        concurrency,
        requests: total,
        pairedRounds,
        rounds,
        variants,
        defaultRatios: ratios.map((x) => round(x)).sort((a, b) => a - b)
      })
    }
    await layerUndici.dispose()
    await ours.dispose()
    return results
  } finally {
    server.stop()
  }
}
