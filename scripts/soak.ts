/**
 * Soak run: the real client over real loopback HTTP against the served sandbox, with tokens that
 * live a few seconds, for a bounded time. It answers what a short test cannot: does the client stay
 * correct (zero failures) across many token rotations under concurrency, does it keep token
 * requests near one per refresh period instead of one per request, does a busy client ever wait on
 * a token after the first, and does the heap stay flat.
 *
 *   node --expose-gc --import tsx scripts/soak.ts [--seconds 120] [--concurrency 64]
 *     [--token-lifetime 5] [--designs 2000] [--expiry-skew S] [--refresh-before S] [--json]
 *
 * `--expiry-skew` / `--refresh-before` override the client's defaults (30 s / 5 min); without them
 * the client runs exactly as an application would configure it from `served.clientOptions`.
 * Exit code 0 when no call failed, 1 otherwise, 2 on bad arguments or when something kept the
 * process alive after the run.
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Cause, Clock, Context, Duration, Effect, Exit, Layer, Option } from "effect"
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { parseArgs } from "node:util"
import { DesignSearchClient, DesignSearchConfig, Sandbox, TokenService } from "../src/index.js"

interface Args {
  readonly seconds: number
  readonly concurrency: number
  readonly tokenLifetime: number
  readonly designs: number
  readonly expirySkew: number | undefined
  readonly refreshBefore: number | undefined
  readonly json: boolean
}

const usage =
  "usage: tsx scripts/soak.ts [--seconds 120] [--concurrency 64] [--token-lifetime 5] [--designs 2000] [--expiry-skew S] [--refresh-before S] [--json]"

/** Parses the command line; `string` is the message to print before exiting with 2. */
const parseCommandLine = (argv: ReadonlyArray<string>): Args | string => {
  const parsed = (() => {
    try {
      return parseArgs({
        args: [...argv],
        options: {
          seconds: { type: "string", default: "120" },
          concurrency: { type: "string", default: "64" },
          "token-lifetime": { type: "string", default: "5" },
          designs: { type: "string", default: "2000" },
          "expiry-skew": { type: "string" },
          "refresh-before": { type: "string" },
          json: { type: "boolean", default: false },
          help: { type: "boolean", default: false }
        },
        strict: true
      })
    } catch (error) {
      return error instanceof Error ? error.message : String(error)
    }
  })()
  if (typeof parsed === "string") return `${parsed}\n${usage}`
  if (parsed.values.help) return usage
  const number = (name: string, text: string | undefined, min: number, integer: boolean): number | string => {
    const value = Number(text)
    return text !== undefined && Number.isFinite(value) && value >= min && (!integer || Number.isInteger(value))
      ? value
      : `--${name} must be ${integer ? "an integer" : "a number"} ≥ ${min}, got ${JSON.stringify(text)}`
  }
  const seconds = number("seconds", parsed.values.seconds, 1, false)
  const concurrency = number("concurrency", parsed.values.concurrency, 1, true)
  const tokenLifetime = number("token-lifetime", parsed.values["token-lifetime"], 1, true)
  const designs = number("designs", parsed.values.designs, 1, true)
  const skewText = parsed.values["expiry-skew"]
  const refreshText = parsed.values["refresh-before"]
  const expirySkew = skewText === undefined ? undefined : number("expiry-skew", skewText, 0, false)
  const refreshBefore = refreshText === undefined ? undefined : number("refresh-before", refreshText, 0, false)
  for (const v of [seconds, concurrency, tokenLifetime, designs, expirySkew, refreshBefore]) {
    if (typeof v === "string") return `${v}\n${usage}`
  }
  return {
    seconds: seconds as number,
    concurrency: concurrency as number,
    tokenLifetime: tokenLifetime as number,
    designs: designs as number,
    expirySkew: expirySkew as number | undefined,
    refreshBefore: refreshBefore as number | undefined,
    json: parsed.values.json
  }
}

/** Queries that hit the generated data (product words, owner words) and some that match nothing. */
const queries = [
  "chair",
  "bottle",
  "watch",
  "table",
  "lamp",
  "Folding",
  "Portable",
  "Coastal",
  "Pty",
  "zzzqx",
  "cup",
  "bag"
]
const statusFilters = [["REGISTERED"], ["FILED", "LAPSED"], ["CERTIFIED"]]

/**
 * Latencies in a fixed histogram (1 ms buckets up to 5 s, then one overflow bucket), so that
 * recording them does not itself grow the heap being measured.
 */
const makeHistogram = () => {
  const buckets = new Uint32Array(5002)
  let count = 0
  let max = 0
  return {
    record: (ms: number) => {
      buckets[Math.min(5001, Math.floor(ms))]! += 1
      count++
      if (ms > max) max = ms
    },
    percentile: (p: number): number => {
      if (count === 0) return 0
      const rank = Math.ceil(count * p)
      let seen = 0
      for (let i = 0; i < buckets.length; i++) {
        seen += buckets[i]!
        if (seen >= rank) return i + 1
      }
      return max
    },
    get max() {
      return max
    }
  }
}

/** Failures by tag, keeping only the first few messages of each. */
const makeFailures = (keepPerTag: number) => {
  const byTag = new Map<string, { count: number; messages: Array<string> }>()
  let total = 0
  return {
    add: (tag: string, message: string) => {
      total++
      const entry = byTag.get(tag) ?? { count: 0, messages: [] }
      entry.count++
      if (entry.messages.length < keepPerTag) entry.messages.push(message)
      byTag.set(tag, entry)
    },
    get total() {
      return total
    },
    report: () => Object.fromEntries(byTag)
  }
}

const heapUsed = () => {
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

const soak = (args: Args) =>
  Effect.gen(function*() {
    const served = yield* Sandbox.serve({
      port: 0,
      designs: args.designs,
      tokenLifetime: Duration.seconds(args.tokenLifetime)
    })
    const clientOptions: DesignSearchConfig.Options = {
      ...served.clientOptions,
      ...(args.expirySkew === undefined ? {} : { expirySkew: Duration.seconds(args.expirySkew) }),
      ...(args.refreshBefore === undefined ? {} : { refreshBefore: Duration.seconds(args.refreshBefore) })
    }
    const settings = yield* DesignSearchConfig.make(clientOptions)
    // Connections undici opens (any client in the process: API and token requests alike). After
    // warm-up a steady run should open none; churn shows up here before it shows up as latency.
    const connections = { opened: 0 }
    const onConnected = () => {
      connections.opened++
    }
    subscribe("undici:client:connected", onConnected)
    yield* Effect.addFinalizer(() => Effect.sync(() => unsubscribe("undici:client:connected", onConnected)))

    // What went over the wire for API calls, retries included: the client retries transient
    // failures, so a run with zero failures can still hide resets or 5xx that only cost time.
    const wire = { sent: 0, byStatus: new Map<number, number>(), errors: makeFailures(3) }
    const watchWire = (http: HttpClient.HttpClient) =>
      http.pipe(
        HttpClient.tapRequest(() => Effect.sync(() => void wire.sent++)),
        HttpClient.tap((response) =>
          Effect.sync(() => void wire.byStatus.set(response.status, (wire.byStatus.get(response.status) ?? 0) + 1))
        ),
        HttpClient.tapError((error) =>
          Effect.sync(() => wire.errors.add(`${error._tag}/${error.reason}`, error.description ?? error.message))
        )
      )
    const context = yield* Layer.build(
      DesignSearchClient.layer({ transformClient: watchWire }).pipe(
        Layer.provide(DesignSearchConfig.layer(clientOptions)),
        Layer.provide(NodeHttpClient.layerUndici)
      )
    )
    const client = Context.get(context, DesignSearchClient.DesignSearchClient)
    const tokens = Context.get(context, TokenService.TokenService)

    // Warm-up: the one cold token wait, then one request per worker at once so that the pool holds
    // a connection for each, and the JIT. Then a settled heap baseline.
    const known = (yield* client.quickSearch({ query: "chair" })).data.designNumbers
    yield* Effect.all(
      Array.from({ length: args.concurrency }, () => client.getDesign(Sandbox.fixedNumbers.chair)),
      { concurrency: "unbounded", discard: true }
    )
    const numbers = [...known.slice(0, 200), ...Object.values(Sandbox.fixedNumbers)]
    const warmWire = { sent: wire.sent, byStatus: new Map(wire.byStatus) }
    const warmConnections = connections.opened
    const warmStats = yield* tokens.stats
    const warmSandbox = yield* served.control.stats
    const heapStart = heapUsed()

    const histogram = makeHistogram()
    const failures = makeFailures(3)
    const counts = { search: 0, design: 0 }
    let heapPeak = heapStart

    // Event-loop delay tells a slow service from a starved or blocked process (client and server
    // share this one loop).
    const loopDelay = monitorEventLoopDelay({ resolution: 10 })
    loopDelay.enable()
    const started = yield* Clock.currentTimeMillis
    const deadline = started + args.seconds * 1000

    /** Calls over a second: how many, and when the first few started (seconds into the run). */
    const slow = { count: 0, startedAt: [] as Array<number> }
    const runStart = performance.now()

    /** One call, its latency recorded and its failure (if any) kept by tag. */
    const timed = <A, E extends { readonly _tag: string; readonly message: string }>(call: Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        const exit = yield* Effect.exit(call)
        const ms = performance.now() - t0
        histogram.record(ms)
        if (ms > 1000 && ++slow.count <= 5) slow.startedAt.push(Math.round((t0 - runStart) / 100) / 10)
        if (Exit.isFailure(exit)) {
          const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
          failures.add(failure?._tag ?? "Defect", failure?.message ?? Cause.pretty(exit.cause))
        }
      })

    /** A worker: 60 % quick searches (some filtered or sorted), 40 % get-by-number, until the deadline. */
    const worker = (seed: number) =>
      Effect.gen(function*() {
        let i = seed
        while ((yield* Clock.currentTimeMillis) < deadline) {
          i = (i * 1103515245 + 12345) >>> 0
          if (i % 10 < 6) {
            counts.search++
            const query = queries[i % queries.length]!
            yield* timed(client.quickSearch(
              i % 3 === 0
                ? { query, filters: { statusFilter: statusFilters[i % statusFilters.length]! } }
                : i % 3 === 1
                ? { query, sort: { field: "NUMBER", direction: "DESCENDING" } }
                : { query }
            ))
          } else {
            counts.design++
            yield* timed(client.getDesign(numbers[i % numbers.length]!))
          }
        }
      })

    /** Samples the heap (without forcing a collection) once a second, for the peak. */
    const sampler = Effect.gen(function*() {
      while ((yield* Clock.currentTimeMillis) < deadline) {
        yield* Effect.sleep("1 second")
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)
      }
    })

    yield* Effect.all([sampler, ...Array.from({ length: args.concurrency }, (_, n) => worker(n + 1))], {
      concurrency: "unbounded",
      discard: true
    })
    const elapsedSeconds = ((yield* Clock.currentTimeMillis) - started) / 1000
    loopDelay.disable()
    const heapEnd = heapUsed()
    const tokenStats = yield* tokens.stats
    const sandboxStats = yield* served.control.stats

    const requests = counts.search + counts.design
    const tokensDuringRun = sandboxStats.tokensIssued - warmSandbox.tokensIssued
    // The client refreshes `lead` ahead of expiry, lead = min(refreshBefore, lifetime / 2): one token
    // per (lifetime - lead) while busy. The naive figure is one per lifetime.
    const leadSeconds = Math.min(Duration.toSeconds(settings.refreshBefore), args.tokenLifetime / 2)
    const expectedBySchedule = elapsedSeconds / (args.tokenLifetime - leadSeconds)
    const expectedNaive = elapsedSeconds / args.tokenLifetime
    const tokenVerdict = tokensDuringRun >= requests / 2
      ? "FLAG: about one token request per API request"
      : tokensDuringRun > 2 * expectedBySchedule + 2
      ? "FLAG: more token requests than the refresh schedule explains"
      : tokensDuringRun < expectedNaive / 2
      ? "FLAG: fewer tokens than the lifetime allows: are tokens used past expiry?"
      : "ok"
    const waitsDuringRun = tokenStats.waits - warmStats.waits
    // Refresh ahead of expiry should leave a busy client nothing to wait for after the first token.
    const waitVerdict = waitsDuringRun === 0
      ? "ok"
      : waitsDuringRun >= requests / 2
      ? "FLAG: about every request waited on a token"
      : "FLAG: a busy client waited on a token"

    return {
      settings: {
        seconds: args.seconds,
        concurrency: args.concurrency,
        tokenLifetimeSeconds: args.tokenLifetime,
        designs: served.sandbox.designCount,
        expirySkewSeconds: Duration.toSeconds(settings.expirySkew),
        refreshBeforeSeconds: Duration.toSeconds(settings.refreshBefore),
        gcExposed: globalThis.gc !== undefined
      },
      durationSeconds: Math.round(elapsedSeconds * 10) / 10,
      requests: { total: requests, quickSearch: counts.search, getDesign: counts.design },
      requestsPerSecond: Math.round(requests / elapsedSeconds),
      latencyMs: {
        p50: histogram.percentile(0.5),
        p99: histogram.percentile(0.99),
        max: Math.round(histogram.max),
        over1s: slow.count,
        over1sStartedAtSeconds: slow.startedAt
      },
      eventLoopDelayMs: {
        p99: Math.round(loopDelay.percentile(99) / 1e6),
        max: Math.round(loopDelay.max / 1e6)
      },
      failures: { total: failures.total, byTag: failures.report() },
      wire: {
        exchanges: wire.sent - warmWire.sent,
        byStatus: Object.fromEntries(
          [...wire.byStatus].map(([status, n]) => [status, n - (warmWire.byStatus.get(status) ?? 0)]).filter(([, n]) =>
            n !== 0
          )
        ),
        transportErrors: { total: wire.errors.total, byTag: wire.errors.report() },
        connectionsOpened: { atWarmUp: warmConnections, duringRun: connections.opened - warmConnections }
      },
      tokens: {
        issuedDuringRun: tokensDuringRun,
        sandboxTokenRequests: sandboxStats.requests.token - warmSandbox.requests.token,
        clientTokenRequests: tokenStats.tokenRequests - warmStats.tokenRequests,
        refreshes: tokenStats.refreshes - warmStats.refreshes,
        expectedNaive: Math.round(expectedNaive * 10) / 10,
        expectedBySchedule: Math.round(expectedBySchedule * 10) / 10,
        verdict: tokenVerdict
      },
      tokenWaits: { afterWarmUp: waitsDuringRun, coldAtWarmUp: warmStats.waits, verdict: waitVerdict },
      sandboxRequests: sandboxStats.requests,
      heapMiB: {
        start: mib(heapStart),
        end: mib(heapEnd),
        growth: mib(heapEnd - heapStart),
        peakSampled: mib(heapPeak)
      }
    }
  }).pipe(Effect.scoped)

type Report = Effect.Effect.Success<ReturnType<typeof soak>>

const printTable = (r: Report) => {
  const rows: Array<[string, string]> = [
    [
      "settings",
      `${r.settings.seconds} s, ${r.settings.concurrency} workers, token lifetime ${r.settings.tokenLifetimeSeconds} s, ${r.settings.designs} designs, skew ${r.settings.expirySkewSeconds} s, refresh-before ${r.settings.refreshBeforeSeconds} s`
    ],
    ["duration", `${r.durationSeconds} s`],
    [
      "requests",
      `${r.requests.total} (${r.requests.quickSearch} searches, ${r.requests.getDesign} gets), ${r.requestsPerSecond}/s`
    ],
    [
      "latency",
      `p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms; ${r.latencyMs.over1s} over 1 s${
        r.latencyMs.over1s === 0 ? "" : ` (first started at ${r.latencyMs.over1sStartedAtSeconds.join(", ")} s)`
      }`
    ],
    ["event loop delay", `p99 ${r.eventLoopDelayMs.p99} ms, max ${r.eventLoopDelayMs.max} ms`],
    ["failures", `${r.failures.total}${r.failures.total === 0 ? " (target 0: met)" : " (target 0: NOT MET)"}`],
    [
      "wire (API)",
      `${r.wire.exchanges} exchanges (${r.wire.exchanges - r.requests.total} beyond one per call); statuses ${
        Object.entries(r.wire.byStatus).map(([k, v]) => `${k}×${v}`).join(" ")
      }; ${r.wire.transportErrors.total} transport errors`
    ],
    [
      "connections",
      `${r.wire.connectionsOpened.atWarmUp} opened at warm-up, ${r.wire.connectionsOpened.duringRun} during the run`
    ],
    [
      "token requests",
      `${r.tokens.issuedDuringRun} issued (sandbox saw ${r.tokens.sandboxTokenRequests}, client sent ${r.tokens.clientTokenRequests}, ${r.tokens.refreshes} refreshes ahead)`
    ],
    [
      "  expected",
      `≈ ${r.tokens.expectedNaive} (duration / lifetime), ≈ ${r.tokens.expectedBySchedule} (refresh schedule): ${r.tokens.verdict}`
    ],
    [
      "token waits",
      `${r.tokenWaits.afterWarmUp} after warm-up (${r.tokenWaits.coldAtWarmUp} at warm-up): ${r.tokenWaits.verdict}`
    ],
    [
      "heap used",
      `start ${r.heapMiB.start} MiB, end ${r.heapMiB.end} MiB, growth ${r.heapMiB.growth} MiB, peak sampled ${r.heapMiB.peakSampled} MiB${
        r.settings.gcExposed ? "" : " (no --expose-gc: figures include garbage)"
      }`
    ]
  ]
  const width = Math.max(...rows.map(([k]) => k.length))
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`)
  const groups = [["failure", r.failures.byTag], ["transport error", r.wire.transportErrors.byTag]] as const
  for (const [kind, byTag] of groups) {
    for (const [tag, { count, messages }] of Object.entries(byTag)) {
      process.stdout.write(`\n${kind} ${tag} × ${count}\n`)
      for (const m of messages) process.stdout.write(`  ${m}\n`)
    }
  }
}

const args = parseCommandLine(process.argv.slice(2))
if (typeof args === "string") {
  const help = args === usage
  const out = help ? process.stdout : process.stderr
  out.write(args + "\n")
  process.exitCode = help ? 0 : 2
} else {
  const exit = await Effect.runPromiseExit(soak(args))
  if (Exit.isSuccess(exit)) {
    if (args.json) process.stdout.write(JSON.stringify(exit.value) + "\n")
    else printTable(exit.value)
    process.exitCode = exit.value.failures.total === 0 ? 0 : 1
  } else {
    process.stderr.write(`soak could not run: ${String(exit.cause)}\n`)
    process.exitCode = 1
  }
  // Everything was closed with the scope; if the process is still alive shortly after, say what holds it.
  setTimeout(() => {
    process.stderr.write(`still running 5 s after the scope closed: ${process.getActiveResourcesInfo().join(", ")}\n`)
    process.exit(2)
  }, 5000).unref()
}
