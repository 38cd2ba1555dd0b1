/**
 * Memory: the heap after 20,000 and after 200,000 quick searches through one client, on loopback
 * against the fixed-body server (bench/fixedServer.ts), at concurrency 64. Each measurement runs in
 * its own `node --expose-gc` process, which collects garbage (several passes) before every reading;
 * the heap is also read every 20,000 requests so a steady leak shows as a slope, not only as the
 * difference of two readings. The toolkit runs over its default transport (`UndiciHttpClient.layer`);
 * the baseline is the same measure for raw `undici.request` with a hand-rolled token cache.
 *
 * `run` (called by bench/run.ts) starts the server and the measuring processes; this file run with
 * `child <variant> <origin>` is one measuring process, which prints one JSON line.
 */
import { spawn } from "node:child_process"
import { resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { request as undiciRequest } from "undici"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"
import { median, round } from "./stats.js"
import { promiseLoop, startFixedServer, toolkitLoop } from "./throughput.js"

export type Variant = "toolkit" | "undici"

const MB = 1024 * 1024
const concurrency = 64

/** What one measuring process reports. */
export interface Sample {
  readonly variant: Variant
  readonly requests: ReadonlyArray<number>
  /** `heapUsed` in MB after a full collection, at each count of `requests`. */
  readonly heapMB: ReadonlyArray<number>
  readonly rssMB: number
  /** Heap after the last count minus heap after the first. */
  readonly growthMB: number
  /** Least-squares slope of the readings, in KB per 10,000 requests. */
  readonly slopeKBPer10k: number
  readonly seconds: number
}

// ---------------------------------------------------------------------------------------------
// The measuring process

const collect = async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run with node --expose-gc")
  // A few passes, with turns of the event loop between them for finalizers and weak references.
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((r) => setImmediate(r))
  }
  return process.memoryUsage().heapUsed / MB
}

/** Raw undici with a hand-rolled token cache: the baseline. */
const undiciRunner = (origin: string) => {
  let header: string | undefined
  const token = async () => {
    if (header !== undefined) return header
    const r = await undiciRequest(`${origin}/public/external-token-api/v1/access_token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: "grant_type=client_credentials&client_id=bench&client_secret=bench"
    })
    const t = (await r.body.json()) as { access_token: string; token_type: string }
    header = `${t.token_type} ${t.access_token}`
    return header
  }
  const call = async () => {
    const r = await undiciRequest(`${origin}/public/australian-design-search-api/v1/search/quick`, {
      method: "POST",
      headers: { authorization: await token(), "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: "chair" })
    })
    if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`)
    return r.body.json()
  }
  return { run: (total: number) => promiseLoop(call, total, concurrency), dispose: async () => {} }
}

/** The toolkit over its default transport, one client for the whole process. */
const toolkitRunner = (origin: string) => {
  const loop = toolkitLoop(UndiciHttpClient.layer, origin)
  return { run: (total: number) => loop.run(total, concurrency), dispose: loop.dispose }
}

const slope = (xs: ReadonlyArray<number>, ys: ReadonlyArray<number>) => {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my)
    den += (xs[i]! - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

const child = async (variant: Variant, origin: string, first: number, last: number, step: number) => {
  const start = performance.now()
  const runner = variant === "toolkit" ? toolkitRunner(origin) : undiciRunner(origin)
  const requests: Array<number> = []
  const heapMB: Array<number> = []
  let done = 0
  for (let target = first; target <= last; target += step) {
    await runner.run(target - done)
    done = target
    requests.push(done)
    heapMB.push(await collect())
  }
  const rssMB = process.memoryUsage().rss / MB
  await runner.dispose()
  const sample: Sample = {
    variant,
    requests,
    heapMB: heapMB.map((h) => round(h, 3)),
    rssMB: round(rssMB, 1),
    growthMB: round(heapMB[heapMB.length - 1]! - heapMB[0]!, 3),
    slopeKBPer10k: round(slope(requests, heapMB) * 10_000 * 1024, 1),
    seconds: round((performance.now() - start) / 1000, 1)
  }
  // undici's keep-alive sockets would hold the process open for a while: leave once the line is out.
  process.stdout.write(JSON.stringify(sample) + "\n", () => process.exit(0))
}

// ---------------------------------------------------------------------------------------------
// The parent

const spawnChild = (variant: Variant, origin: string, first: number, last: number, step: number) =>
  new Promise<Sample>((resolvePromise, reject) => {
    const proc = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        fileURLToPath(import.meta.url),
        "child",
        variant,
        origin,
        String(first),
        String(last),
        String(step)
      ],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    let out = ""
    proc.stdout.on("data", (d: Buffer) => (out += d.toString()))
    proc.once("error", reject)
    proc.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? ""
      if (code !== 0 || line === "") return reject(new Error(`memory child ${variant} exited with ${code}: ${out}`))
      resolvePromise(JSON.parse(line) as Sample)
    })
  })

export interface MemoryResult {
  readonly rounds: number
  readonly concurrency: number
  readonly requests: { readonly first: number; readonly last: number }
  readonly toolkit: {
    readonly growthMB: number
    readonly slopeKBPer10k: number
    readonly heapFirstMB: number
    readonly heapLastMB: number
  }
  readonly undici: {
    readonly growthMB: number
    readonly slopeKBPer10k: number
    readonly heapFirstMB: number
    readonly heapLastMB: number
  }
  /**
   * Toolkit growth ÷ raw undici growth; `null` when the baseline grows by less than 0.1 MB (or
   * shrinks), where the quotient means nothing: see `growthOverBaselineMB` and `heapRatioToUndici`.
   */
  readonly ratioToUndici: number | null
  readonly growthOverBaselineMB: number
  /** Toolkit heap after the last request ÷ raw undici's. */
  readonly heapRatioToUndici: number
  readonly targetMB: number
  readonly met: boolean
  readonly note: string
  readonly samples: ReadonlyArray<Sample>
}

/**
 * Runs `rounds` measuring processes per variant. The processes of one variant run side by side
 * (heap sizes do not depend on speed, and this keeps the suite within its time budget); the
 * variants run one after the other.
 */
export const run = async (
  options: { readonly rounds?: number; readonly first?: number; readonly last?: number; readonly step?: number } = {}
): Promise<MemoryResult> => {
  const rounds = options.rounds ?? 3
  const first = options.first ?? 20_000
  const last = options.last ?? 200_000
  const step = options.step ?? 20_000
  const server = await startFixedServer()
  const samples: Array<Sample> = []
  try {
    for (const variant of ["undici", "toolkit"] as const) {
      samples.push(
        ...await Promise.all(
          Array.from({ length: rounds }, () => spawnChild(variant, server.origin, first, last, step))
        )
      )
    }
  } finally {
    server.stop()
  }
  const summarize = (variant: Variant) => {
    const of = samples.filter((s) => s.variant === variant)
    return {
      growthMB: round(median(of.map((s) => s.growthMB))),
      slopeKBPer10k: round(median(of.map((s) => s.slopeKBPer10k)), 1),
      heapFirstMB: round(median(of.map((s) => s.heapMB[0]!))),
      heapLastMB: round(median(of.map((s) => s.heapMB[s.heapMB.length - 1]!)))
    }
  }
  const toolkit = summarize("toolkit")
  const undici = summarize("undici")
  const targetMB = 5
  return {
    rounds,
    concurrency,
    requests: { first, last },
    toolkit,
    undici,
    ratioToUndici: undici.growthMB < 0.1 ? null : round(toolkit.growthMB / undici.growthMB),
    growthOverBaselineMB: round(toolkit.growthMB - undici.growthMB),
    heapRatioToUndici: round(toolkit.heapLastMB / undici.heapLastMB),
    targetMB,
    met: toolkit.growthMB < targetMB,
    note: "heapUsed after 4 forced collections; one process per measurement, the rounds of a variant side by side",
    samples
  }
}

if (
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href &&
  process.argv[2] === "child"
) {
  const [, , , variant, origin, first, last, step] = process.argv
  child(variant as Variant, origin!, Number(first), Number(last), Number(step)).catch((e: unknown) => {
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  })
} else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  run({ rounds: Number(process.argv[2] ?? 3), last: Number(process.argv[3] ?? 200_000) }).then((r) =>
    process.stdout.write(JSON.stringify(r, null, 2) + "\n")
  )
}
