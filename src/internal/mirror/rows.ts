/**
 * A design as the mirror's tables hold it, from its encoded record (the wire form): the typed
 * columns of `designs`, the rows of its parties, classes and products, and what differs between
 * two records, for the history. A field the tables do not know stays in `record` only.
 */
import { Option } from "effect"
import type { DesignState } from "./model.js"

/** The columns of a row of `designs`. */
export interface Columns {
  readonly number: string
  readonly title: string | null
  readonly status: string | null
  readonly filing_date: string | null
  readonly registration_date: string | null
  readonly expiry_date: string | null
  readonly last_changed: string | null
  readonly statement_of_newness: string | null
  readonly record: string
  readonly synced_at: string | Date
  readonly criteria_key: string
  readonly state: DesignState
  /** The run that last saw the design in its criteria's listing. */
  readonly run_id: string | null
}

/** A design's row and the rows of its parties, classes and products. */
export interface DesignRows {
  readonly columns: Columns
  readonly owners: ReadonlyArray<PartyRow>
  readonly designers: ReadonlyArray<PartyRow>
  readonly classifications: ReadonlyArray<
    { readonly number: string; readonly code: string; readonly title: string | null }
  >
  readonly products: ReadonlyArray<{ readonly number: string; readonly position: number; readonly name: string }>
}

interface PartyRow {
  readonly number: string
  readonly position: number
  readonly name: string
  /** The party's other fields, as JSON. */
  readonly party: string
}

/** A row of `design_changes`. */
export interface ChangeRow {
  readonly number: string
  readonly synced_at: string
  readonly kind: "new" | "changed" | "no_longer_matching" | "not_found" | "matching_again"
  /** For `changed`, `{ field: { old, new } }` as JSON. */
  readonly fields: string | null
}

/** An encoded record: the wire form of a `Design`. */
type Encoded = Readonly<Record<string, unknown>>

const text = (value: unknown) => (typeof value === "string" ? value : null)
const day = (value: unknown) => (typeof value === "string" ? value.slice(0, 10) : null)
const list = (value: unknown): ReadonlyArray<Encoded> => (Array.isArray(value) ? value : [])

const parties = (number: string, value: unknown): Array<PartyRow> =>
  list(value).map(({ name, ...party }, position) => ({
    number,
    position,
    name: String(name),
    party: JSON.stringify(party)
  }))

/** The rows of the design `encoded`, written as `record`, with its sync columns. */
export const columnsOf = (
  encoded: Encoded,
  record: string,
  sync: Pick<Columns, "synced_at" | "criteria_key" | "state" | "run_id">
): DesignRows => {
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

/** A JSON value written with its objects' keys in order: equal values are written alike. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

/** The top-level fields of two records that differ, with their old and new values; `{}` if none does. */
export const differences = (
  old: Encoded,
  now: Encoded
): Record<string, { readonly old?: unknown; readonly new?: unknown }> => {
  const fields: Record<string, { old?: unknown; new?: unknown }> = {}
  for (const field of new Set([...Object.keys(old), ...Object.keys(now)])) {
    if (canonical(old[field]) !== canonical(now[field])) fields[field] = { old: old[field], new: now[field] }
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
