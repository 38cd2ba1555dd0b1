/**
 * The sandbox's in-memory search index: an inverted index from words to designs (kept in design
 * number order), so a quick search intersects a few posting lists instead of scanning every record.
 * Filters (status, classification prefix, changed since) apply to the intersection.
 */
import { DateTime } from "effect"
import type { Design, QuickSearchRequest } from "../Designs.js"
import { normalizeCode } from "./Locarno.js"

/** A word as indexed and as searched: lower-case letters and digits, a plural `s` dropped. */
const normalizeWord = (word: string): string => word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word

/** The words of a text, normalized. */
export const words = (text: string): Array<string> =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(normalizeWord)

/** What a quick search found: every match's position, in the requested order. */
export interface SearchHits {
  readonly count: number
  readonly designs: ReadonlyArray<Design>
}

/** @since 0.1.0 */
export interface SearchIndex {
  readonly size: number
  readonly get: (designNumber: string) => Design | undefined
  readonly search: (request: QuickSearchRequest, limit: number) => SearchHits
}

const searchableText = (design: Design): string =>
  [
    design.number,
    design.title ?? "",
    ...(design.productNames ?? []),
    ...(design.classifications ?? []).map((c) => c.title ?? ""),
    ...(design.owners ?? []).map((o) => o.name),
    ...(design.designers ?? []).map((d) => d.name)
  ].join(" ")

const intersect = (a: Int32Array, b: Int32Array): Int32Array => {
  const out = new Int32Array(Math.min(a.length, b.length))
  let i = 0, j = 0, k = 0
  while (i < a.length && j < b.length) {
    const x = a[i]!, y = b[j]!
    if (x === y) {
      out[k++] = x
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return out.subarray(0, k)
}

const empty = new Int32Array(0)

/**
 * Builds the index over `designs`. A classification filter matches a design whose code starts with
 * it (`06` finds `06-01`) or that it starts with (`0202c` finds `02-02`, the most specific we hold).
 */
export const make = (designs: ReadonlyArray<Design>): SearchIndex => {
  const sorted = [...designs].sort((a, b) =>
    a.number.length - b.number.length || (a.number < b.number ? -1 : a.number > b.number ? 1 : 0)
  )
  const byNumber = new Map<string, Design>(sorted.map((d) => [d.number, d]))
  const lists = new Map<string, Array<number>>()
  const codes: Array<ReadonlyArray<string>> = []
  const statuses: Array<string> = []
  const changed = new Float64Array(sorted.length)
  sorted.forEach((design, position) => {
    for (const word of new Set(words(searchableText(design)))) {
      let list = lists.get(word)
      if (list === undefined) lists.set(word, list = [])
      list.push(position)
    }
    codes.push((design.classifications ?? []).map((c) => normalizeCode(c.code)))
    statuses.push((design.status ?? "").toUpperCase())
    changed[position] = design.lastChanged === undefined
      ? Number.NEGATIVE_INFINITY
      : DateTime.toEpochMillis(design.lastChanged)
  })
  const postings = new Map<string, Int32Array>()
  for (const [word, list] of lists) postings.set(word, Int32Array.from(list))

  const search = (request: QuickSearchRequest, limit: number): SearchHits => {
    const terms = [...new Set(words(request.query))]
    const candidates = terms.map((t) => postings.get(t) ?? empty).sort((a, b) => a.length - b.length)
    let matches = candidates[0] ?? empty
    for (let i = 1; i < candidates.length && matches.length > 0; i++) matches = intersect(matches, candidates[i]!)
    const statusFilter = request.filters?.statusFilter?.map((s) => s.toUpperCase())
    const classFilter = request.filters?.classificationFilter?.map(normalizeCode)
    const since = request.changedSinceDate === undefined
      ? undefined
      : Date.parse(`${request.changedSinceDate}T00:00:00Z`)
    const keep = (p: number): boolean =>
      (statusFilter === undefined || statusFilter.includes(statuses[p]!)) &&
      (classFilter === undefined ||
        codes[p]!.some((c) => classFilter.some((f) => c.startsWith(f) || f.startsWith(c)))) &&
      (since === undefined || changed[p]! >= since)
    const descending = request.sort?.direction === "DESCENDING"
    const hits: Array<Design> = []
    let count = 0
    for (let i = 0; i < matches.length; i++) {
      const p = matches[descending ? matches.length - 1 - i : i]!
      if (!keep(p)) continue
      count++
      if (hits.length < limit) hits.push(sorted[p]!)
    }
    return { count, designs: hits }
  }

  return { size: sorted.length, get: (n) => byNumber.get(n), search }
}
