/**
 * A design as the mirror's tables hold it, from its encoded record (the wire form): the typed
 * columns of `designs`, the rows of its parties, classes and products, and what differs between
 * two records, for the history. A field the tables do not know stays in `record` only.
 */
import { Option } from "effect"
import { isDeepStrictEqual } from "node:util"
import type { ChangeKind, DesignState } from "./model.js"

/** A row of `design_changes`: `fields`, for `changed`, is `{ field: { old, new } }` as JSON. */
export interface ChangeRow {
  readonly number: string
  readonly synced_at: string
  readonly kind: ChangeKind
  readonly fields: string | null
}

/** An encoded record: the wire form of a `Design`. */
type Encoded = Readonly<Record<string, unknown>>

const text = (value: unknown) => (typeof value === "string" ? value : null)
const day = (value: unknown) => (typeof value === "string" ? value.slice(0, 10) : null)
const list = (value: unknown): ReadonlyArray<Encoded> => (Array.isArray(value) ? value : [])

/** The rows of parties: `party` holds the fields other than the name, as JSON. */
const parties = (number: string, value: unknown) =>
  list(value).map(({ name, ...party }, position) => ({
    number,
    position,
    name: String(name),
    party: JSON.stringify(party)
  }))

/** The sync columns of a row of `designs`. */
export interface SyncColumns {
  readonly synced_at: string | Date
  readonly criteria_key: string
  readonly state: DesignState
}

/** The rows of the design `encoded`, written as `record`, with its sync columns. */
export const columnsOf = (encoded: Encoded, record: string, sync: SyncColumns) => {
  const number = String(encoded.number)
  // A number may name a class twice: its row is kept once.
  const classes = new Map(list(encoded.classifications).map((c) => [String(c.code), text(c.title)]))
  return {
    columns: {
      number,
      title: text(encoded.title),
      status: text(encoded.status),
      filing_date: day(encoded.filingDate),
      registration_date: day(encoded.registrationDate),
      expiry_date: day(encoded.expiryDate),
      last_changed: day(encoded.lastChanged),
      statement_of_newness: text(encoded.statementOfNewness),
      record,
      ...sync
    },
    owners: parties(number, encoded.owners),
    designers: parties(number, encoded.designers),
    classifications: [...classes].map(([code, title]) => ({ number, code, title })),
    products: (Array.isArray(encoded.productNames) ? encoded.productNames : []).map((name, position) => ({
      number,
      position,
      name: String(name)
    }))
  }
}

/** A design's row and the rows of its parties, classes and products. */
export type DesignRows = ReturnType<typeof columnsOf>

/** The top-level fields of two records that differ (in any order of their keys), with their old and new values. */
export const differences = (old: Encoded, now: Encoded) => {
  const fields: Record<string, { readonly old: unknown; readonly new: unknown }> = {}
  for (const field of new Set([...Object.keys(old), ...Object.keys(now)])) {
    if (!isDeepStrictEqual(old[field], now[field])) fields[field] = { old: old[field], new: now[field] }
  }
  return fields
}

/** A JSON object stored by the mirror, read back; `{}` for one that is not (a row edited by hand). */
export const parsed = (json: string | null): Encoded =>
  Option.getOrElse(
    Option.filter(Option.liftThrowable(JSON.parse)(json ?? "{}"), (v): v is Encoded =>
      typeof v === "object" && v !== null),
    () => ({})
  )
