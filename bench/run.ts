/**
 * `npm run bench`: runs every benchmark in bench/, prints a table and writes bench/results.json.
 * Each figure is a median over repeated runs, beside a baseline measured in the same run and its
 * ratio to it; a figure that misses its target says NOT MET.
 *
 * Order: the timed benchmarks run alone (throughput, export, CLI start). Memory (heap sizes, in
 * processes of its own) and token economy (counts on simulated time) measure no time, so they run
 * side by side to keep the suite within its budget. The fleet token economy (counts again, from
 * worker processes and a `redis-server` of its own; `scripts/ensure-redis-server.sh` installs one)
 * runs next, then the sandbox search, which builds a 200,000-design index in this process. The
 * export by criteria (CLI child processes against a sandbox this process serves) runs after CLI start.
 *
 * The throughput and export benchmarks pin their server process to one core and every client they
 * measure to another (bench/cores.ts), so a client's figure is not a share of its server's core.
 *
 * `tsx bench/run.ts --quick` is a smoke run (1 round, small sizes): its figures mean nothing.
 */
import { writeFileSync } from "node:fs"
import { cpus, loadavg, release, totalmem } from "node:os"
import { performance } from "node:perf_hooks"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"
import * as CliExport from "./cliExport.js"
import * as CliStart from "./cliStart.js"
import { pinning } from "./cores.js"
import * as Export from "./export.js"
import * as Fleet from "./fleet.js"
import * as Memory from "./memory.js"
import * as PagedExport from "./pagedExport.js"
import * as SandboxSearch from "./sandboxSearch.js"
import { round } from "./stats.js"
import * as Sync from "./sync.js"
import * as Throughput from "./throughput.js"
import * as TokenEconomy from "./tokenEconomy.js"

const quick = process.argv.includes("--quick")
const started = performance.now()
const seconds = (from: number) => round((performance.now() - from) / 1000, 1)
const log = (message: string) =>
  process.stderr.write(`[bench ${seconds(started).toFixed(1).padStart(6)} s] ${message}\n`)

const timedStep = async <A>(name: string, f: () => Promise<A> | A): Promise<{ result: A; seconds: number }> => {
  const start = performance.now()
  log(`${name}…`)
  const result = await f()
  log(`${name} done in ${seconds(start)} s`)
  return { result, seconds: seconds(start) }
}

/** A headline figure: its value (median), the baseline of the same run, their ratio, and whether it meets its target. */
interface Headline {
  readonly value: number
  readonly baseline: number
  readonly baselineIs: string
  readonly ratio: number | null
  readonly target: string
  readonly met: boolean | null
}

const verdict = (
  met: boolean | null,
  target: string
) => (met === null ? `(${target})` : met ? `met (${target})` : `NOT MET (${target})`)
const ratioOf = (value: number, baseline: number) => (baseline === 0 ? null : round(value / baseline))
const fmt = (n: number, digits = 3) => String(round(n, digits))

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

  const throughput = await timedStep(
    "throughput (raw undici, fetch, toolkit over layerUndici and the default transport; c1, c64)",
    () => Throughput.run(UndiciHttpClient.layer, quick ? { rounds, requests: 1_000 } : { rounds })
  )
  const exported = await timedStep(
    "export (10,000 designs, 2 ms latency, concurrency 16)",
    () => Export.run(quick ? { rounds, warmUps: 1, modes: ["proxy"] } : { rounds })
  )
  const [memory, tokens] = await Promise.all([
    timedStep(
      "memory (heap after 20k and 200k requests; one process each)",
      () => Memory.run(quick ? { rounds: 2, first: 2_000, last: 6_000, step: 2_000 } : { rounds })
    ),
    timedStep(
      "token economy (TestClock: cold, 24 h steady, 24 h idle)",
      () => TokenEconomy.run(quick ? { rounds, hours: 3, coldCalls: 200 } : { rounds })
    )
  ])
  const cli = await timedStep(
    "CLI start (node dist/cli/main.js --help vs node -e 0)",
    () => CliStart.run({ rounds: quick ? 3 : 10 })
  )
  const cliExport = await timedStep(
    "CLI export (10,000 designs, 2 ms latency: the CLI at concurrency 16 and 64, searchDesigns at 16)",
    () => CliExport.run({ rounds })
  )
  const paged = await timedStep(
    "export by criteria (CLI, served sandbox: a page of 100 a request vs one request per design)",
    () => PagedExport.run(quick ? { rounds, designs: 2_000 } : { rounds })
  )
  const fleet = await timedStep(
    "fleet token economy (worker processes × cold calls, sharing through redis-server vs each alone)",
    () => Fleet.run(quick ? { rounds, processes: 4, calls: 20 } : { rounds })
  )
  const mirrored = await timedStep(
    "mirror sync into SQLite (served sandbox: 10,000 designs, then 1% changed, beside a full re-export)",
    () => Sync.run(quick ? { rounds, designs: 2_000 } : { rounds })
  )
  const search = await timedStep(
    "sandbox search (200,000 designs)",
    () => quick ? SandboxSearch.run(20_000, 5) : SandboxSearch.run()
  )

  // -------------------------------------------------------------------------------------------
  // Headline figures

  const atC64 = throughput.result.find((r) => r.concurrency === 64)!
  const t = tokens.result
  const m = memory.result
  const e = exported.result
  const s = search.result
  const c = cli.result
  const f = fleet.result
  const p = paged.result
  const x = cliExport.result
  const y = mirrored.result
  const headlines = {
    transportRatioC64: {
      value: atC64.variants.toolkitDefault.ratioToUndici,
      baseline: atC64.variants.undici.requestsPerSecond,
      baselineIs:
        "raw undici requests/s at concurrency 64 (the value is already the ratio to it: the median of the paired rounds' ratios)",
      ratio: atC64.variants.toolkitDefault.ratioToUndici,
      target: "≥ 0.8",
      met: atC64.variants.toolkitDefault.ratioToUndici >= 0.8
    },
    fetchRatioC64: {
      value: atC64.variants.fetch.ratioToUndici,
      baseline: atC64.variants.undici.requestsPerSecond,
      baselineIs: "raw undici requests/s at concurrency 64 (the value is already the ratio to it)",
      ratio: atC64.variants.fetch.ratioToUndici,
      target: "none (reference)",
      met: null
    },
    coldTokenRequests: {
      value: t.cold.tokenRequests,
      baseline: t.cold.baselineNoCache,
      baselineIs: `a client with no token cache, ${t.cold.calls} concurrent calls (measured)`,
      ratio: ratioOf(t.cold.tokenRequests, t.cold.baselineNoCache),
      target: t.cold.target,
      met: t.cold.met
    },
    dayTokenRequests: {
      value: t.day.tokenRequests,
      baseline: t.day.baselineLifetimes,
      baselineIs:
        `${t.day.simulatedHours} h ÷ ${t.tokenLifetimeHours} h token lifetime (a lazy cache measured ${t.day.baselineLazyCache})`,
      ratio: ratioOf(t.day.tokenRequests, t.day.baselineLifetimes),
      target: t.day.target,
      met: t.day.met
    },
    waitsAfterWarmup: {
      value: t.day.waitsAfterWarmup,
      baseline: t.day.baselineLazyCacheWaitsAfterWarmup,
      baselineIs: "a lazy cache (fetch on expiry), same traffic (measured)",
      ratio: ratioOf(t.day.waitsAfterWarmup, t.day.baselineLazyCacheWaitsAfterWarmup),
      target: t.day.waitsTarget,
      met: t.day.waitsMet
    },
    idleExtraTokenRequests: {
      value: t.idle.extraTokenRequests,
      baseline: t.idle.baselineTimerRefresh,
      baselineIs: "a cache refreshed on a timer whether used or not (measured)",
      ratio: ratioOf(t.idle.extraTokenRequests, t.idle.baselineTimerRefresh),
      target: t.idle.target,
      met: t.idle.met
    },
    heapGrowthMB: {
      value: m.toolkit.growthMB,
      baseline: m.undici.growthMB,
      baselineIs: "raw undici, same requests (heap growth; its heap after 200k is the ratio's base)",
      ratio: m.heapRatioToUndici,
      target: `< ${m.targetMB} MB`,
      met: m.met
    },
    exportVsIdeal: {
      value: e.exportVsIdeal,
      baseline: e.idealMs,
      baselineIs: "the ideal N × latency ÷ concurrency, in ms (the value is already ideal ÷ actual)",
      ratio: e.exportVsIdeal,
      target: `≥ ${e.target}`,
      met: e.met
    },
    sandboxSearchP50Ms: {
      value: s.p50Ms,
      baseline: s.scanP50Ms,
      baselineIs: "p50 of a linear scan of the same designs, in ms",
      ratio: s.ratioToScan,
      target: "< 2 ms",
      met: s.p50Ms < 2
    },
    fleetTokenRequests: {
      value: f.shared,
      baseline: f.alone,
      baselineIs:
        `the same ${f.processes} processes × ${f.calls} cold calls, each alone with the in-memory default (measured)`,
      ratio: ratioOf(f.shared, f.alone),
      target: "= 1, no failed call",
      met: f.shared === 1 && f.failedCalls === 0
    },
    pagedExportRequestsPer1000: {
      value: p.pagedExportRequestsPer1000,
      baseline: p.perDesignRequestsPer1000,
      baselineIs: "the same export with the paged search refused: an advanced search and a get per design (measured)",
      ratio: ratioOf(p.pagedExportRequestsPer1000, p.perDesignRequestsPer1000),
      target: `≤ ${p.target}`,
      met: p.met
    },
    pagedExportVsPerDesign: {
      value: p.pagedExportVsPerDesign,
      baseline: p.perDesign.designsPerSecond,
      baselineIs: "designs/s of the same export, one request per design, same run (the value is already the ratio)",
      ratio: p.pagedExportVsPerDesign,
      target: "none (reported)",
      met: null
    },
    cliExportC64VsC16: {
      value: x.cliExportC64VsC16,
      baseline: x.designsPerSecond.cliC16,
      baselineIs:
        "designs/s of the CLI's export at concurrency 16, same run (the value is already the ratio, a median of paired rounds)",
      ratio: x.cliExportC64VsC16,
      target: `≥ ${x.targets.cliExportC64VsC16}`,
      met: x.met.cliExportC64VsC16
    },
    cliExportVsStream: {
      value: x.cliExportVsStream,
      baseline: x.designsPerSecond.streamC16,
      baselineIs:
        "designs/s of searchDesigns in process at concurrency 16, same server, same run (the value is already the ratio)",
      ratio: x.cliExportVsStream,
      target: `≥ ${x.targets.cliExportVsStream}`,
      met: x.met.cliExportVsStream
    },
    cliExportVsFreshStream: {
      value: x.cliExportVsFreshStream,
      baseline: x.designsPerSecond.freshStreamC16,
      baselineIs:
        "designs/s of searchDesigns at concurrency 16 as the first export of a fresh process, as the CLI's is, same server, same run (the value is already the ratio)",
      ratio: x.cliExportVsFreshStream,
      target: "none (reported)",
      met: null
    },
    syncIncrementalVsFullRequests: {
      value: y.syncIncrementalVsFullRequests,
      baseline: y.reExport.requests,
      baselineIs:
        `requests of a full re-export of the same ${y.datasetSize} designs (the value is already the incremental sync's requests over it)`,
      ratio: y.syncIncrementalVsFullRequests,
      target: `≤ ${y.target}`,
      met: y.met
    },
    syncDesignsPerSecond: {
      value: y.full.designsPerSecond,
      baseline: y.full.requests,
      baselineIs: "requests of that first sync (a page of 100 each, and the listing search)",
      ratio: null,
      target: "none (reported)",
      met: null
    },
    cliStartRatio: {
      value: c.cliStartRatio,
      baseline: c.nodeMs,
      baselineIs: "`node -e 0`, in ms (the value is already the ratio to it)",
      ratio: c.cliStartRatio,
      target: "≤ 3",
      met: c.cliStartRatio <= 3
    },
    cliColdStartRatio: {
      value: c.cliColdStartRatio,
      baseline: c.nodeMs,
      baselineIs: "`node -e 0`, in ms (the value is already the ratio to it); the first run, no code cache",
      ratio: c.cliColdStartRatio,
      target: "none (reported)",
      met: null
    },
    cliStartRatioBareEnv: {
      value: c.cliStartRatioBareEnv,
      baseline: c.bareNodeMs,
      baselineIs:
        "`node -e 0` in an environment of PATH, HOME and the cache folder only, in ms (the value is already the ratio to it)",
      ratio: c.cliStartRatioBareEnv,
      target: "none (reported)",
      met: null
    }
  } satisfies Record<string, Headline>
  const summary = Object.fromEntries(Object.entries(headlines).map(([k, h]) => [k, h.value])) as Record<
    keyof typeof headlines,
    number
  >

  // -------------------------------------------------------------------------------------------
  // The table

  const rows: Array<[string, string, string, string]> = []
  const labels: Record<Throughput.Variant, string> = {
    undici: "raw undici",
    fetch: "fetch (hand-written)",
    toolkitLayerUndici: "toolkit over NodeHttpClient.layerUndici",
    toolkitDefault: "toolkit over default transport"
  }
  for (const r of throughput.result) {
    const base = r.variants.undici
    for (const v of ["fetch", "toolkitLayerUndici", "toolkitDefault"] as const) {
      const x = r.variants[v]
      const headline = r.concurrency === 64 && v === "toolkitDefault"
      rows.push([
        `throughput c${r.concurrency}: ${labels[v]}`,
        `${x.requestsPerSecond} req/s, ${x.cpuMicrosPerRequest} µs CPU/req`,
        `raw undici ${base.requestsPerSecond} req/s, ${base.cpuMicrosPerRequest} µs CPU/req → ×${x.ratioToUndici}` +
        (v === "toolkitDefault"
          ? ` (median of ${r.pairedRounds} paired rounds, ${r.defaultRatios[0]}–${
            r.defaultRatios[r.defaultRatios.length - 1]
          })`
          : ""),
        headline ? verdict(headlines.transportRatioC64.met, headlines.transportRatioC64.target) : "—"
      ])
    }
  }
  rows.push([
    `token: ${t.cold.calls} concurrent cold calls`,
    `${t.cold.tokenRequests} token request(s)`,
    `no cache ${t.cold.baselineNoCache} → ×${headlines.coldTokenRequests.ratio}`,
    verdict(t.cold.met, t.cold.target)
  ])
  rows.push([
    `token: ${t.day.simulatedHours} h steady (1 call/min)`,
    `${t.day.tokenRequests} token requests (${t.day.refreshes} refreshes)`,
    `${t.day.simulatedHours} h ÷ ${t.tokenLifetimeHours} h = ${t.day.baselineLifetimes} (lazy cache ${t.day.baselineLazyCache}) → ×${headlines.dayTokenRequests.ratio}`,
    verdict(t.day.met, t.day.target)
  ])
  rows.push([
    "token: calls waiting after warm-up",
    `${t.day.waitsAfterWarmup}`,
    `lazy cache ${t.day.baselineLazyCacheWaitsAfterWarmup} → ×${headlines.waitsAfterWarmup.ratio}`,
    verdict(t.day.waitsMet, t.day.waitsTarget)
  ])
  rows.push([
    `token: ${t.idle.idleHours} h idle after one call`,
    `${t.idle.extraTokenRequests} extra token request(s)`,
    `timer refresh ${t.idle.baselineTimerRefresh} → ×${headlines.idleExtraTokenRequests.ratio}`,
    verdict(t.idle.met, t.idle.target)
  ])
  rows.push([
    `memory: heap growth ${m.requests.first / 1000}k → ${m.requests.last / 1000}k requests`,
    `${fmt(m.toolkit.growthMB)} MB (heap ${fmt(m.toolkit.heapFirstMB, 1)} → ${fmt(m.toolkit.heapLastMB, 1)} MB)`,
    `raw undici ${fmt(m.undici.growthMB)} MB (heap ${fmt(m.undici.heapFirstMB, 1)} → ${
      fmt(m.undici.heapLastMB, 1)
    } MB); heap ×${m.heapRatioToUndici}`,
    verdict(m.met, `< ${m.targetMB} MB`)
  ])
  for (const [mode, r] of Object.entries(e.modes)) {
    rows.push([
      `export: ${e.designs} designs, ${e.latencyMs} ms, c${e.concurrency} (${mode}${
        mode === "proxy" ? ", headline" : ""
      })`,
      `${fmt(r.wallMs / 1000, 2)} s, ideal ÷ actual ${r.exportVsIdeal} (${r.clientCpuMicrosPerDesign} µs CPU/design)`,
      `ideal ${fmt(e.idealMs / 1000, 2)} s (${
        fmt(r.idealAtServedDelayMs / 1000, 2)
      } s at the ${r.servedDelayMeanMs} ms served); raw undici ${
        fmt(r.undici.wallMs / 1000, 2)
      } s = ${r.undici.exportVsIdeal} of ideal`,
      mode === "proxy" ? verdict(e.met, `≥ ${e.target}`) : "—"
    ])
  }
  rows.push([
    `sandbox search p50 (${s.designs / 1000}k designs)`,
    `${s.p50Ms} ms (p99 ${s.p99Ms} ms)`,
    `scan ${s.scanP50Ms} ms → ×${s.ratioToScan}`,
    verdict(headlines.sandboxSearchP50Ms.met, "< 2 ms")
  ])
  rows.push([
    `fleet: ${f.processes} processes × ${f.calls} cold calls`,
    `${f.shared} token request(s) sharing through Redis, ${f.failedCalls} failed call(s)`,
    `each alone ${f.alone} → ×${headlines.fleetTokenRequests.ratio}`,
    verdict(headlines.fleetTokenRequests.met, headlines.fleetTokenRequests.target)
  ])
  rows.push([
    `export by criteria: ${p.designsExported} designs (${p.command})`,
    `${p.paged.requests} requests (${p.pagedExportRequestsPer1000} per 1,000), ${p.paged.designsPerSecond} designs/s`,
    `one request per design: ${p.perDesign.requests} requests (${p.perDesignRequestsPer1000} per 1,000), ${p.perDesign.designsPerSecond} designs/s → designs/s ×${p.pagedExportVsPerDesign}`,
    verdict(p.met, `≤ ${p.target} per 1,000`)
  ])
  rows.push([
    `CLI export: ${x.designs} designs, concurrency 64 vs 16`,
    `${x.designsPerSecond.cliC64} designs/s at 64`,
    `${x.designsPerSecond.cliC16} designs/s at 16 → ×${x.cliExportC64VsC16}`,
    verdict(x.met.cliExportC64VsC16, `≥ ${x.targets.cliExportC64VsC16}`)
  ])
  rows.push([
    `CLI export vs searchDesigns, concurrency 16`,
    `${x.designsPerSecond.cliC16} designs/s`,
    `searchDesigns ${x.designsPerSecond.streamC16} designs/s → ×${x.cliExportVsStream}`,
    verdict(x.met.cliExportVsStream, `≥ ${x.targets.cliExportVsStream}`)
  ])
  rows.push([
    `CLI export vs searchDesigns in a fresh process, concurrency 16`,
    `${x.designsPerSecond.cliC16} designs/s`,
    `searchDesigns, a fresh process ${x.designsPerSecond.freshStreamC16} designs/s → ×${x.cliExportVsFreshStream}`,
    "—"
  ])
  rows.push([
    `mirror sync into SQLite: ${y.datasetSize} designs, then ${y.changed} changed`,
    `first ${y.full.requests} requests, ${y.full.designsPerSecond} designs/s; then ${y.incremental.requests} requests in ${y.incremental.seconds} s`,
    `full re-export ${y.reExport.requests} requests → ×${y.syncIncrementalVsFullRequests}`,
    verdict(y.met, `≤ ${y.target}`)
  ])
  rows.push([
    "CLI start: design-search --help",
    `${c.cliMs} ms (a first run, no code cache: ${c.coldCliMs} ms, ×${c.cliColdStartRatio}; ` +
    `in a bare environment ${c.bareCliMs} ms against ${c.bareNodeMs} ms, ×${c.cliStartRatioBareEnv})`,
    `node -e 0 ${c.nodeMs} ms → ×${c.cliStartRatio}`,
    `≤ 3: ${c.cliStartRatio <= 3 ? "met" : "not met"}`
  ])

  const durationSeconds = seconds(started)
  const loadAverageAtEnd = loadavg().map((l) => round(l, 2))
  // A load average at start above half the cores means something else was running: timings suffer.
  const busy = machine.loadAverageAtStart[0]! > machine.cores / 2
  const results = {
    date,
    machine: { ...machine, loadAverageAtEnd },
    busyMachineWarning: busy,
    pinning,
    quick,
    durationSeconds,
    rounds,
    summary,
    headlines,
    benchmarks: {
      throughput: { seconds: throughput.seconds, rounds, results: throughput.result },
      tokenEconomy: { seconds: tokens.seconds, ...tokens.result },
      memory: { seconds: memory.seconds, ...memory.result },
      export: { seconds: exported.seconds, ...exported.result },
      sandboxSearch: { seconds: search.seconds, ...search.result },
      cliStart: { seconds: cli.seconds, ...cli.result },
      fleet: { seconds: fleet.seconds, ...fleet.result },
      pagedExport: { seconds: paged.seconds, ...paged.result },
      cliExport: { seconds: cliExport.seconds, ...cliExport.result },
      sync: { seconds: mirrored.seconds, ...mirrored.result }
    }
  }
  writeFileSync(new URL("./results.json", import.meta.url), JSON.stringify(results, null, 2) + "\n")

  const header: [string, string, string, string] = [
    "benchmark",
    "result (median)",
    "baseline, same run → ratio",
    "target"
  ]
  const widths = [0, 1, 2, 3].map((i) => Math.max(...[header, ...rows].map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ").trimEnd()
  const out = [
    line(header),
    widths.map((w) => "-".repeat(w)).join("-|-"),
    ...rows.map(line),
    "",
    `summary: ${JSON.stringify(summary)}`,
    `not met: ${Object.entries(headlines).filter(([, h]) => h.met === false).map(([k]) => k).join(", ") || "none"}`,
    `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}; ${date}`,
    `throughput and export: ${pinning.note}`,
    `medians of ${rounds} round(s) (throughput's raw undici and default transport: ${atC64.pairedRounds} paired; export: ${e.rounds} after ${e.warmUps} warm-up(s); CLI start: ${c.rounds}); whole run ${durationSeconds} s; details in bench/results.json`
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
