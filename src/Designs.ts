/**
 * The domain schemas the client and the sandbox share: search requests and results, design numbers, the
 * design record. The spec shows none of these wire shapes; lenient, they keep unknown fields, statuses and codes open.
 * @since 0.1.0
 */
import { literals, openStruct, record, union } from "#edition/internal/domainSchemas"
import * as Edition from "#edition/internal/domainSchemas"

import { Schema } from "effect"
import { knownDateTypes, knownStatuses } from "./core/wire/wire.js"

export { knownDateTypes, knownStatuses } from "./core/wire/wire.js"

/**
 * Design numbers: 1 to 12 ASCII letters or digits (e.g. `201915000`).
 * @since 0.1.0
 * @category schemas
 */
export const DesignNumber = Edition.DesignNumber

/**
 * @since 0.1.0
 * @category models
 */
export type DesignNumber = typeof DesignNumber.Type

/**
 * A calendar date written `YYYY-MM-DD`, and a real one (no 2023-02-30).
 * @since 0.1.0
 * @category schemas
 */
export const IsoDate = Edition.IsoDate

/**
 * A wire date as a `DateTime.Utc`: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 timestamp; midnight written as a date.
 * @since 0.1.0
 * @category schemas
 */
export const WireDate = Edition.WireDate

/**
 * A design's status: the known ones, or any other string as sent.
 * @since 0.1.0
 * @category schemas
 */
export const DesignStatus = union(literals(...knownStatuses), Schema.String)

/**
 * @since 0.1.0
 * @category models
 */
export type DesignStatus = (typeof knownStatuses)[number] | (string & {})

/**
 * Sort of a search: by design number, ascending or descending.
 * @since 0.1.0
 * @category schemas
 */
export const Sort = Schema.Struct({
  field: union(Schema.Literal("NUMBER"), Schema.String),
  direction: literals("ASCENDING", "DESCENDING")
})

const FilterValue = Edition.refine(Schema.String, (s) => s.trim().length > 0 || "expected a non-empty value")

/**
 * Quick search request body (the public example, plus optional `sort`).
 * @since 0.1.0
 * @category schemas
 */
export const QuickSearchRequest = Schema.Struct({
  query: Edition.Query,
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
 * @since 0.3.0
 * @category schemas
 */
export const DateRange = Edition.refine(
  Schema.Struct({
    type: union(literals(...knownDateTypes), Schema.String),
    from: Schema.optional(IsoDate),
    to: Schema.optional(IsoDate)
  }),
  (r) =>
    r.from === undefined && r.to === undefined
      ? "expected from, to or both"
      : r.from !== undefined && r.to !== undefined && r.from > r.to
      ? "expected from on or before to"
      : true
)

/**
 * What one row of an advanced search asks: every criterion given must hold; others pass through as given.
 * @since 0.3.0
 * @category schemas
 */
export const Criteria = Edition.refine(
  openStruct({
    owner: Schema.optional(Edition.Query),
    designer: Schema.optional(Edition.Query),
    productName: Schema.optional(Edition.Query),
    designNumber: Schema.optional(Edition.Query),
    classification: Schema.optional(Edition.Query),
    statuses: Schema.optional(Schema.Array(FilterValue)),
    date: Schema.optional(DateRange)
  }),
  (c) => Object.keys(c).length > 0 || "expected at least one criterion"
)

/**
 * @since 0.3.0
 * @category models
 */
export type Criteria = typeof Criteria.Type

/**
 * One row of an advanced search: its criteria, and how it joins the rows before it (`AND`, `OR`, `AND_NOT`).
 * @since 0.3.0
 * @category schemas
 */
export const Row = Schema.Struct({ op: literals("AND", "OR", "AND_NOT"), query: Criteria })

/**
 * @since 0.3.0
 * @category models
 */
export type Row = typeof Row.Type

const advancedFields = {
  rows: Edition.rowsOf(Row),
  sort: Schema.optional(Sort),
  changedSinceDate: Schema.optional(IsoDate)
}

/**
 * Advanced search body (`POST {base}/search/advanced`): rows, an optional sort and `changedSinceDate`; more as given.
 * @since 0.3.0
 * @category schemas
 */
export const AdvancedSearchRequest = Edition.writable(openStruct(advancedFields))

/**
 * @since 0.3.0
 * @category models
 */
export type AdvancedSearchRequest = typeof AdvancedSearchRequest.Type

/**
 * The most designs one page holds.
 * @since 0.3.0
 * @category constants
 */
export const maxPageSize = 100

/**
 * Paged advanced search request body (`POST {base}/page/advanced`): plus `pageNumber` (from 0), `pageSize` (1 to 100).
 * @since 0.3.0
 * @category schemas
 */
export const PageRequest = Edition.writable(openStruct({ ...advancedFields, ...Edition.pageFields(maxPageSize) }))

/**
 * @since 0.3.0
 * @category models
 */
export type PageRequest = typeof PageRequest.Type

/**
 * Counts of the hits by a value of one field (`{ "REGISTERED": 12, "FILED": 3 }`).
 * @since 0.3.0
 * @category schemas
 */
export const Aggregation = record(Schema.Number)

/**
 * Aggregations of a search, by field (`status`, ...).
 * @since 0.3.0
 * @category schemas
 */
export const Aggregations = record(Aggregation)

/** What every search answers: the count, and the request as read and the aggregations when sent. */
const resultFields = {
  count: Edition.Count,
  request: Schema.optional(Schema.Unknown),
  aggregations: Schema.optional(Aggregations)
}

/**
 * A search result: how many designs match, their numbers (from `designNumbers` or `designIds`), request, aggregations.
 * @since 0.3.0
 * @category schemas
 */
export const SearchResult = openStruct({ ...resultFields, designNumbers: Edition.DesignNumbers })

/**
 * @since 0.3.0
 * @category models
 */
export type SearchResult = typeof SearchResult.Type

/**
 * The result of a quick search: a `SearchResult`.
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
 * @since 0.1.0
 * @category schemas
 */
export const Classification = openStruct({ code: Schema.String, title: Schema.optional(Schema.String) })

/**
 * An owner or designer.
 * @since 0.1.0
 * @category schemas
 */
export const Party = openStruct({ name: Schema.String })

/**
 * Everything publicly known about a design. Only `number` is required.
 * @since 0.1.0
 * @category schemas
 */
export const Design = openStruct({
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
 * @since 0.1.0
 * @category models
 */
export type Design = typeof Design.Type

/**
 * One page of a paged advanced search: how many match in all, the page's full records, request, aggregations.
 * @since 0.3.0
 * @category schemas
 */
export const DesignPage = openStruct({ ...resultFields, designs: Schema.Array(Design) })

/**
 * @since 0.3.0
 * @category models
 */
export type DesignPage = typeof DesignPage.Type
