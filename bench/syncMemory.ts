/**
 * The mirror's memory as the register grows: the peak resident memory (`maxRSS`) of
 * `design-search sync --status REGISTERED --db FILE` (the built CLI, a fresh SQLite file) against a
 * sandbox of 20,000 designs and one of 200,000, each served by a process of its own. About 55% of a
 * sandbox's designs are registered, so the syncs fetch about 11,000 and 110,000 designs.
 * `syncRssGrowth200kVs20k` is the second peak over the first: a sync whose memory does not grow
 * with the register stays near 1. The same syncs give `syncSpeed200kVs20k`, the designs a second
 * of the second over the first's.
 *
 * `tsx bench/syncMemory.ts serve <designs>` is the served sandbox: it prints its client options as
 * one JSON line.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import type { DesignSearchConfig } from "../src/index.js"
import { Sandbox } from "../src/index.js"
import { round } from "./stats.js"

const cliPath = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url))
/** Loaded before the CLI: writes the process's peak RSS (KB) to file descriptor 3 as it exits. */
const peakRssHook = `data:text/javascript,${
  encodeURIComponent(
    `import { writeSync } from "node:fs"; process.on("exit", () => writeSync(3, String(process.resourceUsage().maxRSS)))`
  )
}`

export interface SyncSample {
  readonly designs: number
  readonly peakRssMB: number
  readonly seconds: number
  /** Designs the sync fetched, as its summary line tells. */
  readonly fetched: number
  /** Designs fetched a second of the whole command, its start included. */
  readonly designsPerSecond: number
}

/** A sandbox of `designs`, served until this process is stopped. */
const serve = (designs: number) =>
  Effect.scoped(Effect.gen(function*() {
    const served = yield* Sandbox.serve({ designs, resultCap: designs, port: 0 })
    process.stdout.write(JSON.stringify(served.clientOptions) + "\n")
    return yield* Effect.never
  }))

/** Starts the served sandbox; resolves with its client options, the process kept until the scope closes. */
const served = (designs: number) =>
  Effect.acquireRelease(
    Effect.async<{ readonly options: DesignSearchConfig.Options; readonly stop: () => void }, Error>((resume) => {
      const args = ["--import", "tsx", fileURLToPath(import.meta.url), "serve", String(designs)]
      const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] })
      let out = ""
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString()
        if (out.includes("\n")) {
          const options = JSON.parse(out.split("\n")[0]!) as DesignSearchConfig.Options
          resume(Effect.succeed({ options, stop: () => child.kill("SIGTERM") }))
        }
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`the sandbox exited with ${code}`))))
    }),
    (server) => Effect.sync(server.stop)
  )

/** One CLI sync against `options`; fails unless it exits with 0. */
const cliSync = (options: DesignSearchConfig.Options) =>
  Effect.async<Omit<SyncSample, "designs">, Error>((resume) => {
    const dir = mkdtempSync(join(tmpdir(), "bench-sync-memory-"))
    const start = performance.now()
    const args = ["--import", peakRssHook, cliPath, "sync", "--status", "REGISTERED", "--db", join(dir, "mirror.db")]
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      IPAUSTRALIA_CLIENT_ID: options.clientId,
      IPAUSTRALIA_CLIENT_SECRET: String(options.clientSecret),
      IPAUSTRALIA_AUTH_URL: options.authUrl ?? "",
      IPAUSTRALIA_BASE_URL: options.baseUrl ?? ""
    }
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe", "pipe"] })
    let stderr = ""
    let peakKB = ""
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdio[3]?.on("data", (d: Buffer) => (peakKB += d.toString()))
    child.once("close", (code) => {
      rmSync(dir, { recursive: true, force: true })
      const seconds = (performance.now() - start) / 1000
      const fetched = Number(/ (\d+) fetched/.exec(stderr)?.[1] ?? Number.NaN)
      resume(
        code === 0 && peakKB !== "" && !Number.isNaN(fetched)
          ? Effect.succeed({
            peakRssMB: round(Number(peakKB) / 1024, 1),
            seconds: round(seconds, 1),
            fetched,
            designsPerSecond: round(fetched / seconds, 0)
          })
          : Effect.fail(new Error(`design-search sync exited with ${code}: ${stderr.slice(-500)}`))
      )
    })
  })

const measure = (designs: number) =>
  Effect.scoped(Effect.flatMap(served(designs), (server) => cliSync(server.options))).pipe(
    Effect.map((sample): SyncSample => ({ designs, ...sample }))
  )

export interface SyncMemoryResult {
  readonly small: SyncSample
  readonly large: SyncSample
  /** Peak RSS of the large sync over the small one's: the median of the rounds' ratios. */
  readonly syncRssGrowth: number
  /** Each round's ratio, lowest to highest. */
  readonly ratios: ReadonlyArray<number>
  readonly target: number
  readonly met: boolean
  /**
   * Designs a second of the large sync over the small one's (`syncSpeed200kVs20k`), the median of
   * the rounds' ratios: a sync whose cost a design does not grow with the register stays near 1.
   */
  readonly syncSpeed: number
  /** Each round's speed ratio, lowest to highest. */
  readonly speedRatios: ReadonlyArray<number>
  readonly speedTarget: number
  readonly speedMet: boolean
}

/**
 * `rounds` rounds of both syncs, side by side; the figure is the median of their ratios, as one
 * peak moves by several MB from run to run with the moment V8 collects.
 */
export const run = (
  options: { readonly small?: number; readonly large?: number; readonly rounds?: number } = {}
): Promise<SyncMemoryResult> =>
  Effect.runPromise(Effect.gen(function*() {
    const rounds: Array<
      { readonly small: SyncSample; readonly large: SyncSample; readonly ratio: number; readonly speed: number }
    > = []
    for (let r = 0; r < (options.rounds ?? 3); r++) {
      const small = yield* measure(options.small ?? 20_000)
      const large = yield* measure(options.large ?? 200_000)
      rounds.push({
        small,
        large,
        ratio: large.peakRssMB / small.peakRssMB,
        speed: large.designsPerSecond / small.designsPerSecond
      })
    }
    const sorted = [...rounds].sort((a, b) => a.ratio - b.ratio)
    const middle = sorted[Math.floor(sorted.length / 2)]!
    const syncRssGrowth = round(middle.ratio)
    const speeds = rounds.map((r) => round(r.speed)).sort((a, b) => a - b)
    const syncSpeed = speeds[Math.floor(speeds.length / 2)]!
    return {
      small: middle.small,
      large: middle.large,
      syncRssGrowth,
      ratios: sorted.map((r) => round(r.ratio)),
      target: 1.25,
      met: syncRssGrowth <= 1.25,
      syncSpeed,
      speedRatios: speeds,
      speedTarget: 0.8,
      speedMet: syncSpeed >= 0.8
    }
  }))

if (process.argv[2] === "serve") {
  Effect.runPromise(serve(Number(process.argv[3])))
}
