/**
 * The domain schemas the client and the sandbox share: quick search request and result, design
 * numbers, and the design record. The spec shows none of these wire shapes; they follow the
 * public description of the service and stay lenient: unknown fields are kept, statuses and
 * classification codes are open strings.
 *
 * @since 0.1.0
 */
import { DateTime, Either, Option, ParseResult, Schema } from "effect"
import { calendarMillis, isCalendarDate } from "./internal/calendarDate.js"

/**
 * Design numbers: 1 to 12 ASCII letters or digits (e.g. `201915000`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DesignNumber = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9]{1,12}$/, { message: () => "expected a design number: 1 to 12 letters or digits" }),
  Schema.brand("DesignNumber")
)

/**
 * @since 0.1.0
 * @category models
 */
export type DesignNumber = typeof DesignNumber.Type

// The hand checks of the decoders below: each accepts only what its schema accepts.

/**
 * An object the hand checks may take as parsed: one with no own field named `__proto__`, which the
 * schemas leave out of what they decode (`JSON.parse` makes such fields). Any other goes to the
 * schema, so that the hand checks and the schemas never differ on it.
 */
const isPlainObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u) && !Object.hasOwn(u, "__proto__")

/** Every element passes `check`: an index loop, since `every` skips the holes of a sparse array. */
const everyElement = (values: ReadonlyArray<unknown>, check: (element: unknown) => boolean): boolean => {
  for (let i = 0; i < values.length; i++) {
    if (!check(values[i])) return false
  }
  return true
}

/** Absent, or an array whose every element passes `check`. */
const optionalArrayOf = (u: unknown, check: (element: unknown) => boolean): boolean =>
  u === undefined || Array.isArray(u) && everyElement(u, check)

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

/** A wire date read: a calendar date at midnight UTC, or an ISO 8601 timestamp; else `undefined`. */
const wireDate = (s: string): DateTime.Utc | undefined => {
  const midnight = calendarMillis(s)
  if (midnight !== undefined) return DateTime.unsafeMake(midnight)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s)) return undefined
  return Option.getOrUndefined(Option.map(DateTime.make(s), DateTime.toUtc))
}

/** A date as the wire writes it: midnight UTC as `YYYY-MM-DD`, anything else as an ISO 8601 timestamp. */
const wireDateText = (d: DateTime.Utc): string => {
  const iso = DateTime.formatIso(d)
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso
}

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
    const date = wireDate(s)
    return date === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, s, "expected an ISO 8601 date"))
      : ParseResult.succeed(date)
  },
  encode: (d) => ParseResult.succeed(wireDateText(d))
})

/**
 * Known design statuses, for autocompletion; any other string is accepted.
 *
 * @since 0.1.0
 * @category constants
 */
export const knownStatuses = [
  "FILED",
  "REGISTERED",
  "CERTIFIED",
  "LAPSED",
  "CEASED",
  "EXPIRED",
  "REFUSED",
  "WITHDRAWN"
] as const

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

/** The fields a record or a request carries beyond those named: kept as sent. */
const Extensions = Schema.Record({ key: Schema.String, value: Schema.Unknown })

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

const decodeQuickSearchRequestBySchema = Schema.decodeUnknownEither(QuickSearchRequest, {
  errors: "all",
  onExcessProperty: "error"
})

/** A plain object (no class, so no `toJSON` of its own) whose own keys are all among `keys`. */
const isPlainWithKeys = (u: unknown, keys: ReadonlySet<PropertyKey>): u is Readonly<Record<string, unknown>> => {
  if (typeof u !== "object" || u === null || Object.getPrototypeOf(u) !== Object.prototype) return false
  for (const key of Reflect.ownKeys(u)) {
    if (!keys.has(key)) return false
  }
  return true
}

const requestKeys: ReadonlySet<PropertyKey> = new Set(["query", "changedSinceDate", "filters", "sort"])
const filterKeys: ReadonlySet<PropertyKey> = new Set(["classificationFilter", "statusFilter"])
const sortKeys: ReadonlySet<PropertyKey> = new Set(["field", "direction"])

const isNonBlank = (u: unknown): boolean => typeof u === "string" && u.trim().length > 0

/** Absent, or a plain (not subclassed) array of non-blank strings. */
const isFilterValues = (u: unknown): boolean =>
  u === undefined || Array.isArray(u) && Object.getPrototypeOf(u) === Array.prototype && everyElement(u, isNonBlank)

/**
 * Decodes a quick search request as `QuickSearchRequest` does with every error reported and
 * unknown keys refused, the common case checked by hand and returned as given (README,
 * "Where the CPU goes"). The request has no transformations, so either result is its own wire form
 * (`JSON.stringify` writes the same fields). Anything the hand check does not accept, classes and
 * arrays of another kind included, goes through the schema, for its errors.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeQuickSearchRequest = (u: unknown): Either.Either<QuickSearchRequest, ParseResult.ParseError> => {
  if (isPlainWithKeys(u, requestKeys)) {
    const { query, changedSinceDate, filters, sort } = u
    if (
      isNonBlank(query) && (query as string).length <= 1000 &&
      (changedSinceDate === undefined || typeof changedSinceDate === "string" && isCalendarDate(changedSinceDate)) &&
      (filters === undefined ||
        isPlainWithKeys(filters, filterKeys) && isFilterValues(filters.classificationFilter) &&
          isFilterValues(filters.statusFilter)) &&
      (sort === undefined ||
        isPlainWithKeys(sort, sortKeys) && typeof sort.field === "string" &&
          (sort.direction === "ASCENDING" || sort.direction === "DESCENDING"))
    ) {
      return Either.right(u as QuickSearchRequest)
    }
  }
  return decodeQuickSearchRequestBySchema(u)
}

/** A text criterion: a non-empty string of at most 1000 characters. */
const TextCriterion = Query

/**
 * Known kinds of date a criterion ranges over, for autocompletion; any other string is sent as is.
 *
 * @since 0.3.0
 * @category constants
 */
export const knownDateTypes = ["FILING", "REGISTRATION", "PRIORITY", "EXPIRY", "LAST_CHANGED"] as const

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
  owner: Schema.optional(TextCriterion),
  designer: Schema.optional(TextCriterion),
  productName: Schema.optional(TextCriterion),
  designNumber: Schema.optional(TextCriterion),
  classification: Schema.optional(TextCriterion),
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
export const AdvancedSearchRequest = Schema.Struct(advancedFields, Extensions)

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
export const PageRequest = Schema.Struct({
  ...advancedFields,
  pageNumber: Schema.NonNegativeInt.annotations({ message: () => "expected a page number: an integer from 0" }),
  pageSize: Schema.Int.pipe(Schema.between(1, maxPageSize)).annotations({
    message: () => `expected a page size: an integer from 1 to ${maxPageSize}`
  })
}, Extensions)

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

/**
 * A search result (quick or advanced): how many designs match, and their numbers; the request as
 * the service read it and the aggregations, when it sends them. Its decoder (`decodeSearchResult`)
 * reads the numbers from `designNumbers` or, failing that, `designIds` (as the sibling trade mark
 * API's `trademarkIds` suggests); this schema is the form after that reading.
 *
 * @since 0.3.0
 * @category schemas
 */
export const SearchResult = Schema.Struct({
  count: Schema.NonNegativeInt,
  designNumbers: Schema.Array(DesignNumber),
  request: Schema.optional(Schema.Unknown),
  aggregations: Schema.optional(Aggregations)
}, Extensions)

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
export const DesignPage = Schema.Struct({
  count: Schema.NonNegativeInt,
  designs: Schema.Array(Design),
  request: Schema.optional(Schema.Unknown),
  aggregations: Schema.optional(Aggregations)
}, Extensions)

/**
 * @since 0.3.0
 * @category models
 */
export type DesignPage = typeof DesignPage.Type

/**
 * Checks a design number without the schema machinery, for hot paths.
 *
 * @since 0.1.0
 * @category guards
 */
export const isDesignNumber = (s: string): s is DesignNumber => /^[A-Za-z0-9]{1,12}$/.test(s)

const decodeSearchResultBySchema = Schema.decodeUnknownEither(SearchResult)

const isDesignNumberString = (u: unknown): boolean => typeof u === "string" && isDesignNumber(u)

/** Every own value of a plain object passes `check`. */
const everyValue = (u: Readonly<Record<string, unknown>>, check: (value: unknown) => boolean): boolean => {
  for (const key in u) {
    if (Object.hasOwn(u, key) && !check(u[key])) return false
  }
  return true
}

/** Absent, or aggregations as `Aggregations` reads them: objects of objects of numbers. */
const isOptionalAggregations = (u: unknown): boolean =>
  u === undefined ||
  isPlainObject(u) && everyValue(u, (a) => isPlainObject(a) && everyValue(a, (n) => typeof n === "number"))

/** `u` with `designIds` read as `designNumbers` when only `designIds` is there. */
const withDesignNumbers = (u: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  if (u.designNumbers !== undefined || u.designIds === undefined) return u
  const { designIds, ...rest } = u
  return { ...rest, designNumbers: designIds }
}

/**
 * Decodes a search result, as parsed from JSON, as `SearchResult` does, its numbers read from
 * `designNumbers` or else `designIds`. The common case (a safe non-negative integer count, design
 * numbers, aggregations of counts) is checked by hand and taken as parsed (README, "Where the CPU goes").
 * Anything else goes through the schema, for its errors.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeSearchResult = (u: unknown): Either.Either<SearchResult, ParseResult.ParseError> => {
  if (!isPlainObject(u)) return decodeSearchResultBySchema(u)
  const read = withDesignNumbers(u)
  const { count, designNumbers, aggregations } = read
  if (
    Number.isSafeInteger(count) && (count as number) >= 0 && Array.isArray(designNumbers) &&
    everyElement(designNumbers, isDesignNumberString) && isOptionalAggregations(aggregations)
  ) {
    return Either.right(read as SearchResult)
  }
  return decodeSearchResultBySchema(read)
}

/**
 * `decodeSearchResult`, under the name of the quick search.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeQuickSearchResult: (u: unknown) => Either.Either<QuickSearchResult, ParseResult.ParseError> =
  decodeSearchResult

const decodeDesignBySchema = Schema.decodeUnknownEither(Design)

const isOptionalString = (u: unknown): boolean => u === undefined || typeof u === "string"
const isString = (u: unknown): boolean => typeof u === "string"
const isClassification = (u: unknown): boolean => isPlainObject(u) && isString(u.code) && isOptionalString(u.title)
const isParty = (u: unknown): boolean => isPlainObject(u) && isString(u.name)

const dateFields = ["filingDate", "registrationDate", "expiryDate", "lastChanged"] as const

/**
 * Decodes a design, as parsed from JSON, as `Design` does, the common case checked by hand (README,
 * "Where the CPU goes"): the dates become `DateTime.Utc`, every other value is taken as parsed.
 * Anything the hand check does not accept goes through the schema, for its errors.
 *
 * @since 0.2.0
 * @category decoding
 */
export const decodeDesign = (u: unknown): Either.Either<Design, ParseResult.ParseError> => {
  if (
    isPlainObject(u) && isDesignNumberString(u.number) &&
    isOptionalString(u.title) && isOptionalString(u.status) && isOptionalString(u.statementOfNewness) &&
    optionalArrayOf(u.productNames, isString) && optionalArrayOf(u.classifications, isClassification) &&
    optionalArrayOf(u.owners, isParty) && optionalArrayOf(u.designers, isParty)
  ) {
    const design: Record<string, unknown> = { ...u }
    for (const field of dateFields) {
      const wire = u[field]
      if (wire === undefined) continue
      const date = typeof wire === "string" ? wireDate(wire) : undefined
      if (date === undefined) return decodeDesignBySchema(u)
      design[field] = date
    }
    return Either.right(design as Design)
  }
  return decodeDesignBySchema(u)
}

const decodeDesignPageBySchema = Schema.decodeUnknownEither(DesignPage)

/**
 * Decodes a page, as parsed from JSON, as `DesignPage` does, each record by `decodeDesign`'s hand
 * check when it can be.
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeDesignPage = (u: unknown): Either.Either<DesignPage, ParseResult.ParseError> => {
  if (
    isPlainObject(u) && Number.isSafeInteger(u.count) && (u.count as number) >= 0 &&
    isOptionalAggregations(u.aggregations)
  ) {
    const { designs } = u
    if (Array.isArray(designs)) {
      const decoded: Array<Design> = []
      for (let i = 0; i < designs.length; i++) {
        const design = decodeDesign(designs[i])
        if (Either.isLeft(design)) return decodeDesignPageBySchema(u)
        decoded.push(design.right)
      }
      const page: Record<string, unknown> = { ...u, designs: decoded }
      return Either.right(page as DesignPage)
    }
  }
  return decodeDesignPageBySchema(u)
}

/** The fields a schema names, in its order, and as a set to tell the others by. */
interface FieldOrder {
  readonly names: ReadonlyArray<string>
  readonly known: ReadonlySet<string>
}

const fieldOrder = (names: ReadonlyArray<string>): FieldOrder => ({ names, known: new Set(names) })

/** `record`'s fields in `order`, each through `encode`, then its other own fields as they are. */
const inSchemaOrder = (
  record: Readonly<Record<string, unknown>>,
  order: FieldOrder,
  encode: (name: string, value: unknown) => unknown
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const name of order.names) {
    if (Object.hasOwn(record, name)) out[name] = encode(name, record[name])
  }
  // A field named `__proto__` is left out, as the schema's encoding leaves it (and set, it would
  // change the prototype instead).
  for (const name of Object.keys(record)) {
    if (!order.known.has(name) && name !== "__proto__") out[name] = record[name]
  }
  return out
}

const asIs = (_: string, value: unknown) => value
const classificationFields = fieldOrder(["code", "title"])
const partyFields = fieldOrder(["name"])
const designFields = fieldOrder(Object.keys(Design.fields))
const isDateField = (name: string): name is (typeof dateFields)[number] =>
  (dateFields as ReadonlyArray<string>).includes(name)

const encodeDesignField = (name: string, value: unknown): unknown => {
  if (value === undefined) return value
  if (isDateField(name)) return wireDateText(value as DateTime.Utc)
  if (name === "classifications") {
    return (value as ReadonlyArray<Readonly<Record<string, unknown>>>).map((c) =>
      inSchemaOrder(c, classificationFields, asIs)
    )
  }
  if (name === "owners" || name === "designers") {
    return (value as ReadonlyArray<Readonly<Record<string, unknown>>>).map((p) => inSchemaOrder(p, partyFields, asIs))
  }
  return value
}

/**
 * A design's wire form, the same as `Schema.encode(Design)` writes it (the schema's fields in its
 * order, then the unknown ones as they are; dates as `WireDate` writes them), without the schema
 * machinery: an export encodes every design it writes (README, "Where the CPU goes").
 *
 * @since 0.3.0
 * @category encoding
 */
export const encodeDesign = (design: Design): typeof Design.Encoded =>
  inSchemaOrder(design, designFields, encodeDesignField) as typeof Design.Encoded
