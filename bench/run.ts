/**
 * `npm run bench`: runs every benchmark in bench/, prints a table and the `summary`, and writes
 * bench/results.json. Each figure is set against a baseline measured in the same run; a figure
 * that misses its target says NOT MET.
 *
 * The timed benchmarks run alone: the toolkit against a hand-written client (bench/throughput.ts,
 * which pins its server and itself to a core each: bench/cores.ts), the same for the Effect 4
 * edition (bench/effect4/throughput.ts, a process with effect 4), the CLI's start, the sandbox's
 * search. What measures no time runs side by side to keep the run short: the heap (bench/memory.ts),
 * the token economy (counts on simulated time), the sync's peak memory (bench/syncMemory.ts); then
 * the request counts of an export, of a fleet (a `redis-server` of its own) and of a mirror's sync.
 *
 * `tsx bench/run.ts --quick` is a smoke run (few rounds, small sizes): its figures mean nothing.
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { cpus, loadavg, release, totalmem } from "node:os"
import { performance } from "node:perf_hooks"
import * as CliStart from "./cliStart.js"
import { pinning } from "./cores.js"
import * as Fleet from "./fleet.js"
import * as Mcp from "./mcp.js"
import * as Memory from "./memory.js"
import * as PagedExport from "./pagedExport.js"
import * as SandboxSearch from "./sandboxSearch.js"
import { round } from "./stats.js"
import * as Sync from "./sync.js"
import * as SyncMemory from "./syncMemory.js"
import * as Throughput from "./throughput.js"
import * as TokenEconomy from "./tokenEconomy.js"
import * as Watch from "./watch.js"

/** bench/effect4/throughput.ts in its own process, with the Effect 4 edition's own effect. */
const effect4Throughput = (rounds: number, requests: number) =>
  new Promise<Pick<Throughput.ThroughputResult, "fetchC64" | "fetchC1">>((resolve, reject) =>
    execFile(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        "--import",
        "./effect4/register.mjs",
        "bench/effect4/throughput.ts",
        String(rounds),
        String(requests)
      ],
      // tsx reads a tsconfig without `paths`: the build's `imports` pick its edition's modules
      {
        cwd: new URL("..", import.meta.url),
        maxBuffer: 2 ** 20,
        env: { ...process.env, TSX_TSCONFIG_PATH: "bench/effect4/tsconfig.json" }
      },
      (error, stdout) => (error === null ? resolve(JSON.parse(stdout)) : reject(error))
    )
  )

const quick = process.argv.includes("--quick")
const started = performance.now()
const seconds = (from: number) => round((performance.now() - from) / 1000, 1)
const log = (message: string) =>
  process.stderr.write(`[bench ${seconds(started).toFixed(1).padStart(6)} s] ${message}\n`)

const step = async <A>(name: string, f: () => Promise<A> | A): Promise<A & { readonly seconds: number }> => {
  const start = performance.now()
  log(`${name}…`)
  const result = await f()
  log(`${name} done in ${seconds(start)} s`)
  return { ...result, seconds: seconds(start) }
}

/** A headline figure: its value, in words what it is and what it was set against in the same run, its target. */
interface Headline {
  readonly value: number
  readonly measured: string
  readonly result: string
  readonly baseline: string
  readonly target: string
  readonly met: boolean | null
}

const main = async () => {
  const date = new Date().toISOString()
  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform} ${release()}`,
    loadAverageAtStart: loadavg().map((l) => round(l, 2))
  }
  const rounds = quick ? 1 : 3

  const throughput = await step(
    "toolkit against a hand-written client (getDesign over FetchHttpClient: c64, c1; over layerUndici: c64)",
    () => Throughput.run(quick ? { rounds: 2, requests: 1_000 } : { rounds: 21, requests: 1_500 })
  )
  const effect4 = await step(
    "the Effect 4 edition against a hand-written Effect 4 client (getDesign over FetchHttpClient: c64, c1)",
    () => quick ? effect4Throughput(2, 1_000) : effect4Throughput(21, 1_500)
  )
  const [memory, tokens, syncMemory] = await Promise.all([
    step("heap (10k to 100k getDesigns, a process each)", () => Memory.run(quick ? { first: 1_000, last: 3_000 } : {})),
    step(
      "token economy (TestClock: cold, 24 h steady, 24 h idle)",
      () => TokenEconomy.run(quick ? { rounds, hours: 3, coldCalls: 200 } : { rounds })
    ),
    step(
      "sync's peak memory (design-search sync, sandboxes of 20,000 and 200,000 designs served apart)",
      () => SyncMemory.run(quick ? { small: 1_000, large: 10_000, rounds: 1 } : {})
    )
  ])
  const cli = await step(
    "CLI start (design-search --help vs node -e 0)",
    () => CliStart.run({ rounds: quick ? 3 : 10 })
  )
  const paged = await step(
    "export by criteria (CLI, served sandbox: a page of 100 a request vs one request per design)",
    () => PagedExport.run(quick ? { rounds, designs: 2_000 } : { rounds })
  )
  const fleet = await step(
    "fleet token economy (worker processes × cold calls, sharing through redis-server vs each alone)",
    () => Fleet.run(quick ? { rounds, processes: 4, calls: 20 } : { rounds })
  )
  const mirrored = await step(
    "mirror sync into SQLite (served sandbox: 10,000 designs, then 1% changed, beside a full re-export)",
    () => Sync.run(quick ? { rounds, designs: 2_000 } : { rounds })
  )
  const watched = await step(
    "a no-change watch run (two watches, two syncs) over SQLite mirrors of 20,000 and 200,000 designs",
    () => Watch.run(quick ? { small: 2_000, large: 20_000, runs: 3 } : {})
  )
  const mcp = await step(
    "MCP server (design-search mcp on stdio: initialize and tools/list vs node -e 0; answer sizes)",
    () => Mcp.run({ rounds: quick ? 3 : 10 })
  )
  const search = await step(
    "sandbox search (200,000 designs)",
    () => quick ? SandboxSearch.run(20_000, 5) : SandboxSearch.run()
  )

  const { fetchC1, fetchC64, undiciC64 } = throughput
  const { cold, day, idle } = tokens
  const ratio = (a: number, b: number) => (b === 0 ? "—" : `×${round(a / b)}`)
  const headlines: Record<string, Headline> = {
    clientVsHandwrittenC64: {
      value: fetchC64.ratio,
      measured: "getDesign at 64 at once over FetchHttpClient: the toolkit over a hand-written client",
      result: `${fetchC64.toolkit.requestsPerSecond} req/s → ×${fetchC64.ratio} (rounds ${
        fetchC64.ratios.join(", ")
      }); over layerUndici ×${undiciC64.ratio}`,
      baseline:
        `hand-written ${fetchC64.handwritten.requestsPerSecond} req/s (over layerUndici ${undiciC64.handwritten.requestsPerSecond} against the toolkit's ${undiciC64.toolkit.requestsPerSecond})`,
      target: "≥ 0.9",
      met: fetchC64.ratio >= 0.9
    },
    cpuMsPerRequest: {
      value: fetchC1.toolkit.cpuMsPerRequest,
      measured: "the client process's CPU per getDesign, one at a time, over FetchHttpClient",
      result: `${fetchC1.toolkit.cpuMsPerRequest} ms`,
      baseline: `hand-written ${fetchC1.handwritten.cpuMsPerRequest} ms → ${
        ratio(fetchC1.toolkit.cpuMsPerRequest, fetchC1.handwritten.cpuMsPerRequest)
      }`,
      target: "≤ 1 ms",
      met: fetchC1.toolkit.cpuMsPerRequest <= 1
    },
    effect4ClientVsHandwrittenC64: {
      value: effect4.fetchC64.ratio,
      measured: "the same, for the Effect 4 edition against a hand-written Effect 4 client",
      result: `${effect4.fetchC64.toolkit.requestsPerSecond} req/s → ×${effect4.fetchC64.ratio} (rounds ${
        effect4.fetchC64.ratios.join(", ")
      })`,
      baseline: `hand-written ${effect4.fetchC64.handwritten.requestsPerSecond} req/s`,
      target: "≥ 0.9",
      met: effect4.fetchC64.ratio >= 0.9
    },
    effect4CpuMsPerRequest: {
      value: effect4.fetchC1.toolkit.cpuMsPerRequest,
      measured: "the same, for the Effect 4 edition",
      result: `${effect4.fetchC1.toolkit.cpuMsPerRequest} ms (Effect 3 edition ${fetchC1.toolkit.cpuMsPerRequest} ms)`,
      baseline: `hand-written Effect 4 ${effect4.fetchC1.handwritten.cpuMsPerRequest} ms → ${
        ratio(effect4.fetchC1.toolkit.cpuMsPerRequest, effect4.fetchC1.handwritten.cpuMsPerRequest)
      }`,
      target: "≤ 1 ms",
      met: effect4.fetchC1.toolkit.cpuMsPerRequest <= 1
    },
    syncRssGrowth200kVs20k: {
      value: syncMemory.syncRssGrowth,
      measured:
        `peak RSS of design-search sync --status REGISTERED, ${syncMemory.large.designs} designs against ${syncMemory.small.designs}`,
      result: `${syncMemory.large.peakRssMB} MB (${syncMemory.large.seconds} s) → ×${syncMemory.syncRssGrowth}`,
      baseline: `${syncMemory.small.peakRssMB} MB (${syncMemory.small.seconds} s)`,
      target: "≤ 1.25",
      met: syncMemory.met
    },
    syncSpeed200kVs20k: {
      value: syncMemory.syncSpeed,
      measured:
        `designs/s of design-search sync --status REGISTERED, ${syncMemory.large.designs} designs against ${syncMemory.small.designs}`,
      result: `${syncMemory.large.designsPerSecond} designs/s → ×${syncMemory.syncSpeed} (rounds ${
        syncMemory.speedRatios.join(", ")
      })`,
      baseline: `${syncMemory.small.designsPerSecond} designs/s`,
      target: `≥ ${syncMemory.speedTarget}`,
      met: syncMemory.speedMet
    },
    watchRun200kVs20k: {
      value: watched.watchRun200kVs20k,
      measured:
        `a no-change run of two watches (${watched.large.requests} requests), a mirror of ${watched.large.designs} designs against ${watched.small.designs}`,
      result: `${watched.large.runMs} ms → ×${watched.watchRun200kVs20k}`,
      baseline: `${watched.small.runMs} ms`,
      target: `≤ ${watched.target}`,
      met: watched.met
    },
    cliStartRatio: {
      value: cli.cliStartRatio,
      measured: "CLI start, design-search --help, no code cache of its own",
      result: `${cli.cliMs} ms → ×${cli.cliStartRatio}`,
      baseline: `node -e 0 ${cli.nodeMs} ms`,
      target: "≤ 6",
      met: cli.met
    },
    pagedExportRequestsPer1000: {
      value: paged.pagedExportRequestsPer1000,
      measured: `export by criteria, ${paged.designsExported} designs (${paged.command})`,
      result:
        `${paged.paged.requests} requests (${paged.pagedExportRequestsPer1000} per 1,000), ${paged.paged.designsPerSecond} designs/s`,
      baseline: `a get per design: ${paged.perDesign.requests} requests, ${paged.perDesign.designsPerSecond} designs/s`,
      target: `≤ ${paged.target}`,
      met: paged.met
    },
    syncIncrementalVsFullRequests: {
      value: mirrored.syncIncrementalVsFullRequests,
      measured: `mirror sync, ${mirrored.datasetSize} designs, then ${mirrored.changed} changed`,
      result:
        `first ${mirrored.full.requests} requests (${mirrored.full.designsPerSecond} designs/s); then ${mirrored.incremental.requests} → ×${mirrored.syncIncrementalVsFullRequests}`,
      baseline: `a full re-export: ${mirrored.reExport.requests} requests`,
      target: `≤ ${mirrored.target}`,
      met: mirrored.met
    },
    coldTokenRequests: {
      value: cold.tokenRequests,
      measured: `token requests of ${cold.calls} concurrent cold calls`,
      result: String(cold.tokenRequests),
      baseline: `no cache: ${cold.baselineNoCache}`,
      target: cold.target,
      met: cold.met
    },
    dayTokenRequests: {
      value: day.tokenRequests,
      measured: `token requests in ${day.simulatedHours} h, a call a minute`,
      result: `${day.tokenRequests} (${day.refreshes} refreshes)`,
      baseline:
        `${day.simulatedHours} h ÷ ${tokens.tokenLifetimeHours} h = ${day.baselineLifetimes}; a lazy cache ${day.baselineLazyCache}`,
      target: day.target,
      met: day.met
    },
    waitsAfterWarmup: {
      value: day.waitsAfterWarmup,
      measured: "calls that waited on a token after the first",
      result: String(day.waitsAfterWarmup),
      baseline: `a lazy cache: ${day.baselineLazyCacheWaitsAfterWarmup}`,
      target: day.waitsTarget,
      met: day.waitsMet
    },
    idleExtraTokenRequests: {
      value: idle.extraTokenRequests,
      measured: `token requests in ${idle.idleHours} idle h after one call`,
      result: String(idle.extraTokenRequests),
      baseline: `a timer that always refreshes: ${idle.baselineTimerRefresh}`,
      target: idle.target,
      met: idle.met
    },
    fleetTokenRequests: {
      value: fleet.shared,
      measured: `token requests of ${fleet.processes} processes × ${fleet.calls} cold calls through redis-server`,
      result: `${fleet.shared}, ${fleet.failedCalls} failed call(s)`,
      baseline: `each process alone: ${fleet.alone}`,
      target: "= 1, no failed call",
      met: fleet.shared === 1 && fleet.failedCalls === 0
    },
    heapGrowthMB: {
      value: memory.toolkit.growthMB,
      measured: `heap growth, ${memory.requests.first / 1000}k → ${memory.requests.last / 1000}k getDesigns`,
      result: `${memory.toolkit.growthMB} MB (${memory.toolkit.slopeKBPer10k} KB per 10k)`,
      baseline: `hand-written ${memory.handwritten.growthMB} MB (${memory.handwritten.slopeKBPer10k} KB per 10k)`,
      target: `< ${memory.targetMB} MB`,
      met: memory.met
    },
    sandboxSearchP50Ms: {
      value: search.p50Ms,
      measured: `sandbox search p50, ${search.designs / 1000}k designs`,
      result: `${search.p50Ms} ms (p99 ${search.p99Ms} ms)`,
      baseline: `a linear scan ${search.scanP50Ms} ms`,
      target: "< 2 ms",
      met: search.p50Ms < 2
    },
    mcpStartRatio: {
      value: mcp.mcpStartRatio,
      measured: "design-search mcp: spawned to its answers to initialize and tools/list",
      result: `${mcp.startMs} ms → ×${mcp.mcpStartRatio}`,
      baseline: `node -e 0 ${mcp.nodeMs} ms`,
      target: `≤ ${mcp.targets.start}`,
      met: mcp.met.start
    },
    mcpSearchAnswerBytes20: {
      value: mcp.mcpSearchAnswerBytes20,
      measured: "search_designs of 20 hits: its result, text and structured content",
      result: `${mcp.mcpSearchAnswerBytes20} bytes`,
      baseline: "—",
      target: `≤ ${mcp.targets.search}`,
      met: mcp.met.search
    },
    mcpDesignAnswerBytes: {
      value: mcp.mcpDesignAnswerBytes,
      measured: "get_design: the largest result of those 20 designs",
      result: `${mcp.mcpDesignAnswerBytes} bytes`,
      baseline: "—",
      target: `≤ ${mcp.targets.design}`,
      met: mcp.met.design
    }
  }
  const summary = Object.fromEntries(Object.entries(headlines).map(([k, h]) => [k, h.value]))

  const durationSeconds = seconds(started)
  // A load average at start above half the cores means something else was running: timings suffer.
  const busy = machine.loadAverageAtStart[0]! > machine.cores / 2
  const results = {
    date,
    machine: { ...machine, loadAverageAtEnd: loadavg().map((l) => round(l, 2)) },
    busyMachineWarning: busy,
    pinning,
    quick,
    durationSeconds,
    summary,
    headlines,
    benchmarks: {
      throughput,
      effect4Throughput: effect4,
      memory,
      tokenEconomy: tokens,
      syncMemory,
      cliStart: cli,
      pagedExport: paged,
      fleet,
      sync: mirrored,
      watch: watched,
      sandboxSearch: search
    }
  }
  writeFileSync(new URL("./results.json", import.meta.url), JSON.stringify(results, null, 2) + "\n")

  const verdict = (h: Headline) => (h.met === null ? h.target : `${h.met ? "met" : "NOT MET"} (${h.target})`)
  const rows = [
    ["figure", "what", "result", "baseline, same run", "target"],
    ...Object.entries(headlines).map(([name, h]) => [name, h.measured, h.result, h.baseline, verdict(h)])
  ]
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ").trimEnd()
  const out = [
    line(rows[0]!),
    widths.map((w) => "-".repeat(w)).join("-|-"),
    ...rows.slice(1).map(line),
    "",
    `summary: ${JSON.stringify(summary)}`,
    `not met: ${Object.entries(headlines).filter(([, h]) => h.met === false).map(([k]) => k).join(", ") || "none"}`,
    `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}; ${date}`,
    `throughput: ${pinning.note}; whole run ${durationSeconds} s; details in bench/results.json`
  ]
  if (busy) {
    out.push(
      `WARNING: the machine was busy before the run (1-minute load average ${
        machine.loadAverageAtStart[0]
      } on ${machine.cores} cores): timing figures are unreliable`
    )
  }
  if (quick) out.push("QUICK SMOKE RUN: sizes and rounds cut down, figures are not meaningful")
  process.stdout.write(out.join("\n") + "\n")
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exit(1)
})
