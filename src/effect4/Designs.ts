/**
 * The domain schemas the client and the sandbox share, for Effect 4: quick and advanced search
 * requests and results, design numbers, and the design record. The same wire shapes as the
 * Effect 3 edition's `Designs` (whose docs tell the long story), described with Schema v4.
 *
 * @since 0.4.0
 */
import { DateTime, Effect, Schema, SchemaGetter, SchemaIssue } from "effect"
import { isCalendarDate, wireDate, wireDateText } from "../core/calendarDate.js"
import { unwritableAt } from "../core/json.js"
import { knownDateTypes, knownStatuses } from "../core/wire.js"

export {
  /**
   * Known kinds of date a criterion ranges over, for autocompletion.
   *
   * @since 0.4.0
   * @category constants
   */
  knownDateTypes,
  /**
   * Known design statuses, for autocompletion.
   *
   * @since 0.4.0
   * @category constants
   */
  knownStatuses
} from "../core/wire.js"

/**
 * Design numbers: 1 to 12 ASCII letters or digits (e.g. `201915000`).
 *
 * @since 0.4.0
 * @category schemas
 */
export const DesignNumber = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9]{1,12}$/, { message: "expected a design number: 1 to 12 letters or digits" })
).pipe(Schema.brand("DesignNumber"))

/**
 * @since 0.4.0
 * @category models
 */
export type DesignNumber = typeof DesignNumber.Type

/**
 * A calendar date written `YYYY-MM-DD`, and a real one (no 2023-02-30).
 *
 * @since 0.4.0
 * @category schemas
 */
export const IsoDate = Schema.String.check(
  Schema.makeFilter((s: string) => isCalendarDate(s) || "expected a date written YYYY-MM-DD")
).annotate({ identifier: "IsoDate" })

/**
 * A date on the wire, as a `DateTime.Utc` in code. Decodes `YYYY-MM-DD` (midnight UTC) and full
 * ISO 8601 timestamps; encodes midnight as `YYYY-MM-DD`, anything else as a timestamp, so both
 * forms round-trip.
 *
 * @since 0.4.0
 * @category schemas
 */
export const WireDate = Schema.String.pipe(Schema.decodeTo(Schema.DateTimeUtc, {
  decode: SchemaGetter.transformEffect((s: string, options) => {
    const millis = wireDate(s)
    return millis === undefined
      ? Effect.fail(new SchemaIssue.InvalidValue({ message: "expected an ISO 8601 date" }, s, options))
      : Effect.succeed(DateTime.makeUnsafe(millis))
  }),
  encode: SchemaGetter.transform((d: DateTime.Utc) => wireDateText(DateTime.toEpochMillis(d)))
}))

/**
 * A design's status: the known ones, or any other string as sent.
 *
 * @since 0.4.0
 * @category schemas
 */
export const DesignStatus = Schema.Union([Schema.Literals(knownStatuses), Schema.String])

/**
 * @since 0.4.0
 * @category models
 */
export type DesignStatus = (typeof knownStatuses)[number] | (string & {})

/**
 * Sort of a search: by design number, ascending or descending.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Sort = Schema.Struct({
  field: Schema.Union([Schema.Literal("NUMBER"), Schema.String]),
  direction: Schema.Literals(["ASCENDING", "DESCENDING"])
})

/** A record of `fields` that keeps the fields it carries beyond those named, as sent. */
const Open = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct(fields), [Schema.Record(Schema.String, Schema.Unknown)])

/** A request sent as given: refused, pointing at the value, when JSON would change what it says. */
const writable = <S extends Schema.Top>(schema: S) =>
  schema.check(Schema.makeFilter((request: S["Type"]) => {
    const path = unwritableAt(request)
    return path === undefined || { path, issue: "expected a value JSON can write as it is" }
  }))

/** A non-empty string once trimmed. */
const Query = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "expected a non-empty query"),
  Schema.isMaxLength(1000, { message: "expected a query of at most 1000 characters" })
)

const FilterValue = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "expected a non-empty value")
)

/**
 * Quick search request body (the public example, plus optional `sort`).
 *
 * @since 0.4.0
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
 * @since 0.4.0
 * @category models
 */
export type QuickSearchRequest = typeof QuickSearchRequest.Type

/**
 * A range of one kind of date, `from` and `to` inclusive; at least one of them.
 *
 * @since 0.4.0
 * @category schemas
 */
export const DateRange = Schema.Struct({
  type: Schema.Union([Schema.Literals(knownDateTypes), Schema.String]),
  from: Schema.optional(IsoDate),
  to: Schema.optional(IsoDate)
}).check(Schema.makeFilter((r) =>
  r.from === undefined && r.to === undefined
    ? "expected from, to or both"
    : r.from !== undefined && r.to !== undefined && r.from > r.to
    ? "expected from on or before to"
    : true
))

/**
 * What one row of an advanced search asks for: every criterion given must hold (see the Effect 3
 * edition's `Criteria`). Criteria the toolkit does not name pass through to the service as given.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Criteria = Open({
  owner: Schema.optional(Query),
  designer: Schema.optional(Query),
  productName: Schema.optional(Query),
  designNumber: Schema.optional(Query),
  classification: Schema.optional(Query),
  statuses: Schema.optional(Schema.Array(FilterValue)),
  date: Schema.optional(DateRange)
}).check(Schema.makeFilter((c) => Object.keys(c).length > 0 || "expected at least one criterion"))

/**
 * @since 0.4.0
 * @category models
 */
export type Criteria = typeof Criteria.Type

/**
 * One row of an advanced search: its criteria, and how it joins the rows before it.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Row = Schema.Struct({
  op: Schema.Literals(["AND", "OR", "AND_NOT"]),
  query: Criteria
})

/**
 * @since 0.4.0
 * @category models
 */
export type Row = typeof Row.Type

const advancedFields = {
  rows: Schema.Array(Row).check(
    Schema.isMinLength(1, { message: "expected at least one row" }),
    Schema.isMaxLength(100, { message: "expected at most 100 rows" })
  ),
  sort: Schema.optional(Sort),
  changedSinceDate: Schema.optional(IsoDate)
}

/**
 * Advanced search request body (`POST {base}/search/advanced`): rows of criteria, an optional sort
 * and `changedSinceDate`. Other fields pass through as given.
 *
 * @since 0.4.0
 * @category schemas
 */
export const AdvancedSearchRequest = writable(Open(advancedFields))

/**
 * @since 0.4.0
 * @category models
 */
export type AdvancedSearchRequest = typeof AdvancedSearchRequest.Type

/**
 * The most designs one page holds.
 *
 * @since 0.4.0
 * @category constants
 */
export const maxPageSize = 100

/** An integer from 0. */
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * Paged advanced search request body (`POST {base}/page/advanced`): an advanced search with a
 * `pageNumber` (from 0) and a `pageSize` (1 to 100).
 *
 * @since 0.4.0
 * @category schemas
 */
export const PageRequest = writable(Open({
  ...advancedFields,
  // as the Effect 3 edition words it: its own message for a fraction, the check's for a negative
  pageNumber: Schema.Number.check(
    Schema.isGreaterThanOrEqualTo(0),
    Schema.isInt({ message: "expected a page number: an integer from 0" })
  ),
  pageSize: Schema.Int.check(
    Schema.isBetween({ minimum: 1, maximum: maxPageSize }, {
      message: `expected a page size: an integer from 1 to ${maxPageSize}`
    })
  )
}))

/**
 * @since 0.4.0
 * @category models
 */
export type PageRequest = typeof PageRequest.Type

/**
 * Counts of the hits by a value of one field (`{ "REGISTERED": 12, "FILED": 3 }`).
 *
 * @since 0.4.0
 * @category schemas
 */
export const Aggregation = Schema.Record(Schema.String, Schema.Number)

/**
 * Aggregations of a search, by field (`status`, ...).
 *
 * @since 0.4.0
 * @category schemas
 */
export const Aggregations = Schema.Record(Schema.String, Aggregation)

/** What every search answers: the count, and the request as read and the aggregations when sent. */
const resultFields = {
  count: NonNegativeInt,
  request: Schema.optional(Schema.Unknown),
  aggregations: Schema.optional(Aggregations)
}

/**
 * A search result (quick or advanced): how many designs match, and their numbers; the request as
 * the service read it and the aggregations, when it sends them.
 *
 * @since 0.4.0
 * @category schemas
 */
export const SearchResult = Open({ ...resultFields, designNumbers: Schema.Array(DesignNumber) })

/**
 * @since 0.4.0
 * @category models
 */
export type SearchResult = typeof SearchResult.Type

/**
 * The result of a quick search: a `SearchResult`.
 *
 * @since 0.4.0
 * @category schemas
 */
export const QuickSearchResult = SearchResult

/**
 * @since 0.4.0
 * @category models
 */
export type QuickSearchResult = SearchResult

/**
 * A Locarno classification: code (`06-01`) and title.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Classification = Open({ code: Schema.String, title: Schema.optional(Schema.String) })

/**
 * An owner or designer.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Party = Open({ name: Schema.String })

/**
 * Everything publicly known about a design. Only `number` is required.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Design = Open({
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
})

/**
 * @since 0.4.0
 * @category models
 */
export type Design = typeof Design.Type

/**
 * One page of a paged advanced search: how many designs match in all, the page's full records,
 * and the request as read and the aggregations when the service sends them.
 *
 * @since 0.4.0
 * @category schemas
 */
export const DesignPage = Open({ ...resultFields, designs: Schema.Array(Design) })

/**
 * @since 0.4.0
 * @category models
 */
export type DesignPage = typeof DesignPage.Type
