/**
 * Memory: the heap after 10,000 and every 10,000 after, to 100,000 `getDesign`s through one client at
 * 64 at once, over `FetchHttpClient.layer`, against the fixed-body server (bench/fixedServer.ts).
 * The toolkit and the hand-written client (bench/handwritten.ts), the baseline, each run in a
 * `node --expose-gc` process of their own, side by side, which collects garbage (several passes)
 * before every reading; `heapGrowthMB` is the toolkit's heap after the last reading less after the
 * first, and the slope of all the readings says whether a steady leak hides in between.
 *
 * `tsx bench/memory.ts child <contender> <origin> <first> <last>` is one measuring process: it
 * prints one JSON line.
 */
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { round } from "./stats.js"
import { type Contender, contenders, fixedServer, loop } from "./throughput.js"

const MB = 1024 * 1024

/** What one measuring process reports: `heapUsed` in MB after a full collection, at each count of `requests`. */
export interface Sample {
  readonly contender: Contender
  readonly requests: ReadonlyArray<number>
  readonly heapMB: ReadonlyArray<number>
  readonly growthMB: number
  /** Least-squares slope of the readings, in KB per 10,000 requests. */
  readonly slopeKBPer10k: number
}

const collect = Effect.promise(async () => {
  const gc = (globalThis as { gc?: () => void }).gc!
  // a few passes, with turns of the event loop between them for finalizers and weak references
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((r) => setImmediate(r))
  }
  return process.memoryUsage().heapUsed / MB
})

const slope = (xs: ReadonlyArray<number>, ys: ReadonlyArray<number>) => {
  const mean = (vs: ReadonlyArray<number>) => vs.reduce((a, b) => a + b, 0) / vs.length
  const mx = mean(xs)
  const my = mean(ys)
  const num = xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i]! - my), 0)
  const den = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0)
  return den === 0 ? 0 : num / den
}

const child = (contender: Contender, origin: string, first: number, last: number) =>
  Effect.scoped(Effect.gen(function*() {
    const call = (yield* contenders(origin, FetchHttpClient.layer))[contender]
    const requests: Array<number> = []
    const heapMB: Array<number> = []
    for (let done = 0; done < last; done += first) {
      yield* loop(call, first, 64)
      requests.push(done + first)
      heapMB.push(yield* collect)
    }
    return {
      contender,
      requests,
      heapMB: heapMB.map((h) => round(h)),
      growthMB: round(heapMB[heapMB.length - 1]! - heapMB[0]!),
      slopeKBPer10k: round(slope(requests, heapMB) * 10_000 * 1024, 1)
    } satisfies Sample
  }))

const spawnChild = (contender: Contender, origin: string, first: number, last: number) =>
  Effect.async<Sample, Error>((resume) => {
    const args = ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "child", contender, origin]
    const proc = spawn(process.execPath, [...args, String(first), String(last)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    proc.stdout.on("data", (d: Buffer) => (out += d.toString()))
    proc.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? ""
      resume(
        code === 0 && line !== ""
          ? Effect.succeed(JSON.parse(line) as Sample)
          : Effect.fail(new Error(`memory child ${contender} exited with ${code}: ${out}`))
      )
    })
  })

export interface MemoryResult {
  readonly requests: { readonly first: number; readonly last: number }
  readonly toolkit: Sample
  readonly handwritten: Sample
  readonly targetMB: number
  readonly met: boolean
}

export const run = (options: { readonly first?: number; readonly last?: number } = {}): Promise<MemoryResult> => {
  const { first = 10_000, last = 100_000 } = options
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { origin } = yield* fixedServer()
    const [toolkit, handwritten] = yield* Effect.all(
      [spawnChild("toolkit", origin, first, last), spawnChild("handwritten", origin, first, last)],
      { concurrency: 2 }
    )
    return { requests: { first, last }, toolkit, handwritten, targetMB: 5, met: toolkit.growthMB < 5 }
  })))
}

if (process.argv[2] === "child") {
  const [contender, origin, first, last] = process.argv.slice(3)
  Effect.runPromise(child(contender as Contender, origin!, Number(first), Number(last))).then(
    (sample) => process.stdout.write(JSON.stringify(sample) + "\n", () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`)
      process.exit(1)
    }
  )
}
