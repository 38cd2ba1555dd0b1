/** The tools over the client, declared by `Schema`, their answers sized for a context window (docs/mcp.md). */
import { openStruct, Query, refine } from "#edition/internal/domainSchemas"
import { describeAs as d, intBetween, McpSchema } from "#edition/internal/mcp/server"
import type { AnySchema } from "#edition/internal/mcp/server"
import { catchAll, decodeUnknownEffect, encodeResult, Result } from "#edition/internal/seam"
import { Data, Effect, Schema, Stream } from "effect"
import type { Message } from "../../ApiError.js"
import { cap, noMask } from "../../core/mask/mask.js"
import { Design, IsoDate } from "../../Designs.js"
import * as DesignSearchClient from "../../DesignSearchClient.js"
import { describe, parseOptions } from "../schemaIssues.js"

/** A failure told in one line (the CLI tells it in its own words). */
export type Explain = (failure: { readonly _tag: string; readonly message: string }) => string
/** A tool: its name, description, argument and answer schemas, and its run, which never fails. */
export interface Spec<R> {
  readonly name: string
  readonly description: string
  readonly parameters: AnySchema
  readonly output: AnySchema
  readonly run: (args: unknown, explain: Explain) => Effect.Effect<McpSchema.CallToolResult, never, R>
}

export class Refused extends Data.TaggedError("Refused")<{ readonly message: string }> {}
export const refuse = (tool: string, message: string) => Effect.fail(new Refused({ message: `${tool}: ${message}` }))

/** A tool running `f` on the arguments `parameters` decodes; `text` tells its answer (default JSON). */
export const tool = <S extends AnySchema, O extends object, E extends Parameters<Explain>[0], R>(
  name: string,
  description: string,
  [parameters, output]: readonly [S, AnySchema],
  f: (args: S["Type"]) => Effect.Effect<O, E | Refused, R>,
  text: (structured: O) => string = JSON.stringify
): Spec<R> => ({
  ...{ name, description, parameters, output },
  run: (args, explain) =>
    decodeUnknownEffect(parameters)(args ?? {}, parseOptions).pipe(
      Effect.mapError((e) => new Refused({ message: `${name}: invalid arguments: ${describe(e, noMask)}` })),
      Effect.flatMap(f),
      Effect.map((structured) => answer(false, text(structured), structured)),
      catchAll((e) => Effect.succeed(answer(true, e._tag === "Refused" ? e.message : explain(e))))
    )
})
const answer = (isError: boolean, text: string, structuredContent?: object) =>
  new McpSchema.CallToolResult({ isError, content: [{ type: "text", text }], structuredContent })

const utf8 = new TextEncoder()
const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value)).length
/** `text` cut so that, written as JSON, it takes at most `bytes` bytes: an answer's size is bounded, whatever the record. */
const fit = (text: string, bytes: number) => {
  if (jsonBytes(text) <= bytes) return text
  const chars = Array.from(text)
  let [lo, hi] = [0, chars.length]
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (jsonBytes(chars.slice(0, mid).join("") + "…") <= bytes) lo = mid
    else hi = mid - 1
  }
  return chars.slice(0, lo).join("") + "…"
}
type Defined<O> = { [K in keyof O]: Exclude<O[K], undefined> }
const defined = <O extends object>(o: O) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Defined<O>

const locarno = (s: string) => /^\d{2}(?:-\d{2}[A-Za-z]?)?$/.test(s) || "expected a Locarno class 06 or subclass 06-01"
const SearchArgs = Schema.Struct({
  query: Schema.optional(d(Query, "words of titles, products, owners or designers: \"chair\"")),
  owner: Schema.optional(d(Query, "words of an owner's name: \"wattle furniture\"")),
  designer: Schema.optional(d(Query, "words of a designer's name")),
  product: Schema.optional(d(Query, "words of a product name: \"stool\"")),
  classification: Schema.optional(
    d(Schema.Array(refine(Schema.String, locarno)), "Locarno classes: [\"06\", \"12-08\"]")
  ),
  status: Schema.optional(d(Schema.Array(Query), "statuses, any of them: [\"REGISTERED\", \"FILED\"]")),
  changed_since: Schema.optional(d(IsoDate, "designs changed on or after this day, YYYY-MM-DD")),
  limit: Schema.optional(d(intBetween(1, 100), "hits to show, 1 to 100 (default 20)")),
  cursor: Schema.optional(d(Schema.String, "the cursor of the previous answer, for the next hits"))
})
const [text, list] = [Schema.optional(Schema.String), Schema.optional(Schema.Array(Schema.String))]
const Hit = Schema.Struct({ number: Schema.String, title: text, status: text, owner: text, classes: text })
const SearchAnswer = Schema.Struct({
  count: Schema.Number,
  hits: Schema.Array(Hit),
  cursor: text,
  note: text,
  messages: list
})
const GetArgs = Schema.Struct({ number: d(Query, "the design's number: \"201900001\"") })
const GetAnswer = openStruct({ number: Schema.String, owners: list, designers: list, parties: text, cut: text })

const designOf = (number: string) => Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.getDesign(number))
/** Longest statement of newness `get_design` shows. */
export const statementLength = 1200

const encode = (design: Design) => Result.getOrUndefined(encodeResult(Design)(design)) as Record<string, unknown>
const namesOf = (parties: Design["owners"]) => parties?.map((p) => p.name) ?? []
/** The first `shown` classes by code, and how many more. */
const classes = (design: Design, shown = 20) => {
  const codes = design.classifications?.map((c) => fit(c.code, 12)) ?? []
  return codes.length === 0
    ? undefined
    : codes.slice(0, shown).join(", ") + (codes.length > shown ? ` +${codes.length - shown}` : "")
}

/** A hit as one line or object, each text bounded: 20 of them fit in 6,000 bytes, both ways together. */
const hitOf = (design: Design) => {
  const [title, owner] = [design.title && fit(design.title, 40), design.owners?.[0]?.name]
  const status = design.status && fit(design.status, 14)
  return defined({ number: design.number, title, status, owner: owner && fit(owner, 28), classes: classes(design, 3) })
}

const noParties = "the record names no owner or designer (withheld or absent): do not supply names"
/** Names, at most 8 of them, each bounded, and how many more. */
const names = (parties: Design["owners"]) => {
  const all = namesOf(parties)
  return all.length === 0
    ? undefined
    : all.slice(0, 8).map((n) => fit(n, 60)).concat(all.length > 8 ? [`+${all.length - 8}`] : [])
}
/** Any other field of the record, bounded: texts cut, lists of at most 8, no deeper than two levels. */
export const bounded = (value: unknown, depth = 0): unknown =>
  typeof value === "string"
    ? fit(value, 120)
    : Array.isArray(value)
    ? value.slice(0, 8).map((v) => bounded(v, depth + 1)).concat(value.length > 8 ? [`+${value.length - 8}`] : [])
    : typeof value !== "object" || value === null
    ? value
    : depth > 1
    ? fit(JSON.stringify(value), 160)
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [fit(k, 40), bounded(v, depth + 1)]))
const kept = new Set(["number", "status", "parties"])
/** What an answer of `value` weighs: its text (JSON in JSON, escaped twice) and its structured content. */
const answerBytes = (value: unknown) => jsonBytes(JSON.stringify(value)) + jsonBytes(value)

/**
 * A whole design, compact: parties by name, classes by code, every text bounded, the statement of
 * newness cut; the largest fields are left out, and named, until the answer (which holds it twice,
 * as text and as structured content) takes 3,000 bytes at most.
 */
export const compact = (design: Design) => {
  const { classifications: _, designers: _d, owners: _o, statementOfNewness: _s, title, ...rest } = encode(design)
  const [o, d, statement] = [names(design.owners), names(design.designers), design.statementOfNewness]
  const shown: Record<string, unknown> = defined({
    ...(bounded(rest) as object),
    title: typeof title === "string" ? fit(title, 120) : undefined,
    classes: classes(design),
    owners: o,
    designers: d,
    parties: o === undefined && d === undefined ? noParties : undefined
  })
  const left: Array<string> = []
  for (const [key] of Object.entries(shown).sort(([, a], [, b]) => jsonBytes(b) - jsonBytes(a))) {
    if (answerBytes(shown) + 2 * (100 + 20 * left.length) <= 2800) break
    if (!kept.has(key)) {
      left.push(key)
      delete shown[key]
    }
  }
  return defined({
    ...shown,
    left: left.length === 0 ? undefined : `left out for size: ${left.join(", ")}; design://${design.number} has them`,
    statementOfNewness: statement === undefined ? undefined : cap(statement, statementLength),
    cut: statement !== undefined && statement.length > statementLength
      ? `statementOfNewness cut at ${statementLength} of ${statement.length} characters; design://${design.number} has it whole`
      : undefined
  })
}

type SearchAnswer = typeof SearchAnswer.Type
const search = (args: typeof SearchArgs.Type) =>
  Effect.gen(function*() {
    const { changed_since, classification = [], query, status = [] } = args
    const criteria = defined({ owner: args.owner, designer: args.designer, productName: args.product })
    const named = Object.keys(criteria).length
    const no = (message: string) => refuse("search_designs", message)
    if (query === undefined && named + classification.length + status.length === 0) {
      return yield* no("give at least one criterion: query, owner, designer, product, classification or status")
    }
    if (query !== undefined && named > 0) return yield* no("query is a search of its own: give criteria without it")
    const [page, size] = args.cursor === undefined
      ? [0, args.limit ?? 20]
      : (/^(\d{1,6})x([1-9]\d?|100)$/.exec(args.cursor) ?? []).slice(1).map(Number)
    if (page === undefined || size === undefined) return yield* no("cursor: not one this tool answered; leave it out")
    const client = yield* DesignSearchClient.DesignSearchClient
    const since = changed_since === undefined ? {} : { changedSinceDate: changed_since }
    let [count, messages]: [number, ReadonlyArray<Message>] = [0, []]
    let designs: ReadonlyArray<Design>
    if (query !== undefined) {
      const some = (list: ReadonlyArray<string>) => list.length > 0 ? list : undefined
      const filters = defined({ statusFilter: some(status), classificationFilter: some(classification) })
      const found = yield* client.quickSearch({ query, ...since, ...(Object.keys(filters).length > 0 && { filters }) })
      const numbers = found.data.designNumbers.slice(page * size, page * size + size)
      const got = yield* Effect.forEach(numbers, client.getDesign, { concurrency: 8 })
      ;[count, messages, designs] = [found.data.count, found.messages, got.map((r) => r.data)]
    } else {
      const shared = { ...criteria, ...(status.length > 0 ? { statuses: status } : {}) }
      const rows = (classification.length === 0 ? [undefined] : classification).map((code, i) => ({
        op: i === 0 ? "AND" as const : "OR" as const,
        query: code === undefined ? shared : { ...shared, classification: code }
      }))
      const onPage = (info: { count: number; messages: ReadonlyArray<Message> }) =>
        Effect.sync(() => void ([count, messages] = [info.count, info.messages]))
      const paging = { pageSize: size, startPage: page, concurrency: 1, onPage }
      designs = Array.from(
        yield* Stream.runCollect(Stream.take(client.advancedDesigns({ rows, ...since }, paging), size))
      )
    }
    return defined({
      count,
      hits: designs.map(hitOf),
      cursor: (page + 1) * size < count && designs.length === size ? `${page + 1}x${size}` : undefined,
      note: count === 0 ? "no design matches" : designs.length === 0 ? "no more hits" : undefined,
      messages: messages.length > 0 ? messages.slice(0, 2).map((m) => fit(`${m.code}: ${m.detail}`, 160)) : undefined
    }) as SearchAnswer
  })

const searchText = (a: SearchAnswer) =>
  [
    `${a.count} ${a.count === 1 ? "design matches" : "designs match"}${a.note === undefined ? "" : ` (${a.note})`}`,
    ...a.hits.map((h) => [h.number, h.title, h.status, h.owner, h.classes].map((v) => v ?? "-").join(" | ")),
    ...(a.cursor === undefined ? [] : [`more: cursor ${a.cursor}`]),
    ...(a.messages ?? [])
  ].join("\n")

/** The tools over the client. */
export const clientTools: ReadonlyArray<Spec<DesignSearchClient.DesignSearchClient>> = [
  tool(
    "search_designs",
    "Searches Australian registered designs. Answers the count, then one line a hit (number | title | " +
      "status | first owner | Locarno classes), and a cursor while there are more: pass it back for the next hits. " +
      "Give a query (words) or criteria (owner, designer, product), with classification, status or changed_since " +
      "to narrow; criteria without a query cost one request for up to 100 hits. Example: " +
      "{\"owner\": \"wattle\", \"status\": [\"REGISTERED\"], \"limit\": 50}",
    [SearchArgs, SearchAnswer],
    search,
    searchText
  ),
  tool(
    "get_design",
    "One design in full, compact: title, status, days, owners, designers, products, classes and its " +
      "statement of newness (cut, and said so, when long). Says when the record names no owner or designer. " +
      "Example: {\"number\": \"201900001\"}",
    [GetArgs, GetAnswer],
    ({ number }) => Effect.map(designOf(number), (r) => compact(r.data))
  )
]

/** The whole record of `number` as JSON, as the wire writes it: `design://{number}`. */
export const record = (number: string) => Effect.map(designOf(number), (r) => JSON.stringify(encode(r.data)))
