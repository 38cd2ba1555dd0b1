/**
 * The sandbox's in-memory search index: an inverted index from words to designs (kept in design
 * number order), so a quick search intersects a few posting lists instead of scanning every record.
 * Filters (status, classification prefix, changed since) apply to the intersection. An advanced
 * search tests each design against its rows (owner, designer and product name words have posting
 * lists of their own) and joins them left to right. `touch` amends designs in place, so that a
 * mirror's incremental sync has changes to find.
 */
import { wireDate, wireDateText } from "../wire/calendarDate.js"
import { normalizeCode } from "../wire/locarno.js"
import type { AdvancedSearchRequest, Criteria, Design, knownDateTypes, QuickSearchRequest } from "../wire/wire.js"

/** A word as indexed and as searched: lower-case letters and digits, a plural `s` dropped. */
const normalizeWord = (word: string): string => word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word

/** The words of a text, normalized. */
export const words = (text: string): Array<string> =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(normalizeWord)

/** What a search found: how many match, the designs of one window of them, and how many have each status. */
export interface Hits {
  readonly count: number
  readonly designs: ReadonlyArray<Design>
  readonly statuses: Readonly<Record<string, number>>
}

/** The criteria an advanced search understands; others are ignored and named (`unknownCriteria`). */
const knownCriteria = ["owner", "designer", "productName", "designNumber", "classification", "statuses", "date"]

/** The criteria of `request` that the index does not understand, each named once, in order. */
export const unknownCriteria = (request: AdvancedSearchRequest): ReadonlyArray<string> => [
  ...new Set(request.rows.flatMap((row) => Object.keys(row.query).filter((name) => !knownCriteria.includes(name))))
]

/** Where in `request` a date range names a kind of date the index does not hold: JSON pointers. */
export const unknownDateTypes = (request: AdvancedSearchRequest): ReadonlyArray<string> =>
  request.rows.flatMap((row, i) =>
    row.query.date === undefined || Object.hasOwn(dateFields, row.query.date.type) ? [] : [`/rows/${i}/query/date/type`]
  )

/** @since 0.1.0 */
export interface SearchIndex {
  /** How many designs it was made with. */
  readonly size: number
  readonly get: (designNumber: string) => Design | undefined
  /** The first `limit` matches of a quick search. */
  readonly search: (request: QuickSearchRequest, limit: number) => Hits
  /**
   * The matches of an advanced search from the `offset`-th on, at most `limit` of them. Criteria
   * it does not know are ignored, and so is a date range of a kind it does not hold: the app
   * refuses those first (`unknownDateTypes`).
   */
  readonly advanced: (request: AdvancedSearchRequest, offset: number, limit: number) => Hits
  /**
   * Appends " (amended)" to each design's title, sets its `lastChanged` to the day (UTC) of `now`
   * (epoch milliseconds) and indexes its new title words. Touches nothing and returns the numbers
   * it does not hold if there are any.
   */
  readonly touch: (numbers: ReadonlyArray<string>, now: number) => ReadonlyArray<string>
  /** Indexes `designs` in place of those it held (`register.ts` moves the register so). */
  readonly rebuild: (designs: ReadonlyArray<Design>) => void
}

/** The fields an advanced search matches words against, indexed under `field:word`, and their texts. */
const wordFields = {
  owner: (design: Design) => (design.owners ?? []).map((o) => o.name),
  designer: (design: Design) => (design.designers ?? []).map((d) => d.name),
  productName: (design: Design) => design.productNames ?? []
}
const wordFieldNames = Object.keys(wordFields) as ReadonlyArray<keyof typeof wordFields>

/** The field each kind of date is read from: the sandbox's designs claim no earlier priority than their filing. */
const dateFields = {
  FILING: "filingDate",
  REGISTRATION: "registrationDate",
  PRIORITY: "filingDate",
  EXPIRY: "expiryDate",
  LAST_CHANGED: "lastChanged"
} as const satisfies Record<(typeof knownDateTypes)[number], keyof Design>
type DateType = keyof typeof dateFields

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
const millisOf = (date: string | undefined): number => (date === undefined ? undefined : wireDate(date)) ?? NaN
const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`)

/** The positions holding every word of `text` (under `prefix`), by the shortest list first. */
const allWords = (postings: ReadonlyMap<string, Int32Array>, text: string, prefix = ""): Int32Array => {
  const lists = [...new Set(words(text))].map((w) => postings.get(prefix + w) ?? empty)
  const [first = empty, ...rest] = lists.sort((a, b) => a.length - b.length)
  return rest.reduce((matches, list) => matches.length === 0 ? matches : intersect(matches, list), first)
}

/**
 * Whether a design's code matches a classification asked for, either being the other's prefix. A
 * classification with no letter or digit (`((((`) names no class, so it matches none.
 */
const codeMatches = (codes: ReadonlyArray<string>, wanted: ReadonlyArray<string>): boolean =>
  codes.some((c) => wanted.some((f) => f !== "" && (c.startsWith(f) || f.startsWith(c))))

/** The designs in number order, and by position their words, codes, statuses and dates. */
const build = (designs: ReadonlyArray<Design>) => {
  const sorted = [...designs].sort((a, b) =>
    a.number.length - b.number.length || (a.number < b.number ? -1 : a.number > b.number ? 1 : 0)
  )
  const lists = new Map<string, Array<number>>()
  const add = (keys: ReadonlyArray<string>, position: number) => {
    for (const key of new Set(keys)) {
      const list = lists.get(key)
      if (list === undefined) lists.set(key, [position])
      else list.push(position)
    }
  }
  sorted.forEach((design, position) => {
    const fields = wordFieldNames.map((field) => [field, wordFields[field](design).join(" ")] as const)
    const classTitles = (design.classifications ?? []).map((c) => c.title ?? "")
    add(
      words([design.number, design.title ?? "", ...classTitles, ...fields.map(([, text]) => text)].join(" ")),
      position
    )
    for (const [field, text] of fields) add(words(text).map((w) => `${field}:${w}`), position)
  })
  return {
    sorted,
    all: Int32Array.from(sorted.keys()),
    positionOf: new Map<string, number>(sorted.map((d, position) => [d.number, position])),
    postings: new Map([...lists].map(([key, list]) => [key, Int32Array.from(list)])),
    codes: sorted.map((design) => (design.classifications ?? []).map((c) => normalizeCode(c.code))),
    statuses: sorted.map((design) => (design.status ?? "").toUpperCase()),
    dates: Object.fromEntries(
      Object.entries(dateFields).map(([type, field]) => [type, Float64Array.from(sorted, (d) => millisOf(d[field]))])
    ) as Record<DateType, Float64Array>
  }
}
type Tables = ReturnType<typeof build>

/**
 * The `offset`-th to `offset + limit`-th of `positions` that `keep` keeps and that changed since the
 * request's date, in the request's order; with how many there are and, if asked, their statuses.
 */
const collect = (
  t: Tables,
  positions: Int32Array,
  keep: (p: number) => boolean,
  request: QuickSearchRequest | AdvancedSearchRequest,
  window: { readonly offset: number; readonly limit: number; readonly statuses: boolean }
): Hits => {
  const since = request.changedSinceDate === undefined ? undefined : dayOf(request.changedSinceDate)
  const descending = request.sort?.direction === "DESCENDING"
  const designs: Array<Design> = []
  const statuses: Record<string, number> = {}
  let count = 0
  for (let i = 0; i < positions.length; i++) {
    const p = positions[descending ? positions.length - 1 - i : i]!
    if (!keep(p) || (since !== undefined && !(t.dates.LAST_CHANGED[p]! >= since))) continue
    if (count++ >= window.offset && designs.length < window.limit) designs.push(t.sorted[p]!)
    if (window.statuses) statuses[t.statuses[p]!] = (statuses[t.statuses[p]!] ?? 0) + 1
  }
  return { count, designs, statuses }
}

const search = (t: Tables, request: QuickSearchRequest, limit: number): Hits => {
  const statusFilter = request.filters?.statusFilter?.map((s) => s.toUpperCase())
  const classFilter = request.filters?.classificationFilter?.map(normalizeCode)
  const keep = (p: number) =>
    (statusFilter === undefined || statusFilter.includes(t.statuses[p]!)) &&
    (classFilter === undefined || codeMatches(t.codes[p]!, classFilter))
  return collect(t, allWords(t.postings, request.query), keep, request, { offset: 0, limit, statuses: false })
}

/** Whether a design matches one row's criteria: every criterion it names and the index knows must hold. */
const rowTest = (t: Tables, criteria: Criteria): (p: number) => boolean => {
  // Word and number criteria narrow the candidates to a list; the others test each design.
  const lists = wordFieldNames.flatMap((field) => {
    const text = criteria[field]
    return text === undefined ? [] : [allWords(t.postings, text, `${field}:`)]
  })
  if (criteria.designNumber !== undefined) {
    const position = t.positionOf.get(criteria.designNumber.trim())
    lists.push(position === undefined ? empty : Int32Array.of(position))
  }
  const candidates = lists.length === 0 ? undefined : new Uint8Array(t.sorted.length)
  if (candidates !== undefined) { for (const p of lists.reduce(intersect)) candidates[p] = 1 }
  const statuses = criteria.statuses?.map((s) => s.toUpperCase())
  const codes = criteria.classification === undefined ? undefined : [normalizeCode(criteria.classification)]
  const range = criteria.date
  const dates = range === undefined ? undefined : (t.dates as Record<string, Float64Array>)[range.type]
  const from = range?.from === undefined ? -Infinity : dayOf(range.from)
  const to = range?.to === undefined ? Infinity : dayOf(range.to) + dayMillis - 1
  return (p) =>
    (candidates === undefined || candidates[p] === 1) &&
    (statuses === undefined || statuses.includes(t.statuses[p]!)) &&
    (codes === undefined || codeMatches(t.codes[p]!, codes)) &&
    (dates === undefined || dates[p]! >= from && dates[p]! <= to)
}

/** The rows joined left to right, from no design, or from every design when the first row is `AND_NOT`. */
const advanced = (t: Tables, request: AdvancedSearchRequest, offset: number, limit: number): Hits => {
  const rows = request.rows.map((row, i) =>
    [i === 0 && row.op === "AND" ? "OR" : row.op, rowTest(t, row.query)] as const
  )
  const start = request.rows[0]?.op === "AND_NOT"
  const keep = (p: number) => {
    let kept = start
    for (const [op, test] of rows) {
      kept = op === "AND" ? kept && test(p) : op === "OR" ? kept || test(p) : kept && !test(p)
    }
    return kept
  }
  return collect(t, t.all, keep, request, { offset, limit, statuses: true })
}

const touch = (t: Tables, numbers: ReadonlyArray<string>, now: number): ReadonlyArray<string> => {
  const unknown = [...new Set(numbers.filter((n) => !t.positionOf.has(n)))]
  if (unknown.length > 0) return unknown
  const today = Math.floor(now / dayMillis) * dayMillis
  const lastChanged = wireDateText(today)
  for (const number of new Set(numbers)) {
    const position = t.positionOf.get(number)!
    const before = t.sorted[position]!
    const after: Design = { ...before, title: `${before.title ?? ""} (amended)`.trimStart(), lastChanged }
    t.sorted[position] = after
    t.dates.LAST_CHANGED[position] = today
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
  let t = build(designs)
  return {
    size: t.sorted.length,
    get: (number) => {
      const position = t.positionOf.get(number)
      return position === undefined ? undefined : t.sorted[position]
    },
    search: (request, limit) => search(t, request, limit),
    advanced: (request, offset, limit) => advanced(t, request, offset, limit),
    touch: (numbers, now) => touch(t, numbers, now),
    rebuild: (designs) => {
      t = build(designs)
    }
  }
}
