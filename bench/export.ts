/**
 * Export: 10,000 full designs through `DesignSearchClient.searchDesigns(request, { concurrency: 16 })`
 * over the default transport (`UndiciHttpClient.layer`), from a sandbox served on loopback (30,000
 * designs, result cap 10,000, the query "ltd"), every design answer 2 ms late. The figure is the
 * ideal wall time `N × latency ÷ concurrency` (1,250 ms) over the measured one: `exportVsIdeal`.
 *
 * The servers run in a process of their own, pinned to a core of its own while this process (every
 * client measured) runs on another (bench/cores.ts), so their CPU is not the client's; nothing on the
 * client side is changed. Three ways of injecting the latency are measured, each with raw
 * `undici.request` at the same concurrency against the same server as a reference (what the server
 * allows):
 *
 * - `proxy` (the headline): the sandbox served by `Sandbox.serve` (port 0), behind a tiny loopback
 *   proxy that holds each design answer for 2 ms from its request's arrival, each to its own
 *   deadline (a queue checked on every turn of the server's event loop), as a network's latency
 *   would. The proxy forwards the token request, the search, and any design request it has not
 *   seen to the sandbox, and answers a design it has already seen from the sandbox's own recorded
 *   answer, for a bearer token the sandbox has accepted. A warm-up export (not measured) records
 *   the 10,000 answers. So the measured rounds get the sandbox's bytes at the rate of the 2 ms
 *   latency, not at the rate the sandbox's Effect HTTP server can compute them (about 250 µs of CPU
 *   each, which on its own caps an export at roughly 4,000 designs/s, below the 8,000/s the ideal
 *   asks for).
 * - `timer`: the same proxy, holding each answer with a plain `setTimeout(2)` instead. Node's timers
 *   work in whole milliseconds and fire late: the answers of the requests that came in within one
 *   millisecond leave together, later than 2 ms, and reach the client's one core in bursts. Reported
 *   to show what that costs every client.
 * - `sandbox`: the same sandbox on a second port of its own server (`src/sandbox/Server.ts`, what
 *   `Sandbox.serve` uses) with its app wrapped to sleep 2 ms before every design answer; every answer computed live
 *   (the sandbox encodes each design's JSON once, so the warm-up primes it). Reported
 *   for reference: here the server's own cost shows.
 *
 * The servers record the delay actually served and their CPU time (for `proxy` that includes the
 * turns of the loop spent watching the deadlines); the ideal at the served delay is reported beside
 * the nominal one. Each contender runs `warmUps` unmeasured exports first: the JIT takes a few
 * exports to settle, and the figure is the steady state.
 *
 * `run` (called by bench/run.ts) starts the server process; this file run with `serve` is it.
 */
import { HttpServerRequest } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Duration, Effect, Layer, Stream } from "effect"
import { fork } from "node:child_process"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { Agent, request as undiciRequest } from "undici"
import { DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import * as Server from "../src/sandbox/Server.js"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"
import { asClient, pinning, pinServer } from "./cores.js"
import type { Pinning } from "./cores.js"
import { median, percentile, round } from "./stats.js"

/** 30,000 generated designs: "ltd" matches about 13,700 of them, capped to the first 10,000. */
const datasetSize = 30_000
const resultCap = 10_000
const query = { query: "ltd" } as const

export type Mode = "proxy" | "timer" | "sandbox"

// ---------------------------------------------------------------------------------------------
// The server process: the plain served sandbox, the proxy in front of it, the delayed sandbox

interface ServerReport {
  readonly designRequests: number
  /** Design requests the proxy answered from a recorded answer (the proxies only). */
  readonly replayed: number
  readonly meanDelayMs: number
  readonly p50DelayMs: number
  readonly p99DelayMs: number
  /** CPU time of the whole server process since the previous report, in ms. */
  readonly cpuMs: number
}

export interface Endpoints extends Record<Mode, { readonly authUrl: string; readonly baseUrl: string }> {
  readonly clientId: string
  readonly clientSecret: string
  readonly report: string
}

/** Holds for `ms` with a Node timer: whole milliseconds, late, and in bursts. */
const timerWait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * Holds for `ms` to the microsecond: the deadlines (in arrival order, as every hold is as long) are
 * checked on every turn of the event loop while any is pending, so the loop polls for I/O without
 * blocking until the last one is released.
 */
const deadlineWait = (() => {
  const pending: Array<{ readonly due: number; readonly release: () => void }> = []
  let watching = false
  const check = () => {
    const now = performance.now()
    while (pending.length > 0 && pending[0]!.due <= now) pending.shift()!.release()
    if (pending.length > 0) setImmediate(check)
    else watching = false
  }
  return (ms: number) =>
    new Promise<void>((release) => {
      pending.push({ due: performance.now() + ms, release })
      if (!watching) {
        watching = true
        setImmediate(check)
      }
    })
})()

const readAll = (request: IncomingMessage) =>
  new Promise<Buffer>((resolveBody, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => resolveBody(Buffer.concat(chunks)))
    request.on("error", reject)
  })

const serve = (latencyMs: number) =>
  Effect.gen(function*() {
    // the sandbox served plainly, by `Sandbox.serve`: what the proxy forwards to
    const plain = yield* Sandbox.serve({ designs: datasetSize, resultCap, port: 0 })
    const sandbox = plain.sandbox
    const delays: Record<Mode, Array<number>> = { proxy: [], timer: [], sandbox: [] }
    const replays: Record<Mode, number> = { proxy: 0, timer: 0, sandbox: 0 }
    let cpu = process.cpuUsage()
    const report = (): Record<Mode, ServerReport> => {
      const used = process.cpuUsage(cpu)
      const of = (mode: Mode): ServerReport => ({
        designRequests: delays[mode].length,
        replayed: replays[mode],
        meanDelayMs: round(delays[mode].reduce((a, b) => a + b, 0) / Math.max(1, delays[mode].length)),
        p50DelayMs: round(median(delays[mode])),
        p99DelayMs: round(percentile(delays[mode], 99)),
        cpuMs: round((used.user + used.system) / 1000, 1)
      })
      const out = { proxy: of("proxy"), timer: of("timer"), sandbox: of("sandbox") }
      for (const mode of ["proxy", "timer", "sandbox"] as const) {
        delays[mode] = []
        replays[mode] = 0
      }
      cpu = process.cpuUsage()
      return out
    }

    // the sandbox's own server, its app delayed before every design answer
    const delayed: HttpApp.Default = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      !request.url.includes("/design/") ? sandbox.app : Effect.suspend(() => {
        const start = performance.now()
        return Effect.sleep(Duration.millis(latencyMs)).pipe(
          Effect.zipRight(Effect.sync(() =>
            void delays.sandbox.push(performance.now() - start)
          )),
          Effect.zipRight(sandbox.app)
        )
      }))
    const direct = yield* Server.serve({ ...sandbox, app: delayed }, { port: 0 })

    // the proxies, sharing the answers they recorded
    const upstream = new Agent({ connections: 64 })
    const recorded = new Map<string, { status: number; contentType: string; body: Buffer }>()
    const accepted = new Set<string>()
    const forward = async (request: IncomingMessage, response: ServerResponse, body: Buffer) => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(request.headers)) {
        if (typeof v === "string" && k !== "host" && k !== "connection" && k !== "keep-alive") headers[k] = v
      }
      const r = await undiciRequest(`${plain.url}${request.url}`, {
        dispatcher: upstream,
        method: request.method as "GET",
        headers,
        ...(body.length > 0 ? { body } : {})
      })
      const answer = Buffer.from(await r.body.arrayBuffer())
      const contentType = String(r.headers["content-type"] ?? "application/json")
      const authorization = request.headers.authorization
      if (r.statusCode === 200 && authorization !== undefined) accepted.add(authorization)
      if (r.statusCode === 200 && request.method === "GET" && request.url?.includes("/design/") === true) {
        recorded.set(request.url, { status: 200, contentType, body: answer })
      }
      response.writeHead(r.statusCode, { "content-type": contentType, "content-length": answer.length })
      response.end(answer)
    }
    const proxy = (mode: "proxy" | "timer", wait: (ms: number) => Promise<void>) =>
      Effect.acquireRelease(
        Effect.async<{ readonly url: string; readonly server: ReturnType<typeof createServer> }>((resume) => {
          const server = createServer((request, response) => {
            void (async () => {
              // the arrival: the hold counts from here, and the body is read within it
              const start = performance.now()
              const held = request.method === "GET" && request.url?.includes("/design/") === true
                ? wait(latencyMs)
                : undefined
              const body = await readAll(request)
              if (request.url?.startsWith("/__bench/report") === true) {
                response.writeHead(200, { "content-type": "application/json" })
                return response.end(JSON.stringify(report()))
              }
              if (held !== undefined) {
                await held
                delays[mode].push(performance.now() - start)
                const hit = recorded.get(request.url!)
                const authorization = request.headers.authorization
                if (hit !== undefined && authorization !== undefined && accepted.has(authorization)) {
                  replays[mode]++
                  response.writeHead(hit.status, { "content-type": hit.contentType, "content-length": hit.body.length })
                  return response.end(hit.body)
                }
              }
              return forward(request, response, body)
            })().catch((e: unknown) => {
              response.writeHead(502, { "content-type": "text/plain" })
              response.end(String(e))
            })
          })
          server.keepAliveTimeout = 60_000
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            const port = typeof address === "object" && address !== null ? address.port : 0
            resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, server }))
          })
        }),
        ({ server }) => Effect.sync(() => server.close())
      )
    const proxies = {
      proxy: (yield* proxy("proxy", deadlineWait)).url,
      timer: (yield* proxy("timer", timerWait)).url
    }
    const endpoints: Endpoints = {
      proxy: { authUrl: proxies.proxy, baseUrl: proxies.proxy + DesignSearchConfig.apiPath },
      timer: { authUrl: proxies.timer, baseUrl: proxies.timer + DesignSearchConfig.apiPath },
      sandbox: { authUrl: direct.url, baseUrl: direct.baseUrl },
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
      report: `${proxies.proxy}/__bench/report`
    }
    process.stdout.write(JSON.stringify(endpoints) + "\n")
    return yield* Effect.never
  })

export const startServer = (latencyMs: number) =>
  new Promise<{ endpoints: Endpoints; stop: () => void }>((resolvePromise, reject) => {
    const child = fork(new URL(import.meta.url), ["serve", String(latencyMs)], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "inherit", "ipc"]
    })
    pinServer(child.pid)
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`export server exited with ${code}`)))
    let out = ""
    child.stdout?.on("data", (data: Buffer) => {
      out += data.toString()
      if (out.includes("\n")) {
        resolvePromise({
          endpoints: JSON.parse(out.split("\n")[0]!),
          stop: () => child.kill("SIGTERM")
        })
      }
    })
  })

// ---------------------------------------------------------------------------------------------
// The client side

export interface Target {
  readonly authUrl: string
  readonly baseUrl: string
  readonly clientId: string
  readonly clientSecret: string
}

export interface Timing {
  readonly designs: number
  /** From the start of the export (token, search, every design) to the last design. */
  readonly wallMs: number
  /** From the search's answer to the last design. */
  readonly designsPhaseMs: number
  readonly clientCpuMicrosPerDesign: number
}

const timed = async (go: (onSearch: () => void) => Promise<number>): Promise<Timing> => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  let searched = start
  const designs = await go(() => void (searched = performance.now()))
  const end = performance.now()
  const used = process.cpuUsage(cpu)
  return {
    designs,
    wallMs: round(end - start, 1),
    designsPhaseMs: round(end - searched, 1),
    clientCpuMicrosPerDesign: round((used.user + used.system) / Math.max(1, designs), 1)
  }
}

/** The toolkit: a fresh client (cold token, new connections), as one run of an export would be. */
export const toolkitExport = (target: Target, concurrency: number) =>
  timed((onSearch) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        return yield* Stream.runCount(
          client.searchDesigns(query, { concurrency, onSearch: () => Effect.sync(onSearch) })
        )
      }).pipe(
        Effect.provide(
          DesignSearchClient.layer().pipe(
            Layer.provide(UndiciHttpClient.layer),
            Layer.provide(Layer.orDie(DesignSearchConfig.layer(target)))
          )
        ),
        Effect.orDie
      )
    )
  )

/** Raw undici, same concurrency, same server: token, search, then every design (results kept in order). */
const undiciExport = (target: Target, concurrency: number) =>
  timed(async (onSearch) => {
    const dispatcher = new Agent()
    try {
      const t = await undiciRequest(`${target.authUrl}${DesignSearchConfig.tokenPath}`, {
        dispatcher,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: target.clientId,
          client_secret: target.clientSecret
        }).toString()
      })
      const token = (await t.body.json()) as { access_token: string; token_type: string }
      const authorization = `${token.token_type} ${token.access_token}`
      const s = await undiciRequest(`${target.baseUrl}/search/quick`, {
        dispatcher,
        method: "POST",
        headers: { authorization, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(query)
      })
      const searched = (await s.body.json()) as {
        data?: { designNumbers: Array<string> }
        designNumbers?: Array<string>
      }
      const numbers = searched.data?.designNumbers ?? searched.designNumbers ?? []
      onSearch()
      const out: Array<unknown> = new Array(numbers.length)
      let next = 0
      const worker = async () => {
        while (next < numbers.length) {
          const i = next++
          const r = await undiciRequest(`${target.baseUrl}/design/${numbers[i]}`, {
            dispatcher,
            headers: { authorization, accept: "application/json" }
          })
          if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`)
          out[i] = await r.body.json()
        }
      }
      await Promise.all(Array.from({ length: concurrency }, worker))
      return out.length
    } finally {
      await dispatcher.close()
    }
  })

const serverReport = async (url: string): Promise<Record<Mode, ServerReport>> => {
  const r = await undiciRequest(url)
  return (await r.body.json()) as Record<Mode, ServerReport>
}

export interface ExportRound {
  readonly toolkit: Timing
  readonly undici: Timing
  readonly toolkitServer: ServerReport
  readonly undiciServer: ServerReport
}

export interface ModeResult {
  readonly wallMs: number
  readonly designsPhaseMs: number
  /** Ideal ÷ measured wall time: 1 is perfect. */
  readonly exportVsIdeal: number
  readonly clientCpuMicrosPerDesign: number
  /** The delay the server actually served (its timer fires late), and the ideal at that delay. */
  readonly servedDelayMeanMs: number
  readonly idealAtServedDelayMs: number
  readonly exportVsIdealAtServedDelay: number
  /** Server process CPU time ÷ wall time of the export: near 1, the server is the limit. */
  readonly serverCpuShareOfWall: number
  readonly undici: {
    readonly wallMs: number
    readonly exportVsIdeal: number
    readonly clientCpuMicrosPerDesign: number
    readonly serverCpuShareOfWall: number
  }
  /** Raw undici wall ÷ toolkit wall: the toolkit's speed as a share of raw undici's. */
  readonly ratioToUndici: number
  readonly samples: ReadonlyArray<ExportRound>
}

export interface ExportResult {
  readonly designs: number
  readonly latencyMs: number
  readonly concurrency: number
  readonly rounds: number
  readonly warmUps: number
  readonly idealMs: number
  /** The headline: the `proxy` mode. */
  readonly exportVsIdeal: number
  readonly target: number
  readonly met: boolean
  readonly pinning: Pinning
  readonly latencyInjection: Record<Mode, string>
  readonly modes: Record<Mode, ModeResult>
}

const measureMode = async (
  mode: Mode,
  endpoints: Endpoints,
  rounds: number,
  warmUps: number,
  concurrency: number,
  idealMs: number
): Promise<ModeResult> => {
  const target: Target = { ...endpoints[mode], clientId: endpoints.clientId, clientSecret: endpoints.clientSecret }
  // warm-up, not measured: the JIT, and (the proxies) the recording of every answer
  for (let w = 0; w < warmUps; w++) {
    await undiciExport(target, concurrency)
    await toolkitExport(target, concurrency)
  }
  await serverReport(endpoints.report)
  const samples: Array<ExportRound> = []
  for (let r = 0; r < rounds; r++) {
    const toolkit = await toolkitExport(target, concurrency)
    const toolkitServer = (await serverReport(endpoints.report))[mode]
    const undici = await undiciExport(target, concurrency)
    const undiciServer = (await serverReport(endpoints.report))[mode]
    for (const t of [toolkit, undici]) {
      if (t.designs !== resultCap) throw new Error(`export returned ${t.designs} designs, expected ${resultCap}`)
    }
    samples.push({ toolkit, undici, toolkitServer, undiciServer })
  }
  const wallMs = median(samples.map((s) => s.toolkit.wallMs))
  const servedDelay = median(samples.map((s) => s.toolkitServer.meanDelayMs))
  const idealAtServed = (resultCap * servedDelay) / concurrency
  const undiciWall = median(samples.map((s) => s.undici.wallMs))
  return {
    wallMs,
    designsPhaseMs: median(samples.map((s) => s.toolkit.designsPhaseMs)),
    exportVsIdeal: round(idealMs / wallMs),
    clientCpuMicrosPerDesign: median(samples.map((s) => s.toolkit.clientCpuMicrosPerDesign)),
    servedDelayMeanMs: servedDelay,
    idealAtServedDelayMs: round(idealAtServed, 1),
    exportVsIdealAtServedDelay: round(idealAtServed / wallMs),
    serverCpuShareOfWall: round(median(samples.map((s) => s.toolkitServer.cpuMs / s.toolkit.wallMs))),
    undici: {
      wallMs: undiciWall,
      exportVsIdeal: round(idealMs / undiciWall),
      clientCpuMicrosPerDesign: median(samples.map((s) => s.undici.clientCpuMicrosPerDesign)),
      serverCpuShareOfWall: round(median(samples.map((s) => s.undiciServer.cpuMs / s.undici.wallMs)))
    },
    ratioToUndici: round(undiciWall / wallMs),
    samples
  }
}

export interface RunOptions {
  readonly rounds?: number
  /** Unmeasured exports of each contender before the measured rounds, per mode. */
  readonly warmUps?: number
  readonly latencyMs?: number
  readonly concurrency?: number
  readonly modes?: ReadonlyArray<Mode>
}

/** Every mode, in this process pinned to the client core, against the server process on the server core. */
export const run = (options: RunOptions = {}): Promise<ExportResult> => asClient(() => measureAll(options))

const measureAll = async (options: RunOptions): Promise<ExportResult> => {
  const rounds = options.rounds ?? 3
  const warmUps = options.warmUps ?? 3
  const latencyMs = options.latencyMs ?? 2
  const concurrency = options.concurrency ?? 16
  const idealMs = (resultCap * latencyMs) / concurrency
  const server = await startServer(latencyMs)
  try {
    const modes: Partial<Record<Mode, ModeResult>> = {}
    for (const mode of options.modes ?? (["proxy", "timer", "sandbox"] as const)) {
      modes[mode] = await measureMode(mode, server.endpoints, rounds, warmUps, concurrency, idealMs)
    }
    const headline = modes.proxy ?? modes.sandbox!
    const target = 0.7
    return {
      designs: resultCap,
      latencyMs,
      concurrency,
      rounds,
      warmUps,
      idealMs,
      exportVsIdeal: headline.exportVsIdeal,
      target,
      met: headline.exportVsIdeal >= target,
      pinning,
      latencyInjection: {
        proxy:
          "headline: Sandbox.serve behind a loopback proxy (both in their own process) that holds each design answer 2 ms from its request's arrival, each to its own deadline, replaying the sandbox's recorded answer for a token the sandbox accepted",
        timer:
          "the same proxy holding each design answer with setTimeout(2): whole milliseconds, late, and the answers of one millisecond leave together",
        sandbox:
          "the sandbox's own server (src/sandbox/Server.ts, own process), its app wrapped to sleep 2 ms before each design answer; answers computed live (each design's JSON encoded once by the sandbox)"
      },
      modes: modes as Record<Mode, ModeResult>
    }
  } finally {
    server.stop()
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href
if (isMain && process.argv[2] === "serve") {
  process.on("SIGTERM", () => process.exit(0))
  process.on("disconnect", () => process.exit(0))
  Effect.runPromise(Effect.scoped(serve(Number(process.argv[3] ?? 2)))).catch((e: unknown) => {
    process.stderr.write(`export server: ${String(e)}\n`)
    process.exit(1)
  })
} else if (isMain) {
  run({ rounds: Number(process.argv[2] ?? 3) }).then((r) =>
    process.stdout.write(JSON.stringify(r, (k, v) => (k === "samples" ? undefined : v), 2) + "\n")
  )
}
