/**
 * The sandbox's in-memory search index: an inverted index from words to designs (kept in design
 * number order), so a quick search intersects a few posting lists instead of scanning every record.
 * Filters (status, classification prefix, changed since) apply to the intersection. An advanced
 * search evaluates each row of criteria to a set of designs (per-field word lists for owner,
 * designer and product name) and joins the rows left to right. `touch` amends designs in place, so
 * that a mirror's incremental sync has changes to find.
 */
import { DateTime } from "effect"
import type { AdvancedSearchRequest, Criteria, Design, QuickSearchRequest } from "../Designs.js"
import { knownDateTypes } from "../Designs.js"
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

/** What an advanced search found: the designs of one window of the matches, and the matches' statuses. */
export interface AdvancedHits extends SearchHits {
  /** How many matches have each status. */
  readonly statuses: Readonly<Record<string, number>>
}

/** The criteria an advanced search understands; others are ignored and named (`unknownCriteria`). */
export const knownCriteria: ReadonlySet<string> = new Set([
  "owner",
  "designer",
  "productName",
  "designNumber",
  "classification",
  "statuses",
  "date"
])

/** The criteria of `request` that the index does not understand, each named once, in order. */
export const unknownCriteria = (request: AdvancedSearchRequest): ReadonlyArray<string> => [
  ...new Set(request.rows.flatMap((row) => Object.keys(row.query).filter((name) => !knownCriteria.has(name))))
]

/** Where in `request` a date range names a kind of date the index does not hold: JSON pointers. */
export const unknownDateTypes = (request: AdvancedSearchRequest): ReadonlyArray<string> =>
  request.rows.flatMap((row, i) =>
    row.query.date === undefined || (knownDateTypes as ReadonlyArray<string>).includes(row.query.date.type)
      ? []
      : [`/rows/${i}/query/date/type`]
  )

/** @since 0.1.0 */
export interface SearchIndex {
  readonly size: number
  readonly get: (designNumber: string) => Design | undefined
  readonly search: (request: QuickSearchRequest, limit: number) => SearchHits
  /**
   * The matches of an advanced search from the `offset`-th on, at most `limit` of them. Criteria
   * it does not know are ignored, and so is a date range of a kind it does not hold: the app
   * refuses those first (`unknownDateTypes`).
   */
  readonly advanced: (request: AdvancedSearchRequest, offset: number, limit: number) => AdvancedHits
  /**
   * Appends " (amended)" to each design's title and sets its `lastChanged` to `lastChanged`: each
   * becomes a new object (the app caches each design object's encoding) and its new title words are
   * indexed. Touches nothing and returns the numbers it does not hold if there are any.
   */
  readonly touch: (numbers: ReadonlyArray<string>, lastChanged: DateTime.Utc) => ReadonlyArray<string>
}

/** The word lists an advanced search can match a criterion against, and the texts each is made of. */
const wordFields = {
  owner: (design: Design) => (design.owners ?? []).map((o) => o.name),
  designer: (design: Design) => (design.designers ?? []).map((d) => d.name),
  productName: (design: Design) => design.productNames ?? []
}
type WordField = keyof typeof wordFields
const wordFieldNames = Object.keys(wordFields) as ReadonlyArray<WordField>

/** The text a quick search matches: the number, the title, the classes' titles and every word field. */
const searchableText = (design: Design): string =>
  [
    design.number,
    design.title ?? "",
    ...(design.classifications ?? []).map((c) => c.title ?? ""),
    ...wordFieldNames.flatMap((field) => wordFields[field](design))
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

const dayMillis = 86_400_000

/** Postings of a word list: each word's positions, in order. */
const postingsOf = (lists: Map<string, Array<number>>): Map<string, Int32Array> =>
  new Map([...lists].map(([word, list]) => [word, Int32Array.from(list)]))

/** Adds `position` to the list of each distinct word of `texts`. */
const addWords = (lists: Map<string, Array<number>>, texts: ReadonlyArray<string>, position: number) => {
  for (const word of new Set(words(texts.join(" ")))) {
    let list = lists.get(word)
    if (list === undefined) lists.set(word, list = [])
    list.push(position)
  }
}

/** The positions holding every word of `text`, by the shortest list first. */
const allWords = (postings: ReadonlyMap<string, Int32Array>, text: string): Int32Array => {
  const candidates = [...new Set(words(text))].map((t) => postings.get(t) ?? empty).sort((a, b) => a.length - b.length)
  let matches = candidates[0] ?? empty
  for (let i = 1; i < candidates.length && matches.length > 0; i++) matches = intersect(matches, candidates[i]!)
  return matches
}

type DateType = (typeof knownDateTypes)[number]

/** The field each kind of date is read from: the sandbox's designs claim no earlier priority than their filing. */
const dateFields = {
  FILING: "filingDate",
  REGISTRATION: "registrationDate",
  PRIORITY: "filingDate",
  EXPIRY: "expiryDate",
  LAST_CHANGED: "lastChanged"
} as const satisfies Record<DateType, keyof Design>

const millisOf = (date: DateTime.Utc | undefined): number =>
  date === undefined ? Number.NaN : DateTime.toEpochMillis(date)

/**
 * Whether a design's code matches a classification asked for, either being the other's prefix. A
 * classification with no letter or digit (`((((`) names no class, so it matches none.
 */
const codeMatches = (codes: ReadonlyArray<string>, wanted: ReadonlyArray<string>): boolean =>
  codes.some((c) => wanted.some((f) => f !== "" && (c.startsWith(f) || f.startsWith(c))))

/** What the index holds: the designs in number order, and by position their words, codes, statuses and dates. */
interface Tables {
  readonly sorted: Array<Design>
  readonly positionOf: ReadonlyMap<string, number>
  readonly postings: Map<string, Int32Array>
  readonly fieldPostings: Readonly<Record<WordField, ReadonlyMap<string, Int32Array>>>
  readonly codes: ReadonlyArray<ReadonlyArray<string>>
  readonly statuses: ReadonlyArray<string>
  readonly dates: Readonly<Record<DateType, Float64Array>>
}

const build = (designs: ReadonlyArray<Design>): Tables => {
  const sorted = [...designs].sort((a, b) =>
    a.number.length - b.number.length || (a.number < b.number ? -1 : a.number > b.number ? 1 : 0)
  )
  const lists = new Map<string, Array<number>>()
  const fieldLists: Record<WordField, Map<string, Array<number>>> = {
    owner: new Map(),
    designer: new Map(),
    productName: new Map()
  }
  const dates = Object.fromEntries(
    knownDateTypes.map((type) => [type, new Float64Array(sorted.length)])
  ) as Record<DateType, Float64Array>
  sorted.forEach((design, position) => {
    addWords(lists, [searchableText(design)], position)
    for (const field of wordFieldNames) addWords(fieldLists[field], wordFields[field](design), position)
    for (const type of knownDateTypes) dates[type][position] = millisOf(design[dateFields[type]])
  })
  return {
    sorted,
    positionOf: new Map(sorted.map((d, position) => [d.number, position])),
    postings: postingsOf(lists),
    fieldPostings: {
      owner: postingsOf(fieldLists.owner),
      designer: postingsOf(fieldLists.designer),
      productName: postingsOf(fieldLists.productName)
    },
    codes: sorted.map((design) => (design.classifications ?? []).map((c) => normalizeCode(c.code))),
    statuses: sorted.map((design) => (design.status ?? "").toUpperCase()),
    dates
  }
}

const sinceOf = (changedSinceDate: string | undefined) =>
  changedSinceDate === undefined ? undefined : Date.parse(`${changedSinceDate}T00:00:00Z`)

const search = (t: Tables, request: QuickSearchRequest, limit: number): SearchHits => {
  const matches = allWords(t.postings, request.query)
  const statusFilter = request.filters?.statusFilter?.map((s) => s.toUpperCase())
  const classFilter = request.filters?.classificationFilter?.map(normalizeCode)
  const since = sinceOf(request.changedSinceDate)
  const keep = (p: number): boolean =>
    (statusFilter === undefined || statusFilter.includes(t.statuses[p]!)) &&
    (classFilter === undefined || codeMatches(t.codes[p]!, classFilter)) &&
    (since === undefined || t.dates.LAST_CHANGED[p]! >= since)
  const descending = request.sort?.direction === "DESCENDING"
  const hits: Array<Design> = []
  let count = 0
  for (let i = 0; i < matches.length; i++) {
    const p = matches[descending ? matches.length - 1 - i : i]!
    if (!keep(p)) continue
    count++
    if (hits.length < limit) hits.push(t.sorted[p]!)
  }
  return { count, designs: hits }
}

/** The designs one row's criteria match: every criterion it names and the index knows must hold. */
const rowMatches = (t: Tables, criteria: Criteria): Uint8Array => {
  const matched = new Uint8Array(t.sorted.length)
  // Word and number criteria narrow the candidates to a list; the others test each candidate.
  let candidates: Int32Array | undefined
  const narrow = (list: Int32Array) => void (candidates = candidates === undefined ? list : intersect(candidates, list))
  for (const field of wordFieldNames) {
    const text = criteria[field]
    if (text !== undefined) narrow(allWords(t.fieldPostings[field], text))
  }
  if (criteria.designNumber !== undefined) {
    const position = t.positionOf.get(criteria.designNumber.trim())
    narrow(position === undefined ? empty : Int32Array.of(position))
  }
  const wantedStatuses = criteria.statuses?.map((s) => s.toUpperCase())
  const wantedCodes = criteria.classification === undefined ? undefined : [normalizeCode(criteria.classification)]
  const range = criteria.date
  const rangeDates = range === undefined ? undefined : t.dates[range.type as DateType]
  const from = range?.from === undefined ? Number.NEGATIVE_INFINITY : Date.parse(`${range.from}T00:00:00Z`)
  const to = range?.to === undefined ? Number.POSITIVE_INFINITY : Date.parse(`${range.to}T00:00:00Z`) + dayMillis - 1
  const test = (p: number) => {
    if (wantedStatuses !== undefined && !wantedStatuses.includes(t.statuses[p]!)) return
    if (wantedCodes !== undefined && !codeMatches(t.codes[p]!, wantedCodes)) return
    if (rangeDates !== undefined && !(rangeDates[p]! >= from && rangeDates[p]! <= to)) return
    matched[p] = 1
  }
  const list: Int32Array | undefined = candidates
  if (list === undefined) { for (let p = 0; p < t.sorted.length; p++) test(p) }
  else for (let i = 0; i < list.length; i++) test(list[i]!)
  return matched
}

/** The rows' matches, joined left to right (a first `AND_NOT` row negates its own). */
const joinRows = (t: Tables, rows: AdvancedSearchRequest["rows"]): Uint8Array | undefined => {
  let joined: Uint8Array | undefined
  for (const row of rows) {
    const matched = rowMatches(t, row.query)
    for (let p = 0; p < matched.length; p++) {
      const m = matched[p]!
      matched[p] = joined === undefined
        ? (row.op === "AND_NOT" ? m ^ 1 : m)
        : row.op === "AND"
        ? joined[p]! & m
        : row.op === "OR"
        ? joined[p]! | m
        : joined[p]! & (m ^ 1)
    }
    joined = matched
  }
  return joined
}

const advanced = (t: Tables, request: AdvancedSearchRequest, offset: number, limit: number): AdvancedHits => {
  const joined = joinRows(t, request.rows)
  const since = sinceOf(request.changedSinceDate)
  const descending = request.sort?.direction === "DESCENDING"
  const hits: Array<Design> = []
  const byStatus: Record<string, number> = {}
  let count = 0
  for (let i = 0; i < t.sorted.length; i++) {
    const p = descending ? t.sorted.length - 1 - i : i
    if (joined?.[p] !== 1 || (since !== undefined && !(t.dates.LAST_CHANGED[p]! >= since))) continue
    if (count >= offset && hits.length < limit) hits.push(t.sorted[p]!)
    count++
    const status = t.sorted[p]!.status ?? ""
    byStatus[status] = (byStatus[status] ?? 0) + 1
  }
  return { count, designs: hits, statuses: byStatus }
}

const touch = (t: Tables, numbers: ReadonlyArray<string>, lastChanged: DateTime.Utc): ReadonlyArray<string> => {
  const unknown = [...new Set(numbers.filter((n) => !t.positionOf.has(n)))]
  if (unknown.length > 0) return unknown
  for (const number of new Set(numbers)) {
    const position = t.positionOf.get(number)!
    const before = t.sorted[position]!
    const after: Design = { ...before, title: `${before.title ?? ""} (amended)`.trimStart(), lastChanged }
    t.sorted[position] = after
    t.dates.LAST_CHANGED[position] = DateTime.toEpochMillis(lastChanged)
    // The new title's words, each added to its posting list in order unless it is there already.
    for (const word of new Set(words(after.title ?? ""))) {
      const list = t.postings.get(word) ?? empty
      if (!list.includes(position)) t.postings.set(word, Int32Array.from([...list, position]).sort())
    }
  }
  return []
}

/**
 * Builds the index over `designs`. A classification filter matches a design whose code starts with
 * it (`06` finds `06-01`) or that it starts with (`0202c` finds `02-02`, the most specific we hold).
 */
export const make = (designs: ReadonlyArray<Design>): SearchIndex => {
  const t = build(designs)
  return {
    size: t.sorted.length,
    get: (number) => {
      const position = t.positionOf.get(number)
      return position === undefined ? undefined : t.sorted[position]
    },
    search: (request, limit) => search(t, request, limit),
    advanced: (request, offset, limit) => advanced(t, request, offset, limit),
    touch: (numbers, lastChanged) => touch(t, numbers, lastChanged)
  }
}
