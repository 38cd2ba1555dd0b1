/**
 * CLI start: wall time of `node dist/cli/main.js --help` against `node -e 0` (the floor: starting
 * Node itself), run alternately `rounds` times each after one unmeasured run of each (the disk
 * cache, and the CLI's code cache: `src/cli/launch.ts`). Figures are medians; `cliStartRatio` = CLI
 * ÷ node, with the code cache the first run wrote, as every run after the first finds it;
 * `cliColdStartRatio` the same without it (`DESIGN_SEARCH_NO_CODE_CACHE=1`), as the first run after
 * an install or a Node upgrade starts. Run after `npm run build`. The CLI is started with no
 * `IPAUSTRALIA_*` variables, as a first run at a terminal would be, and a cache folder of its own.
 * Both take the rest of this process's environment, as a user's shell would give it; what that adds
 * to every start (here `NODE_EXTRA_CA_CERTS`, a CA bundle Node reads first) is measured apart:
 * `cliStartRatioBareEnv` is the same ratio with nothing in the environment but `PATH`, `HOME` and
 * the cache folder.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { median, percentile, round } from "./stats.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const cliPath = resolve(root, "dist/cli/main.js")

const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith("IPAUSTRALIA_") && !k.startsWith("DESIGN_SEARCH_"))
)

const time = (args: ReadonlyArray<string>, env: Record<string, string | undefined>) => {
  const start = performance.now()
  const result = spawnSync(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  const ms = performance.now() - start
  if (result.status !== 0) {
    throw new Error(`node ${args.join(" ")} exited with ${result.status}: ${result.stderr.toString().slice(0, 500)}`)
  }
  return { ms, stdoutBytes: result.stdout.length }
}

export interface CliStartResult {
  readonly rounds: number
  readonly command: string
  readonly baselineCommand: string
  readonly cliMs: number
  readonly cliP90Ms: number
  readonly coldCliMs: number
  readonly bareCliMs: number
  readonly nodeMs: number
  readonly bareNodeMs: number
  readonly nodeP90Ms: number
  /** CLI ÷ node: how many Node start-ups the CLI's start costs, with its code cache. */
  readonly cliStartRatio: number
  /** The same without the code cache: a first run. */
  readonly cliColdStartRatio: number
  /** The same with the code cache, in an environment of `PATH`, `HOME` and the cache folder only. */
  readonly cliStartRatioBareEnv: number
  /** CLI − node: what the CLI's own loading adds. */
  readonly overheadMs: number
  readonly samples: {
    readonly cliMs: ReadonlyArray<number>
    readonly coldCliMs: ReadonlyArray<number>
    readonly bareCliMs: ReadonlyArray<number>
    readonly nodeMs: ReadonlyArray<number>
    readonly bareNodeMs: ReadonlyArray<number>
  }
}

export const run = (options: { readonly rounds?: number } = {}): CliStartResult => {
  const rounds = options.rounds ?? 10
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build first`)
  const cacheHome = mkdtempSync(join(tmpdir(), "design-search-bench-"))
  try {
    const warm = { ...baseEnv, XDG_CACHE_HOME: cacheHome }
    const cold = { ...warm, DESIGN_SEARCH_NO_CODE_CACHE: "1" }
    const bare = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CACHE_HOME: cacheHome }
    const cliArgs = [cliPath, "--help"]
    const nodeArgs = ["-e", "0"]
    const help = time(cliArgs, warm)
    if (help.stdoutBytes === 0) throw new Error("design-search --help printed nothing")
    time(nodeArgs, baseEnv)
    const cli: Array<number> = []
    const coldCli: Array<number> = []
    const bareCli: Array<number> = []
    const node: Array<number> = []
    const bareNode: Array<number> = []
    for (let r = 0; r < rounds; r++) {
      cli.push(time(cliArgs, warm).ms)
      node.push(time(nodeArgs, baseEnv).ms)
      coldCli.push(time(cliArgs, cold).ms)
      bareCli.push(time(cliArgs, bare).ms)
      bareNode.push(time(nodeArgs, bare).ms)
    }
    const cliMs = median(cli)
    const coldCliMs = median(coldCli)
    const bareCliMs = median(bareCli)
    const nodeMs = median(node)
    const bareNodeMs = median(bareNode)
    return {
      rounds,
      command: "node dist/cli/main.js --help",
      baselineCommand: "node -e 0",
      cliMs: round(cliMs, 1),
      cliP90Ms: round(percentile(cli, 90), 1),
      coldCliMs: round(coldCliMs, 1),
      bareCliMs: round(bareCliMs, 1),
      nodeMs: round(nodeMs, 1),
      bareNodeMs: round(bareNodeMs, 1),
      nodeP90Ms: round(percentile(node, 90), 1),
      cliStartRatio: round(cliMs / nodeMs, 2),
      cliColdStartRatio: round(coldCliMs / nodeMs, 2),
      cliStartRatioBareEnv: round(bareCliMs / bareNodeMs, 2),
      overheadMs: round(cliMs - nodeMs, 1),
      samples: {
        cliMs: cli.map((v) => round(v, 1)),
        coldCliMs: coldCli.map((v) => round(v, 1)),
        bareCliMs: bareCli.map((v) => round(v, 1)),
        nodeMs: node.map((v) => round(v, 1)),
        bareNodeMs: bareNode.map((v) => round(v, 1))
      }
    }
  } finally {
    rmSync(cacheHome, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.stdout.write(JSON.stringify(run({ rounds: Number(process.argv[2] ?? 10) }), null, 2) + "\n")
}
