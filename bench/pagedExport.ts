/**
 * Export by criteria: `design-search export --owner ltd --out FILE` (the built CLI, a child process)
 * against a sandbox served on loopback by this process, two ways side by side in each round, in
 * alternating order:
 *
 * - `paged`: as it runs, a page of 100 designs a request (`POST /page/advanced`);
 * - `perDesign`: the same command with the paged operation refused (one 404, remembered), so one
 *   advanced search and one `GET /design/{n}` per design: what an export cost before pages, the
 *   quick search plus a get per hit.
 *
 * Both export the same designs to a fresh file. The figures are the API requests the sandbox
 * counted per 1,000 designs exported (`pagedExportRequestsPer1000`, goal ≤ 11), and the designs per
 * second of the paged export over the per-design one (`pagedExportVsPerDesign`), medians of the rounds.
 * The CLI's own start (about a second) is in both.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { Sandbox } from "../src/index.js"
import { median, round } from "./stats.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const cliPath = resolve(root, "dist/cli/main.js")
const criteria = ["--owner", "ltd"] as const

type Mode = "paged" | "perDesign"

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.async<{ readonly ms: number; readonly code: number | null; readonly stderr: string }>((resume) => {
    const start = performance.now()
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk))
    child.on("close", (code) => resume(Effect.succeed({ ms: performance.now() - start, code, stderr })))
  })

export interface PagedExportResult {
  readonly rounds: number
  readonly datasetSize: number
  readonly designsExported: number
  readonly command: string
  readonly paged: { readonly requests: number; readonly designsPerSecond: number }
  readonly perDesign: { readonly requests: number; readonly designsPerSecond: number }
  readonly pagedExportRequestsPer1000: number
  readonly perDesignRequestsPer1000: number
  /** Designs/s paged ÷ designs/s per design. */
  readonly pagedExportVsPerDesign: number
  readonly target: number
  readonly met: boolean
}

export const run = (
  options: { readonly rounds?: number; readonly designs?: number } = {}
): Promise<PagedExportResult> => {
  const rounds = options.rounds ?? 3
  const datasetSize = options.designs ?? 10_000
  return Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const served = yield* Sandbox.serve({ designs: datasetSize, resultCap: datasetSize, port: 0 })
    const env = {
      IPAUSTRALIA_CLIENT_ID: served.sandbox.clientId,
      IPAUSTRALIA_CLIENT_SECRET: served.sandbox.clientSecret,
      IPAUSTRALIA_AUTH_URL: served.url,
      IPAUSTRALIA_BASE_URL: served.baseUrl
    }
    const dir = mkdtempSync(join(tmpdir(), "bench-paged-"))
    const samples: Record<Mode, Array<{ requests: number; designs: number; perSecond: number }>> = {
      paged: [],
      perDesign: []
    }
    const once = (mode: Mode) =>
      Effect.gen(function*() {
        const out = join(dir, `${mode}.jsonl`)
        rmSync(out, { force: true })
        if (mode === "perDesign") yield* served.control.injectFault({ target: "page", status: 404, count: 1 })
        const before = (yield* served.control.stats).requests
        const outcome = yield* runCli(["export", ...criteria, "--out", out], env)
        if (outcome.code !== 0) {
          return yield* Effect.die(
            new Error(`export (${mode}) exited ${outcome.code}: ${outcome.stderr.slice(0, 500)}`)
          )
        }
        const after = (yield* served.control.stats).requests
        const requests = (after.search - before.search) + (after.advanced - before.advanced) +
          (after.page - before.page) + (after.design - before.design)
        const designs = readFileSync(out, "utf8").split("\n").filter((line) => line !== "").length
        samples[mode].push({ requests, designs, perSecond: designs / (outcome.ms / 1000) })
      })
    // one unmeasured run of each: disk cache, the sandbox's encoded designs
    yield* once("paged")
    yield* once("perDesign")
    samples.paged.length = 0
    samples.perDesign.length = 0
    for (let r = 0; r < rounds; r++) {
      const order: ReadonlyArray<Mode> = r % 2 === 0 ? ["paged", "perDesign"] : ["perDesign", "paged"]
      for (const mode of order) yield* once(mode)
    }
    rmSync(dir, { recursive: true, force: true })
    const designs = samples.paged[0]?.designs ?? 0
    const summary = (mode: Mode) => ({
      requests: median(samples[mode].map((s) => s.requests)),
      designsPerSecond: round(median(samples[mode].map((s) => s.perSecond)), 0)
    })
    const paged = summary("paged")
    const perDesign = summary("perDesign")
    const per1000 = (requests: number) => round(requests / designs * 1000, 2)
    const target = 11
    return {
      rounds,
      datasetSize,
      designsExported: designs,
      command: `design-search export ${criteria.join(" ")} --out FILE`,
      paged,
      perDesign,
      pagedExportRequestsPer1000: per1000(paged.requests),
      perDesignRequestsPer1000: per1000(perDesign.requests),
      pagedExportVsPerDesign: round(paged.designsPerSecond / perDesign.designsPerSecond, 2),
      target,
      met: per1000(paged.requests) <= target
    }
  })))
}
