/**
 * The mirror (`DesignMirror.sync`) into a SQLite file, from a sandbox served on loopback by this
 * process, over `FetchHttpClient.layer`, in each round:
 *
 * - `full`: the first sync of every design (10,000), a page of 100 a request: designs/s and requests;
 * - `incremental`: after 1% of the designs were changed (`SandboxControl.touch`), the next sync, which
 *   asks only for the designs changed since the first: requests and time;
 * - `reExport`: the requests of fetching the same designs again in full (`advancedDesigns`), what a
 *   mirror without a watermark would cost each time.
 *
 * The headline is the incremental sync's requests over the full re-export's
 * (`syncIncrementalVsFullRequests`, goal ≤ 0.03: 1% of the pages plus the listing search), medians
 * of the rounds, with the full sync's designs/s (`syncDesignsPerSecond`).
 */
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import * as DesignMirror from "../src/DesignMirror.js"
import { DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import type { Designs } from "../src/index.js"
import { median, round } from "./stats.js"

const everything: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
}

export interface SyncResult {
  readonly rounds: number
  readonly datasetSize: number
  readonly changed: number
  readonly full: { readonly requests: number; readonly seconds: number; readonly designsPerSecond: number }
  readonly incremental: { readonly requests: number; readonly seconds: number; readonly fetched: number }
  readonly reExport: { readonly requests: number }
  /** Requests of the incremental sync ÷ requests of a full re-export. */
  readonly syncIncrementalVsFullRequests: number
  readonly target: number
  readonly met: boolean
}

const apiRequests = (served: Sandbox.Served) =>
  Effect.map(served.control.stats, (s) => s.requests.search + s.requests.advanced + s.requests.page + s.requests.design)

export const run = (options: { readonly rounds?: number; readonly designs?: number } = {}): Promise<SyncResult> => {
  const rounds = options.rounds ?? 3
  const datasetSize = options.designs ?? 10_000
  const changed = Math.max(1, Math.round(datasetSize / 100))
  const target = 0.03
  const once = Effect.scoped(Effect.gen(function*() {
    const served = yield* Sandbox.serve({ designs: datasetSize, resultCap: datasetSize, port: 0 })
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "bench-sync-"))),
      (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
    )
    const client = DesignSearchClient.layer().pipe(
      Layer.provide(DesignSearchConfig.layer(served.clientOptions)),
      Layer.provide(FetchHttpClient.layer)
    )
    const sql = DesignMirror.layerSqlite({ url: `file:${join(dir, "mirror.db")}` })
    const context = yield* Layer.build(DesignMirror.layer().pipe(Layer.provideMerge(Layer.merge(client, sql))))
    return yield* Effect.gen(function*() {
      const mirror = yield* DesignMirror.DesignMirror
      const measured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.gen(function*() {
          const before = yield* apiRequests(served)
          const start = performance.now()
          const result = yield* effect
          const seconds = (performance.now() - start) / 1000
          return { result, seconds, requests: (yield* apiRequests(served)) - before }
        })
      const full = yield* measured(mirror.sync(everything))
      const numbers = (yield* Effect.flatMap(
        DesignSearchClient.DesignSearchClient,
        (c) => c.advancedSearch(everything)
      )).data.designNumbers
      const step = Math.floor(numbers.length / changed)
      yield* served.control.touch(Array.from({ length: changed }, (_, i) => numbers[i * step]!))
      const incremental = yield* measured(mirror.sync(everything))
      const reExport = yield* measured(
        Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => Stream.runDrain(c.advancedDesigns(everything)))
      )
      return {
        full: { requests: full.requests, seconds: full.seconds, designsPerSecond: full.result.fetched / full.seconds },
        incremental: {
          requests: incremental.requests,
          seconds: incremental.seconds,
          fetched: incremental.result.fetched
        },
        reExport: { requests: reExport.requests }
      }
    }).pipe(Effect.provide(context))
  }))
  return Effect.runPromise(Effect.gen(function*() {
    const samples: Array<Effect.Effect.Success<typeof once>> = []
    for (let i = 0; i < rounds; i++) samples.push(yield* once)
    const m = (f: (s: (typeof samples)[number]) => number, digits = 3) => round(median(samples.map(f)), digits)
    const ratio = m((s) => s.incremental.requests / s.reExport.requests, 4)
    return {
      rounds,
      datasetSize,
      changed,
      full: {
        requests: m((s) => s.full.requests),
        seconds: m((s) => s.full.seconds),
        designsPerSecond: m((s) => s.full.designsPerSecond, 0)
      },
      incremental: {
        requests: m((s) => s.incremental.requests),
        seconds: m((s) => s.incremental.seconds),
        fetched: m((s) => s.incremental.fetched)
      },
      reExport: { requests: m((s) => s.reExport.requests) },
      syncIncrementalVsFullRequests: ratio,
      target,
      met: ratio <= target
    }
  }))
}
