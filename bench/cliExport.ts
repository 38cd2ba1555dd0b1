/**
 * The CLI's export against the in-process stream it is built on: `design-search export ltd --out
 * FILE --concurrency C` (the built CLI, a child process on the client core) for the 10,000 designs
 * of the export benchmark's headline server (bench/export.ts: the sandbox behind a loopback proxy
 * that holds each design answer 2 ms, in a process of its own on the server core), beside
 * `searchDesigns` at the same concurrency in this process, same server, same run. Paired rounds in
 * alternating order:
 *
 * - `cliExportC64VsC16`: the CLI's designs/s at concurrency 64 over its designs/s at 16 (goal
 *   ≥ 0.95: more concurrency must not cost the writer its speed);
 * - `cliExportVsStream`: the CLI's designs/s at 16 over `searchDesigns`'s at 16 in this process,
 *   which has exported before (goal ≥ 0.8: what writing the file costs);
 * - `cliExportVsFreshStream`: the same over `searchDesigns`'s at 16 as the first export of a fresh
 *   process (a child of this one, on the same core, under V8's default flags), as the CLI's is:
 *   without V8's warm-up, which a process that has exported before has behind it and the CLI never
 *   has (README, "Where the CPU goes"), the difference is what the CLI adds, its launcher's V8
 *   flags for long commands included.
 *
 * The CLI's time is the one its summary line reports (from its search to its last write, after its
 * start and the opening of the file), the stream's from its token request to its last design.
 */
import { execFile, fork } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { asClient } from "./cores.js"
import { startServer, toolkitExport } from "./export.js"
import type { Target } from "./export.js"
import { median, round } from "./stats.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const cliPath = resolve(root, "dist/cli/main.js")

/** One CLI export into a fresh file: designs written and the seconds its summary line reports. */
const cliExport = (target: Target, concurrency: number, out: string) =>
  new Promise<{ readonly designs: number; readonly seconds: number }>((done, fail) => {
    rmSync(out, { force: true })
    execFile(process.execPath, [cliPath, "export", "ltd", "--out", out, "--concurrency", String(concurrency)], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        IPAUSTRALIA_CLIENT_ID: target.clientId,
        IPAUSTRALIA_CLIENT_SECRET: target.clientSecret,
        IPAUSTRALIA_AUTH_URL: target.authUrl,
        IPAUSTRALIA_BASE_URL: target.baseUrl
      }
    }, (error, _stdout, stderr) => {
      const summary = /^exported (\d+) designs to .* in ([\d.]+)s /m.exec(stderr)
      if (error !== null || summary === null) return fail(new Error(`export failed: ${stderr.slice(0, 500)}`))
      done({ designs: Number(summary[1]), seconds: Number(summary[2]) })
    })
  })

/** `searchDesigns` at `concurrency` as the first export of a fresh process: its designs/s. */
const freshStream = (target: Target, concurrency: number) =>
  new Promise<number>((done, fail) => {
    const child = fork(new URL(import.meta.url), ["stream", JSON.stringify(target), String(concurrency)], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "inherit", "ipc"]
    })
    child.once("error", fail)
    child.once("message", (designsPerSecond) => done(Number(designsPerSecond)))
    child.once("exit", (code) => code === 0 ? undefined : fail(new Error(`the stream's process exited with ${code}`)))
  })

export interface CliExportResult {
  readonly rounds: number
  readonly designs: number
  readonly designsPerSecond: {
    readonly cliC16: number
    readonly cliC64: number
    readonly streamC16: number
    readonly freshStreamC16: number
  }
  readonly cliExportC64VsC16: number
  readonly cliExportVsStream: number
  readonly cliExportVsFreshStream: number
  readonly targets: { readonly cliExportC64VsC16: number; readonly cliExportVsStream: number }
  readonly met: { readonly cliExportC64VsC16: boolean; readonly cliExportVsStream: boolean }
}

export const run = (options: { readonly rounds?: number } = {}): Promise<CliExportResult> =>
  asClient(async () => {
    const rounds = options.rounds ?? 3
    const server = await startServer(2)
    const dir = mkdtempSync(join(tmpdir(), "bench-cli-export-"))
    try {
      const { endpoints } = server
      const target: Target = { ...endpoints.proxy, clientId: endpoints.clientId, clientSecret: endpoints.clientSecret }
      const out = join(dir, "export.jsonl")
      // Unmeasured: the proxy records the sandbox's answers, the JIT settles, the disk cache warms.
      await toolkitExport(target, 16)
      await cliExport(target, 16, out)
      const samples = {
        cliC16: [] as Array<number>,
        cliC64: [] as Array<number>,
        streamC16: [] as Array<number>,
        freshStreamC16: [] as Array<number>
      }
      let designs = 0
      const contenders = {
        cliC16: async () => {
          const r = await cliExport(target, 16, out)
          designs = r.designs
          return r.designs / r.seconds
        },
        cliC64: async () => {
          const r = await cliExport(target, 64, out)
          return r.designs / r.seconds
        },
        streamC16: async () => {
          const t = await toolkitExport(target, 16)
          return t.designs / (t.wallMs / 1000)
        },
        freshStreamC16: () => freshStream(target, 16)
      }
      const names = Object.keys(contenders) as Array<keyof typeof contenders>
      const ratios = { c64VsC16: [] as Array<number>, vsStream: [] as Array<number>, vsFresh: [] as Array<number> }
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? names : [...names].reverse()
        const round: Partial<Record<keyof typeof contenders, number>> = {}
        for (const name of order) round[name] = await contenders[name]()
        for (const name of names) samples[name].push(round[name]!)
        ratios.c64VsC16.push(round.cliC64! / round.cliC16!)
        ratios.vsStream.push(round.cliC16! / round.streamC16!)
        ratios.vsFresh.push(round.cliC16! / round.freshStreamC16!)
      }
      const cliExportC64VsC16 = round(median(ratios.c64VsC16), 3)
      const cliExportVsStream = round(median(ratios.vsStream), 3)
      const cliExportVsFreshStream = round(median(ratios.vsFresh), 3)
      const targets = { cliExportC64VsC16: 0.95, cliExportVsStream: 0.8 }
      return {
        rounds,
        designs,
        designsPerSecond: {
          cliC16: round(median(samples.cliC16), 0),
          cliC64: round(median(samples.cliC64), 0),
          streamC16: round(median(samples.streamC16), 0),
          freshStreamC16: round(median(samples.freshStreamC16), 0)
        },
        cliExportC64VsC16,
        cliExportVsStream,
        cliExportVsFreshStream,
        targets,
        met: {
          cliExportC64VsC16: cliExportC64VsC16 >= targets.cliExportC64VsC16,
          cliExportVsStream: cliExportVsStream >= targets.cliExportVsStream
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
      server.stop()
    }
  })

// The fresh process of `freshStream`: one export, its designs/s sent to the parent.
if (
  process.argv[2] === "stream" && process.send !== undefined && process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(resolve(process.argv[1])).href
) {
  const target = JSON.parse(process.argv[3] ?? "{}") as Target
  const t = await toolkitExport(target, Number(process.argv[4]))
  process.send(t.designs / (t.wallMs / 1000), () => process.exit(0))
}
