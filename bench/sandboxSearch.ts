/**
 * Sandbox search at 200,000 designs: p50 and p99 of a quick search through the index, against a
 * linear scan of the same designs for the same queries (the baseline, measured in the same run).
 */
import { performance } from "node:perf_hooks"
import { generateDesigns } from "../src/core/sandbox/dataset.js"
import * as SearchIndex from "../src/core/sandbox/searchIndex.js"
import type { Design, QuickSearchRequest } from "../src/core/wire/wire.js"
import { median, percentile, round } from "./stats.js"

export interface SandboxSearchResult {
  readonly designs: number
  readonly queries: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly scanP50Ms: number
  /** Index p50 ÷ scan p50: under 1 means the index is faster. */
  readonly ratioToScan: number
}

const requests: ReadonlyArray<QuickSearchRequest> = [
  { query: "chair" },
  { query: "ltd" },
  { query: "wattle chair" },
  { query: "bottle", filters: { statusFilter: ["REGISTERED"] } },
  { query: "clothing", changedSinceDate: "2020-01-01" },
  { query: "lamp", filters: { classificationFilter: ["26"] } },
  { query: "olivia smith" },
  { query: "pty", sort: { field: "NUMBER", direction: "DESCENDING" } }
]

/** What a scan does: the same match, design by design, with no index. */
const scan = (designs: ReadonlyArray<Design>, request: QuickSearchRequest): number => {
  const terms = SearchIndex.words(request.query)
  let count = 0
  for (const design of designs) {
    const text = new Set(SearchIndex.words(
      [
        design.number,
        design.title ?? "",
        ...(design.productNames ?? []),
        ...(design.owners ?? []).map((o) => o.name),
        ...(design.designers ?? []).map((d) => d.name),
        ...(design.classifications ?? []).map((c) => c.title ?? "")
      ].join(" ")
    ))
    if (terms.every((t) => text.has(t))) count++
  }
  return count
}

export const run = (size = 200_000, rounds = 50): SandboxSearchResult => {
  const designs = generateDesigns(size, 1)
  const index = SearchIndex.make(designs)
  const times: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    for (const request of requests) {
      const start = performance.now()
      index.search(request, 10_000)
      times.push(performance.now() - start)
    }
  }
  const scanTimes: Array<number> = []
  for (const request of requests.slice(0, 3)) {
    const start = performance.now()
    scan(designs, request)
    scanTimes.push(performance.now() - start)
  }
  const p50 = median(times)
  const scanP50 = median(scanTimes)
  return {
    designs: index.size,
    queries: times.length,
    p50Ms: round(p50),
    p99Ms: round(percentile(times, 99)),
    scanP50Ms: round(scanP50),
    ratioToScan: round(p50 / scanP50, 5)
  }
}
