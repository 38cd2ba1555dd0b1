/**
 * The wire shapes the sandbox's dataset and search read and write, as plain types: what the JSON
 * says, dates as written (`YYYY-MM-DD` or an ISO 8601 timestamp). `Designs`' schemas describe the
 * same shapes for the Effect edition; a test holds each schema to its shape here.
 */

/**
 * Known design statuses, for autocompletion; any other string is accepted.
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
 * Known kinds of date a criterion ranges over, for autocompletion; any other string is sent as is.
 * @since 0.3.0
 * @category constants
 */
export const knownDateTypes = ["FILING", "REGISTRATION", "PRIORITY", "EXPIRY", "LAST_CHANGED"] as const

/** Sort of a search: by design number, ascending or descending. */
export interface Sort {
  readonly field: string
  readonly direction: "ASCENDING" | "DESCENDING"
}

/** A quick search request body. */
export interface QuickSearchRequest {
  readonly query: string
  readonly changedSinceDate?: string | undefined
  readonly filters?: {
    readonly classificationFilter?: ReadonlyArray<string> | undefined
    readonly statusFilter?: ReadonlyArray<string> | undefined
  } | undefined
  readonly sort?: Sort | undefined
}

/** A range of one kind of date, `from` and `to` inclusive, written `YYYY-MM-DD`. */
export interface DateRange {
  readonly type: string
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** What one row of an advanced search asks for; criteria not named here pass through. */
export interface Criteria {
  readonly owner?: string | undefined
  readonly designer?: string | undefined
  readonly productName?: string | undefined
  readonly designNumber?: string | undefined
  readonly classification?: string | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly date?: DateRange | undefined
  readonly [criterion: string]: unknown
}

/** One row of an advanced search, and how it joins the rows before it. */
export interface Row {
  readonly op: "AND" | "OR" | "AND_NOT"
  readonly query: Criteria
}

/** An advanced search request body. */
export interface AdvancedSearchRequest {
  readonly rows: ReadonlyArray<Row>
  readonly sort?: Sort | undefined
  readonly changedSinceDate?: string | undefined
  readonly [field: string]: unknown
}

/** A paged advanced search request body. */
export interface PageRequest extends AdvancedSearchRequest {
  readonly pageNumber: number
  readonly pageSize: number
}

/** A Locarno classification: code (`06-01`) and title. */
export interface Classification {
  readonly code: string
  readonly title?: string | undefined
  readonly [field: string]: unknown
}

/** An owner or designer. */
export interface Party {
  readonly name: string
  readonly [field: string]: unknown
}

/** A design record as the wire writes it. Only `number` is required. */
export interface Design {
  readonly number: string
  readonly title?: string | undefined
  readonly productNames?: ReadonlyArray<string> | undefined
  readonly status?: string | undefined
  readonly classifications?: ReadonlyArray<Classification> | undefined
  readonly owners?: ReadonlyArray<Party> | undefined
  readonly designers?: ReadonlyArray<Party> | undefined
  readonly filingDate?: string | undefined
  readonly registrationDate?: string | undefined
  readonly expiryDate?: string | undefined
  readonly lastChanged?: string | undefined
  readonly statementOfNewness?: string | undefined
  readonly [field: string]: unknown
}

/** `source` of an error object: where in the request the error comes from. */
export interface ErrorSource {
  readonly pointer?: string | undefined
  readonly parameter?: string | undefined
  readonly [field: string]: unknown
}

/** One error object (spec 7.1); extension attributes pass through. */
export interface ErrorObject {
  readonly id?: string | undefined
  readonly detail: string
  readonly code: string
  readonly source?: ErrorSource | undefined
  readonly [field: string]: unknown
}

/** A warning or information message (spec 7.3): an error object with an optional `severity`. */
export interface Message extends ErrorObject {
  readonly severity?: string | undefined
}
