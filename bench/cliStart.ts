/**
 * CLI start: wall time of `node dist/cli/main.js --help` against `node -e 0` (the floor: starting
 * Node itself), run alternately `rounds` times each after one unmeasured run of each (disk cache).
 * Figures are medians; `cliStartRatio` = CLI ÷ node. Run after `npm run build`. The CLI is started
 * with no `IPAUSTRALIA_*` variables, as a first run at a terminal would be.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { median, percentile, round } from "./stats.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const cliPath = resolve(root, "dist/cli/main.js")

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("IPAUSTRALIA_")))

const time = (args: ReadonlyArray<string>) => {
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
  readonly nodeMs: number
  readonly nodeP90Ms: number
  /** CLI ÷ node: how many Node start-ups the CLI's start costs. */
  readonly cliStartRatio: number
  /** CLI − node: what the CLI's own loading adds. */
  readonly overheadMs: number
  readonly samples: { readonly cliMs: ReadonlyArray<number>; readonly nodeMs: ReadonlyArray<number> }
}

export const run = (options: { readonly rounds?: number } = {}): CliStartResult => {
  const rounds = options.rounds ?? 10
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build first`)
  const cliArgs = [cliPath, "--help"]
  const nodeArgs = ["-e", "0"]
  const help = time(cliArgs)
  if (help.stdoutBytes === 0) throw new Error("design-search --help printed nothing")
  time(nodeArgs)
  const cli: Array<number> = []
  const node: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    cli.push(time(cliArgs).ms)
    node.push(time(nodeArgs).ms)
  }
  const cliMs = median(cli)
  const nodeMs = median(node)
  return {
    rounds,
    command: "node dist/cli/main.js --help",
    baselineCommand: "node -e 0",
    cliMs: round(cliMs, 1),
    cliP90Ms: round(percentile(cli, 90), 1),
    nodeMs: round(nodeMs, 1),
    nodeP90Ms: round(percentile(node, 90), 1),
    cliStartRatio: round(cliMs / nodeMs, 2),
    overheadMs: round(cliMs - nodeMs, 1),
    samples: { cliMs: cli.map((v) => round(v, 1)), nodeMs: node.map((v) => round(v, 1)) }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.stdout.write(JSON.stringify(run({ rounds: Number(process.argv[2] ?? 10) }), null, 2) + "\n")
}
