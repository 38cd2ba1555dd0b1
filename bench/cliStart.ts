/**
 * CLI start: the wall time of `node dist/cli/main.js --help` against `node -e 0` (starting Node
 * itself) on the machine's Node, alternately `rounds` times each after one unmeasured run of each
 * (the disk cache). `cliStartRatio` is the CLI's median over Node's. The CLI runs with no
 * `IPAUSTRALIA_*` variables, as a first run at a terminal would, with an empty cache folder; Node's
 * own compile cache, where the Node version has one, is left as a user has it. Run after `npm run build`.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { median, round } from "./stats.js"

const cliPath = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url))

const time = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const start = performance.now()
  const result = spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] })
  const ms = performance.now() - start
  if (result.status !== 0 || (args[0] === cliPath && result.stdout.length === 0)) {
    throw new Error(`node ${args.join(" ")} exited with ${result.status}: ${result.stderr.toString().slice(0, 500)}`)
  }
  return ms
}

export interface CliStartResult {
  readonly rounds: number
  readonly cliMs: number
  readonly nodeMs: number
  /** CLI ÷ node: how many Node start-ups the CLI's start costs. */
  readonly cliStartRatio: number
  readonly target: number
  readonly met: boolean
}

/** The environment a benchmark runs the CLI in: no `IPAUSTRALIA_*` or `DESIGN_SEARCH_*` variable, a cache folder of its own. */
export const cliEnv = (cacheHome: string): Record<string, string | undefined> => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("IPAUSTRALIA_") && !k.startsWith("DESIGN_SEARCH_"))
  ),
  XDG_CACHE_HOME: cacheHome
})

export const run = (options: { readonly rounds?: number } = {}): CliStartResult => {
  const rounds = options.rounds ?? 10
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build first`)
  const cacheHome = mkdtempSync(join(tmpdir(), "design-search-bench-"))
  try {
    const env = cliEnv(cacheHome)
    const cli = () => time([cliPath, "--help"], env)
    const node = () => time(["-e", "0"], env)
    cli()
    node()
    const samples = Array.from({ length: rounds }, () => ({ cli: cli(), node: node() }))
    const cliMs = median(samples.map((s) => s.cli))
    const nodeMs = median(samples.map((s) => s.node))
    const ratio = round(cliMs / nodeMs, 2)
    return {
      rounds,
      cliMs: round(cliMs, 1),
      nodeMs: round(nodeMs, 1),
      cliStartRatio: ratio,
      target: 6,
      met: ratio <= 6
    }
  } finally {
    rmSync(cacheHome, { recursive: true, force: true })
  }
}
