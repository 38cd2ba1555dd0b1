/**
 * What the mirror stores, as plain data: the names of its tables, a design as they hold it (from
 * its encoded record, the wire form: the typed columns of `designs`, the rows of its parties,
 * classes and products), what differs between two records for the history, and the JSON it writes.
 * A field the tables do not know stays in `record` only.
 */
import { createHash } from "node:crypto"

/** What a row of `designs` says of its design (see `DesignMirror.DesignState`). */
export type DesignState = "current" | "no_longer_matching" | "not_found"

/** What a run saw happen to a design (see `DesignMirror.ChangeKind`). */
export type ChangeKind = "new" | "changed" | "no_longer_matching" | "not_found" | "matching_again"

/** Every kind of change, as `changes({ kind })` and `design-search changes --kind` take them. */
export const changeKinds = [
  "new",
  "changed",
  "no_longer_matching",
  "not_found",
  "matching_again"
] as const satisfies ReadonlyArray<ChangeKind>

/** Why `millis` cannot be `layerPostgres`'s `connectTimeoutMillis`, if it cannot: out of a timer's range, it times every connection out. */
export const connectTimeoutProblem = (millis: unknown): string | undefined =>
  typeof millis === "number" && millis > 0 && millis <= 2_147_483_647
    ? undefined
    : `connectTimeoutMillis must be a number of milliseconds from 1 to 2147483647, got ${String(millis)}`

/** Why `options` cannot be `layerPostgres`'s options, if they cannot: not an object, or a connection timeout out of range. */
export const postgresOptionsProblem = (options: unknown): string | undefined => {
  if (typeof options !== "object" || options === null) {
    return `layerPostgres takes options { url, connectTimeoutMillis? }, got ${String(options)}`
  }
  const { connectTimeoutMillis = 5000 } = options as { readonly connectTimeoutMillis?: unknown }
  return connectTimeoutProblem(connectTimeoutMillis)
}

/** The longest name PostgreSQL keeps, in bytes: it cuts a longer one, so that two long names would be one. */
const maxIdentifierBytes = 63

/** Why `schema` cannot name the mirror's PostgreSQL schema, if it cannot (nothing names the default). */
export const schemaProblem = (schema: unknown): string | undefined =>
  schema === undefined
    ? undefined
    : typeof schema !== "string" || schema === "" || schema.includes("\u0000")
    ? "schema must be a non-empty text without NUL (U+0000), or nothing"
    : new TextEncoder().encode(schema).length > maxIdentifierBytes
    ? `schema must be at most ${maxIdentifierBytes} bytes (PostgreSQL cuts a longer name)`
    : schema === "$user"
    ? "schema must be a name a search_path keeps as it is: there \"$user\" stands for the current role"
    : schema === "information_schema" || schema.startsWith("pg_")
    ? `schema must be one of the application's: ${schema} is PostgreSQL's own (information_schema, pg_*)`
    : undefined

/** The table where the migrator records the migrations it has run. */
export const migrationsTable = "design_mirror_migrations"

/** The PostgreSQL schema of the mirror's tables when none is named. */
export const defaultSchema = "design_search"

/**
 * Whether the mirror built in `schema` takes in the one found, outside it, through the connection's
 * `search_path`, whose last migration is `last`: only the default schema, and only a mirror of the
 * release before schemas (its tables in the connection's schema), which ran migrations 1 and 2 and
 * never 3. Every mirror made since, in whatever schema (`public` too), has run 3, and stays where it is.
 */
export const takesEarlier = (schema: string, last: number | null) => schema === defaultSchema && (last ?? 0) < 3

/** The tables of a mirror of the release before schemas, moved into the default schema with their rows. */
export const earlierTables = [migrationsTable, "designs", "design_sync_state"]

/** The names of the mirror's tables. */
export const tables = {
  designs: "designs",
  owners: "design_owners",
  designers: "design_designers",
  classifications: "design_classifications",
  products: "design_products",
  changes: "design_changes",
  listing: "design_listing",
  syncState: "design_sync_state"
}

/** `name`, in `schema` (a PostgreSQL schema) if one is named. */
export const qualified = (schema: string | undefined, name: string) => schema === undefined ? name : `${schema}.${name}`

/** A row of `design_changes`: `fields`, for `changed`, is `{ field: { old, new } }` as JSON. */
export type ChangeRow = Readonly<{ number: string; synced_at: string; kind: ChangeKind; fields: string | null }>

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
export type SyncColumns = Readonly<{ synced_at: string | Date; criteria_key: string; state: DesignState }>

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

/** Whether two values of records are equal: the same JSON values, objects' keys in any order. */
const same = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const [x, y] = [a as Encoded, b as Encoded]
  const keys = Object.keys(x)
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && same(x[k], y[k]))
}

/** The top-level fields of two records that differ (in any order of their keys), with their old and new values. */
export const differences = (old: Encoded, now: Encoded) => {
  const fields: Record<string, { readonly old: unknown; readonly new: unknown }> = {}
  for (const field of new Set([...Object.keys(old), ...Object.keys(now)])) {
    if (!same(old[field], now[field])) fields[field] = { old: old[field], new: now[field] }
  }
  return fields
}

/** A JSON object stored by the mirror, read back; `{}` for one that is not (a row edited by hand). */
export const parsed = (json: string | null): Encoded => {
  try {
    const value: unknown = JSON.parse(json ?? "{}")
    return typeof value === "object" && value !== null ? value as Encoded : {}
  } catch {
    return {}
  }
}

/** JSON with each NUL (U+0000) of its strings and keys as U+FFFD: PostgreSQL's text and JSONB hold no NUL. */
export const withoutNul = (json: string) =>
  json.replace(/\\\\|\\u0000/g, (escape) => escape === "\\u0000" ? "\ufffd" : escape)

/** Objects with their keys in order, so that equal criteria are written alike. */
export const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
    : value

/** The key of criteria as the mirror writes them (JSON, keys in order). */
export const criteriaKeyOf = (json: string): string => createHash("sha256").update(json).digest("hex").slice(0, 32)
