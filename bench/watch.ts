/**
 * A watch run in which nothing changed, over a mirror (a SQLite file) of 20,000 designs and one of
 * 200,000: the mirror's rows are written straight into its tables (`columnsOf`, as a sync writes
 * them, each with a `new` row of history), then two watches (an owner's designs and a portfolio)
 * over the in-process sandbox have their baseline, and no-change runs are timed. Each such run
 * makes the same two syncs of two requests, and what a watch derives grows with its designs and
 * events, not with the mirror: `watchRun200kVs20k`, the large mirror's median run time over the
 * small one's, stays near 1 (target ≤ 1.5).
 *
 * `tsx bench/watch.ts [small] [large] [runs]` runs it alone and prints its result.
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { columnsOf } from "../src/core/mirror/mirror.js"
import { generateDesigns } from "../src/core/sandbox/dataset.js"
import * as DesignMirror from "../src/DesignMirror.js"
import * as DesignWatch from "../src/DesignWatch.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { make as tables } from "../src/internal/mirror/tables.js"
import { median, round } from "./stats.js"

export interface WatchSample {
  readonly designs: number
  /** Median milliseconds of a no-change run of both watches. */
  readonly runMs: number
  readonly requests: number
}

export interface WatchResult {
  readonly small: WatchSample
  readonly large: WatchSample
  /** The large mirror's run time over the small one's. */
  readonly watchRun200kVs20k: number
  readonly target: number
  readonly met: boolean
}

/** `designs` rows of a register other than the sandbox's (numbers from 900000000), each with its history. */
const fill = (designs: number) =>
  Effect.gen(function*() {
    const t = yield* tables()
    const at = "2026-01-05T09:00:00.000Z"
    const all = generateDesigns(designs, 7)
    for (let i = 0; i < all.length; i += 500) {
      const rows = all.slice(i, i + 500).map((d, j) => {
        const encoded = { ...d, number: String(900_000_000 + i + j) }
        return columnsOf(encoded, JSON.stringify(encoded), { synced_at: at, criteria_key: "bulk", state: "current" })
      })
      yield* t.recordChanges(rows.map((r) => ({ number: r.columns.number, synced_at: at, kind: "new", fields: null })))
      yield* t.writeDesigns(rows)
    }
  })

/** A mirror of `designs` with two watches past their baseline, and a no-change run of them, timed in milliseconds. */
const prepare = (designs: number) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "bench-watch-"))),
      (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
    )
    const sql = DesignMirror.layerSqlite({ url: `file:${join(dir, "mirror.db")}` })
    const client = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer({ designs: 500 })))
    const mirror = DesignMirror.layer().pipe(Layer.provideMerge(Layer.merge(sql, client)))
    const context = yield* Layer.build(DesignWatch.layer().pipe(Layer.provideMerge(mirror)))
    return yield* Effect.gen(function*() {
      yield* fill(designs)
      const watch = yield* DesignWatch.DesignWatch
      yield* watch.add({ name: "wattle", criteria: { rows: [{ op: "AND", query: { owner: "wattle" } }] } })
      yield* watch.add({ name: "ours", numbers: [Sandbox.fixedNumbers.chair, Sandbox.fixedNumbers.bottle] })
      // the baseline, then warm-up runs
      for (let i = 0; i < 3; i++) yield* watch.run()
      const once = Effect.gen(function*() {
        const start = performance.now()
        const report = yield* watch.run()
        const ms = performance.now() - start
        if (report.watches.some((w) => w.events.length > 0)) {
          return yield* Effect.dieMessage("a no-change run told events")
        }
        return { ms, requests: report.requests }
      })
      return Effect.provide(once, context)
    }).pipe(Effect.provide(context))
  })

export const run = (options: { readonly small?: number; readonly large?: number; readonly runs?: number } = {}) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const runs = options.runs ?? 15
    const sizes = [options.small ?? 20_000, options.large ?? 200_000] as const
    const [small, large] = [yield* prepare(sizes[0]), yield* prepare(sizes[1])]
    // Runs of the two mirrors alternate, so that neither has the warmer process.
    const times: [Array<number>, Array<number>] = [[], []]
    let requests = 0
    for (let i = 0; i < runs; i++) {
      for (const [k, once] of [small, large].entries()) {
        const r = yield* once
        times[k]!.push(r.ms)
        requests = r.requests
      }
    }
    const sample = (k: 0 | 1): WatchSample => ({ designs: sizes[k], runMs: round(median(times[k]), 2), requests })
    const ratio = round(sample(1).runMs / sample(0).runMs, 2)
    const target = 1.5
    return { small: sample(0), large: sample(1), watchRun200kVs20k: ratio, target, met: ratio <= target }
  })))

if (import.meta.url === `file://${process.argv[1]}`) {
  const [small, large, runs] = process.argv.slice(2).map(Number)
  run({ ...(small ? { small } : {}), ...(large ? { large } : {}), ...(runs ? { runs } : {}) }).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`)
  )
}
