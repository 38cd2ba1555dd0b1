/**
 * `npm run bench`: runs every benchmark, prints a table, writes bench/results.json. Figures are
 * medians over repeated runs, each beside the baseline measured in the same run.
 */
import { writeFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import * as SandboxSearch from "./sandboxSearch.js"

const targets = { sandboxSearchP50Ms: 2 } as const

const main = () => {
  const sandboxSearch = SandboxSearch.run()
  const summary = { sandboxSearchP50Ms: sandboxSearch.p50Ms }
  const rows: Array<[string, string, string, string]> = [
    [
      "sandbox search p50 (200k designs)",
      `${sandboxSearch.p50Ms} ms (p99 ${sandboxSearch.p99Ms} ms)`,
      `scan ${sandboxSearch.scanP50Ms} ms → ×${sandboxSearch.ratioToScan}`,
      sandboxSearch.p50Ms < targets.sandboxSearchP50Ms ? `met (< ${targets.sandboxSearchP50Ms} ms)` : `NOT MET (< ${targets.sandboxSearchP50Ms} ms)`
    ]
  ]
  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version
  }
  writeFileSync(
    new URL("./results.json", import.meta.url),
    JSON.stringify({ date: new Date().toISOString(), machine, summary, benchmarks: { sandboxSearch } }, null, 2) + "\n"
  )
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ["benchmark", "result", "baseline", "target"][i]!.length))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")
  process.stdout.write([line(["benchmark", "result", "baseline", "target"]), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n") + "\n")
  process.stdout.write(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}\n`)
}

main()
