/**
 * The domain schemas the client and the sandbox share: quick search request and result, design
 * numbers, and the design record. The spec shows none of these wire shapes; they follow the
 * public description of the service and stay lenient: unknown fields are kept, statuses and
 * classification codes are open strings.
 *
 * @since 0.1.0
 */
import { DateTime, ParseResult, Schema } from "effect"
import { isCalendarDate, wireDate, wireDateText } from "./core/calendarDate.js"
import { unwritableAt } from "./core/json.js"
import { knownDateTypes, knownStatuses } from "./core/wire.js"

export { knownDateTypes, knownStatuses } from "./core/wire.js"

const designNumberPattern = /^[A-Za-z0-9]{1,12}$/

/**
 * Design numbers: 1 to 12 ASCII letters or digits (e.g. `201915000`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DesignNumber = Schema.String.pipe(
  Schema.pattern(designNumberPattern, { message: () => "expected a design number: 1 to 12 letters or digits" }),
  Schema.brand("DesignNumber")
)

/**
 * @since 0.1.0
 * @category models
 */
export type DesignNumber = typeof DesignNumber.Type

/**
 * A calendar date written `YYYY-MM-DD`, and a real one (no 2023-02-30).
 *
 * @since 0.1.0
 * @category schemas
 */
export const IsoDate = Schema.String.pipe(
  Schema.filter((s) => isCalendarDate(s) || "expected a date written YYYY-MM-DD"),
  Schema.annotations({ identifier: "IsoDate" })
)

/**
 * A date on the wire, as a `DateTime.Utc` in code. Decodes `YYYY-MM-DD` (midnight UTC) and full
 * ISO 8601 timestamps; encodes midnight as `YYYY-MM-DD`, anything else as a timestamp, so both
 * forms round-trip.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WireDate = Schema.transformOrFail(Schema.String, Schema.DateTimeUtcFromSelf, {
  strict: true,
  decode: (s, _, ast) => {
    const millis = wireDate(s)
    return millis === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, s, "expected an ISO 8601 date"))
      : ParseResult.succeed(DateTime.unsafeMake(millis))
  },
  encode: (d) => ParseResult.succeed(wireDateText(DateTime.toEpochMillis(d)))
})

/**
 * A design's status: the known ones, or any other string as sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DesignStatus = Schema.Union(Schema.Literal(...knownStatuses), Schema.String)

/**
 * @since 0.1.0
 * @category models
 */
export type DesignStatus = (typeof knownStatuses)[number] | (string & {})

/**
 * Sort of a quick search: by design number, ascending or descending.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Sort = Schema.Struct({
  field: Schema.Union(Schema.Literal("NUMBER"), Schema.String),
  direction: Schema.Literal("ASCENDING", "DESCENDING")
})

/** The fields a record carries beyond those named: kept as sent. */
const Extensions = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A request sent as given: refused, pointing at the value, when JSON would change what it says. */
const writable = <A, I>(schema: Schema.Schema<A, I>) =>
  schema.pipe(Schema.filter((request) => {
    const path = unwritableAt(request)
    return path === undefined || { path, message: "expected a value JSON can write as it is" }
  }))

/** A non-empty string once trimmed. */
const Query = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0 || "expected a non-empty query"),
  Schema.maxLength(1000, { message: () => "expected a query of at most 1000 characters" })
)

const FilterValue = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0 || "expected a non-empty value")
)

/**
 * Quick search request body (the public example, plus optional `sort`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const QuickSearchRequest = Schema.Struct({
  query: Query,
  changedSinceDate: Schema.optional(IsoDate),
  filters: Schema.optional(Schema.Struct({
    /** Locarno codes, written like `0202c` or `06-01`: a code matches its subclasses. */
    classificationFilter: Schema.optional(Schema.Array(FilterValue)),
    statusFilter: Schema.optional(Schema.Array(FilterValue))
  })),
  sort: Schema.optional(Sort)
})

/**
 * @since 0.1.0
 * @category models
 */
export type QuickSearchRequest = typeof QuickSearchRequest.Type

/**
 * A range of one kind of date, `from` and `to` inclusive; at least one of them.
 *
 * @since 0.3.0
 * @category schemas
 */
export const DateRange = Schema.Struct({
  type: Schema.Union(Schema.Literal(...knownDateTypes), Schema.String),
  from: Schema.optional(IsoDate),
  to: Schema.optional(IsoDate)
}).pipe(
  Schema.filter((r) =>
    r.from === undefined && r.to === undefined
      ? "expected from, to or both"
      : r.from !== undefined && r.to !== undefined && r.from > r.to
      ? "expected from on or before to"
      : true
  )
)

/**
 * What one row of an advanced search asks for: every criterion given must hold. Text criteria
 * (`owner`, `designer`, `productName`) match the words of that field; `designNumber` is one number;
 * `classification` a Locarno code, matching its subclasses as the quick search's filter does.
 * Criteria the toolkit does not name pass through to the service as given.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Criteria = Schema.Struct({
  owner: Schema.optional(Query),
  designer: Schema.optional(Query),
  productName: Schema.optional(Query),
  designNumber: Schema.optional(Query),
  classification: Schema.optional(Query),
  statuses: Schema.optional(Schema.Array(FilterValue)),
  date: Schema.optional(DateRange)
}, Extensions).pipe(Schema.filter((c) => Object.keys(c).length > 0 || "expected at least one criterion"))

/**
 * @since 0.3.0
 * @category models
 */
export type Criteria = typeof Criteria.Type

/**
 * One row of an advanced search: its criteria, and how it joins the rows before it (`AND` keeps
 * what both match, `OR` what either does, `AND_NOT` takes its matches away; a first row's `AND_NOT`
 * is everything but its matches).
 *
 * @since 0.3.0
 * @category schemas
 */
export const Row = Schema.Struct({
  op: Schema.Literal("AND", "OR", "AND_NOT"),
  query: Criteria
})

/**
 * @since 0.3.0
 * @category models
 */
export type Row = typeof Row.Type

const advancedFields = {
  rows: Schema.Array(Row).pipe(
    Schema.minItems(1, { message: () => "expected at least one row" }),
    Schema.maxItems(100, { message: () => "expected at most 100 rows" })
  ),
  sort: Schema.optional(Sort),
  changedSinceDate: Schema.optional(IsoDate)
}

/**
 * Advanced search request body (`POST {base}/search/advanced`), after the sibling trade mark API:
 * rows of criteria, an optional sort and `changedSinceDate`. Other fields pass through as given.
 *
 * @since 0.3.0
 * @category schemas
 */
export const AdvancedSearchRequest = writable(Schema.Struct(advancedFields, Extensions))

/**
 * @since 0.3.0
 * @category models
 */
export type AdvancedSearchRequest = typeof AdvancedSearchRequest.Type

/**
 * The most designs one page holds.
 *
 * @since 0.3.0
 * @category constants
 */
export const maxPageSize = 100

/**
 * Paged advanced search request body (`POST {base}/page/advanced`): an advanced search with a
 * `pageNumber` (from 0) and a `pageSize` (1 to 100).
 *
 * @since 0.3.0
 * @category schemas
 */
export const PageRequest = writable(Schema.Struct({
  ...advancedFields,
  pageNumber: Schema.NonNegativeInt.annotations({ message: () => "expected a page number: an integer from 0" }),
  pageSize: Schema.Int.pipe(Schema.between(1, maxPageSize)).annotations({
    message: () => `expected a page size: an integer from 1 to ${maxPageSize}`
  })
}, Extensions))

/**
 * @since 0.3.0
 * @category models
 */
export type PageRequest = typeof PageRequest.Type

/**
 * Counts of the hits by a value of one field (`{ "REGISTERED": 12, "FILED": 3 }`), as the sibling
 * trade mark API sends them.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Aggregation = Schema.Record({ key: Schema.String, value: Schema.Number })

/**
 * Aggregations of a search, by field (`status`, ...).
 *
 * @since 0.3.0
 * @category schemas
 */
export const Aggregations = Schema.Record({ key: Schema.String, value: Aggregation })

/** What every search answers: the count, and the request as read and the aggregations when sent. */
const resultFields = {
  count: Schema.NonNegativeInt,
  request: Schema.optional(Schema.Unknown),
  aggregations: Schema.optional(Aggregations)
}

/**
 * A listing of design numbers, which may hold the whole register: a valid one is checked in one
 * pass and kept as it is; only an invalid one is decoded element by element, to say where.
 */
const DesignNumbers = Schema.declare([Schema.Array(DesignNumber)], {
  decode: (list) => (u, options) =>
    Array.isArray(u) && u.every((n) => typeof n === "string" && designNumberPattern.test(n))
      ? ParseResult.succeed(u as ReadonlyArray<DesignNumber>)
      : ParseResult.decodeUnknown(list)(u, options),
  encode: (list) => ParseResult.encodeUnknown(list)
})

/**
 * A search result (quick or advanced): how many designs match, and their numbers; the request as
 * the service read it and the aggregations, when it sends them. The client reads the numbers from
 * `designNumbers` or, failing that, `designIds` (as the sibling trade mark API's `trademarkIds`
 * suggests); this schema is the form after that reading.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SearchResult = Schema.Struct({ ...resultFields, designNumbers: DesignNumbers }, Extensions)

/**
 * @since 0.3.0
 * @category models
 */
export type SearchResult = typeof SearchResult.Type

/**
 * The result of a quick search: a `SearchResult`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const QuickSearchResult = SearchResult

/**
 * @since 0.1.0
 * @category models
 */
export type QuickSearchResult = SearchResult

/**
 * A Locarno classification: code (`06-01`) and title.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Classification = Schema.Struct({
  code: Schema.String,
  title: Schema.optional(Schema.String)
}, Extensions)

/**
 * An owner or designer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Party = Schema.Struct({ name: Schema.String }, Extensions)

/**
 * Everything publicly known about a design. Only `number` is required.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Design = Schema.Struct({
  number: DesignNumber,
  title: Schema.optional(Schema.String),
  productNames: Schema.optional(Schema.Array(Schema.String)),
  status: Schema.optional(DesignStatus),
  classifications: Schema.optional(Schema.Array(Classification)),
  owners: Schema.optional(Schema.Array(Party)),
  designers: Schema.optional(Schema.Array(Party)),
  filingDate: Schema.optional(WireDate),
  registrationDate: Schema.optional(WireDate),
  expiryDate: Schema.optional(WireDate),
  lastChanged: Schema.optional(WireDate),
  statementOfNewness: Schema.optional(Schema.String)
}, Extensions)

/**
 * @since 0.1.0
 * @category models
 */
export type Design = typeof Design.Type

/**
 * One page of a paged advanced search: how many designs match in all, the page's full records,
 * and the request as read and the aggregations when the service sends them.
 *
 * @since 0.3.0
 * @category schemas
 */
export const DesignPage = Schema.Struct({ ...resultFields, designs: Schema.Array(Design) }, Extensions)

/**
 * @since 0.3.0
 * @category models
 */
export type DesignPage = typeof DesignPage.Type
