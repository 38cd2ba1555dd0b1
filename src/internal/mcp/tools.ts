/**
 * The MCP toolkit's tools over the client (`search_designs`, `get_design`), their arguments and
 * answers declared by `Schema`, and every answer sized for an agent's context (docs/mcp.md). Each
 * tool answers a result: a failure is `isError` with one line, never a failure of the call.
 */
import { openStruct, Query, refine } from "#edition/internal/domainSchemas"
import { describeAs, intBetween } from "#edition/internal/mcp/schemas"
import type { AnySchema } from "#edition/internal/mcp/schemas"
import { catchAll, decodeUnknownEffect, encodeResult, Result } from "#edition/internal/seam"
import { Data, Effect, Schema, Stream } from "effect"
import { noMask } from "../../core/mask/mask.js"
import * as DesignSearchClient from "../../DesignSearchClient.js"
import { Design, IsoDate } from "../../Designs.js"
import type { AdvancedSearchRequest, QuickSearchRequest } from "../../Designs.js"
import { describe, parseOptions } from "../schemaIssues.js"

/** What a tool answers: its text, its structured content, and whether it failed. */
export interface Answer {
  readonly isError: boolean
  readonly text: string
  readonly structured?: object | undefined
}

/** A failure told to an agent in one line (the CLI's own words, where the CLI serves the tools). */
export type Explain = (failure: { readonly _tag: string; readonly message: string }) => string

/** A tool: its name, arguments, answer and description, and how it answers. */
export interface Spec<R> {
  readonly name: string
  readonly description: string
  readonly parameters: AnySchema
  readonly output: AnySchema
  readonly run: (args: unknown) => Effect.Effect<Answer, never, R>
}

/** An input the tool refuses, told as it is. */
export class Refused extends Data.TaggedError("Refused")<{ readonly message: string }> {}

/** Runs `f` on arguments `parameters` decodes, every failure an `isError` answer in one line. */
export const tool = <S extends AnySchema, E extends { readonly _tag: string; readonly message: string }, R>(
  name: string,
  parameters: S,
  explain: Explain,
  f: (args: S["Type"]) => Effect.Effect<object, E, R>
) =>
(args: unknown): Effect.Effect<Answer, never, R> =>
  decodeUnknownEffect(parameters)(args ?? {}, parseOptions).pipe(
    Effect.mapError((error) => new Refused({ message: `${name}: invalid arguments: ${describe(error, noMask)}` })),
    Effect.flatMap(f),
    Effect.map((structured): Answer => ({ isError: false, text: JSON.stringify(structured), structured })),
    catchAll((failure) =>
      Effect.succeed({ isError: true, text: failure._tag === "Refused" ? failure.message : explain(failure) })
    )
  )

/** A text cut to `length` characters, with an ellipsis. */
export const cut = (text: string, length: number) => text.length > length ? `${text.slice(0, length - 1)}…` : text

const Classes = Schema.Array(describeAs(
  refine(Schema.String, (s) => /^\d{2}(?:-\d{2}[A-Za-z]?)?$/.test(s) || "expected a Locarno class 06 or subclass 06-01"),
  "a Locarno class 06, or a subclass 06-01"
))

const SearchArgs = Schema.Struct({
  query: Schema.optional(describeAs(Query, "words of the title, products, owners or designers: \"chair\"")),
  owner: Schema.optional(describeAs(Query, "words of an owner's name: \"wattle furniture\"")),
  designer: Schema.optional(describeAs(Query, "words of a designer's name")),
  product: Schema.optional(describeAs(Query, "words of a product name: \"stool\"")),
  classification: Schema.optional(describeAs(Classes, "Locarno classes, any of them: [\"06\", \"12-08\"]")),
  status: Schema.optional(describeAs(Schema.Array(Query), "statuses, any of them: [\"REGISTERED\", \"FILED\"]")),
  changed_since: Schema.optional(describeAs(IsoDate, "designs changed on or after this day, YYYY-MM-DD")),
  limit: Schema.optional(describeAs(intBetween(1, 100), "hits to show, 1 to 100 (default 20)")),
  cursor: Schema.optional(describeAs(Schema.String, "the cursor of the previous answer, for the next hits"))
})

const Hit = Schema.Struct({
  number: Schema.String,
  title: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  owner: Schema.optional(Schema.String),
  classes: Schema.optional(Schema.String)
})
const SearchAnswer = Schema.Struct({
  count: Schema.Number,
  hits: Schema.Array(Hit),
  cursor: Schema.optional(Schema.String),
  note: Schema.optional(Schema.String),
  messages: Schema.optional(Schema.Array(Schema.String))
})

const GetArgs = Schema.Struct({ number: describeAs(Query, "the design's number: \"201900001\"") })
const GetAnswer = openStruct({
  number: Schema.String,
  title: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  owners: Schema.optional(Schema.Array(Schema.String)),
  designers: Schema.optional(Schema.Array(Schema.String)),
  parties: Schema.optional(Schema.String),
  statementOfNewness: Schema.optional(Schema.String),
  cut: Schema.optional(Schema.String)
})

/** Longest statement of newness `get_design` shows; the rest is told as cut. */
export const statementLength = 1200

type Encoded = Readonly<Record<string, unknown>>
const encode = encodeResult(Design)
const names = (parties: unknown) =>
  Array.isArray(parties) ? parties.flatMap((p: { readonly name?: unknown }) => typeof p.name === "string" ? [p.name] : []) : []
const day = (value: unknown) => typeof value === "string" ? value.slice(0, 10) : undefined
const classes = (design: Encoded) =>
  Array.isArray(design["classifications"])
    ? design["classifications"].map((c: { readonly code?: unknown }) => String(c.code)).join(", ")
    : undefined
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

/** A design as one hit: number, title, status, first owner and classes. */
const hitOf = (design: Design) => {
  const e = Result.getOrUndefined(encode(design)) as Encoded
  const title = typeof e["title"] === "string" ? cut(e["title"], 80) : undefined
  return defined({ number: design.number, title, status: e["status"], owner: names(e["owners"])[0], classes: classes(e) })
}

/** A whole design, compact: days as `YYYY-MM-DD`, parties by name, the statement of newness cut. */
export const compact = (design: Design): object => {
  const e = Result.getOrUndefined(encode(design)) as Encoded
  const { classifications: _, designers, filingDate, lastChanged, owners, statementOfNewness, ...rest } = e
  const [o, d] = [names(owners), names(designers)]
  const statement = typeof statementOfNewness === "string" ? statementOfNewness : undefined
  return defined({
    ...rest,
    classes: classes(e),
    filingDate: day(filingDate),
    registrationDate: day(e["registrationDate"]),
    expiryDate: day(e["expiryDate"]),
    lastChanged: day(lastChanged),
    owners: o.length > 0 ? o : undefined,
    designers: d.length > 0 ? d : undefined,
    parties: o.length + d.length === 0
      ? "the record names no owner or designer (withheld or absent): do not supply names"
      : undefined,
    statementOfNewness: statement === undefined ? undefined : cut(statement, statementLength),
    cut: statement !== undefined && statement.length > statementLength
      ? `statementOfNewness cut at ${statementLength} of ${statement.length} characters; design://${design.number} has it whole`
      : undefined
  })
}

type SearchArgs = typeof SearchArgs.Type
const refuse = (message: string) => Effect.fail(new Refused({ message: `search_designs: ${message}` }))

/** The page a cursor names (`PAGExSIZE`, as answered), or the first of `limit`. */
const pageOf = (args: SearchArgs) => {
  if (args.cursor === undefined) return Effect.succeed({ page: 0, size: args.limit ?? 20 })
  const [, page, size] = /^(\d{1,6})x(\d{1,3})$/.exec(args.cursor) ?? []
  return page === undefined || Number(size) < 1 || Number(size) > 100
    ? refuse("cursor: not one this tool answered; leave it out to start from the first hits")
    : Effect.succeed({ page: Number(page), size: Number(size) })
}

const search = (args: SearchArgs) =>
  Effect.gen(function*() {
    const { changed_since, classification = [], designer, owner, product, query, status = [] } = args
    const criteria = defined({ owner, designer, productName: product })
    if (query === undefined && Object.keys(criteria).length + classification.length + status.length === 0) {
      return yield* refuse("give at least one criterion: query, owner, designer, product, classification or status")
    }
    if (query !== undefined && Object.keys(criteria).length > 0) {
      return yield* refuse("query is a search of its own: give owner, designer or product without query")
    }
    const { page, size } = yield* pageOf(args)
    const client = yield* DesignSearchClient.DesignSearchClient
    const since = changed_since === undefined ? {} : { changedSinceDate: changed_since }
    let count = 0
    let messages: ReadonlyArray<{ readonly code: string; readonly detail: string }> = []
    const designs: Array<Design> = []
    const collect = <E>(stream: Stream.Stream<Design, E>) =>
      Stream.runForEach(Stream.take(stream, size), (d) => Effect.sync(() => designs.push(d)))
    if (query !== undefined) {
      const filters = defined({
        statusFilter: status.length > 0 ? status : undefined,
        classificationFilter: classification.length > 0 ? classification : undefined
      })
      const request: QuickSearchRequest = { query, ...since, ...(Object.keys(filters).length > 0 ? { filters } : {}) }
      const found = yield* client.quickSearch(request)
      ;[count, messages] = [found.data.count, found.messages]
      const numbers = found.data.designNumbers.slice(page * size, page * size + size)
      const got = yield* Effect.forEach(numbers, (n) => client.getDesign(n), { concurrency: 8 })
      designs.push(...got.map((g) => g.data))
    } else {
      const shared = { ...criteria, ...(status.length > 0 ? { statuses: status } : {}) }
      const rows = classification.length === 0
        ? [{ op: "AND" as const, query: shared }]
        : classification.map((code, i) => ({ op: i === 0 ? "AND" as const : "OR" as const, query: { ...shared, classification: code } }))
      const request: AdvancedSearchRequest = { rows, ...since }
      yield* collect(client.advancedDesigns(request, {
        pageSize: size,
        startPage: page,
        concurrency: 1,
        onPage: (info) => Effect.sync(() => void ([count, messages] = [info.count, info.messages]))
      }))
    }
    const more = (page + 1) * size < count && designs.length === size
    return defined({
      count,
      hits: designs.map(hitOf),
      cursor: more ? `${page + 1}x${size}` : undefined,
      note: count === 0 ? "no design matches" : designs.length === 0 ? "no more hits" : undefined,
      messages: messages.length > 0 ? messages.map((m) => `${m.code}: ${cut(m.detail, 200)}`) : undefined
    })
  })

/** The tools over the client, their failures told by `explain`. */
export const clientTools = (explain: Explain): ReadonlyArray<Spec<DesignSearchClient.DesignSearchClient>> => [{
  name: "search_designs",
  description: "Searches Australian registered designs. Answers the count, then one hit a design (number, title, " +
    "status, first owner, Locarno classes), and a cursor while there are more: pass it back for the next hits. " +
    "Give a query (words) or criteria (owner, designer, product), with classification, status or changed_since " +
    "to narrow; criteria without a query cost one request for up to 100 hits. Example: " +
    "{\"owner\": \"wattle\", \"status\": [\"REGISTERED\"], \"limit\": 50}",
  parameters: SearchArgs,
  output: SearchAnswer,
  run: tool("search_designs", SearchArgs, explain, search)
}, {
  name: "get_design",
  description: "One design in full, compact: title, status, days, owners, designers, products, classes and its " +
    "statement of newness (cut, and said so, when long). Says when the record names no owner or designer. " +
    "Example: {\"number\": \"201900001\"}",
  parameters: GetArgs,
  output: GetAnswer,
  run: tool("get_design", GetArgs, explain, ({ number }) =>
    Effect.flatMap(DesignSearchClient.DesignSearchClient, (client) =>
      Effect.map(client.getDesign(number), ({ data }) => compact(data))))
}]

/** The whole record of `number`, as the wire writes it: the resource `design://{number}`. */
export const record = (number: string) =>
  Effect.flatMap(DesignSearchClient.DesignSearchClient, (client) =>
    Effect.map(client.getDesign(number), ({ data }) => JSON.stringify(Result.getOrUndefined(encode(data)))))
