/**
 * Watches over the mirror: their tables (a migration of their own, in the mirror's schema), and a
 * run, which syncs each distinct criteria once through `DesignMirror`, then, a watch at a time in one
 * transaction, compares the designs it follows with the listing the sync kept, reads the mirror's
 * history since the watch's cursor, writes the events and moves the cursor (docs/watch.md).
 */
import { Migrator, SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe, fromResult } from "#edition/internal/seam"
import { Array as Arr, Clock, DateTime, Effect } from "effect"
import type { ValidationError } from "../../ApiError.js"
import { criteriaKeyOf, parsed, qualified, tables } from "../../core/mirror/mirror.js"
import type { Service as Mirror } from "../../DesignMirror.js"
import { readCriteria } from "../mirror/criteria.js"
import type { Criteria } from "../mirror/model.js"
import { databaseError } from "../mirror/model.js"
import { migrateLocked } from "../mirror/sharing.js"
import { typesOf } from "../mirror/tables.js"
import { clientValidation, parameterError } from "../validation.js"
import type { EventKind, ReportRange, Watch, WatchEvent, WatchInput, WatchRun } from "./model.js"
import { WatchNotFoundError } from "./model.js"

const own = { watches: "design_watches", members: "design_watch_designs", events: "design_watch_events" }

const names = (sql: SqlClient.SqlClient, schema: string | undefined) => {
  const all = { ...tables, ...own }
  return Object.fromEntries(Object.entries(all).map(([k, n]) => [k, sql(qualified(schema, n))])) as {
    readonly [K in keyof typeof all]: ReturnType<typeof sql>
  }
}

const migrations = (schema: string | undefined) => ({
  "1_watches": Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const t = names(sql, schema)
    const [date, time, json] = Object.values(typesOf(sql)).map((type) => sql.literal(type))
    return Effect.all([
      sql`CREATE TABLE ${t.watches} (name TEXT PRIMARY KEY NOT NULL, criteria ${json}, criteria_key TEXT,
  numbers ${json} NOT NULL, portfolio_key TEXT, expiring_within INTEGER NOT NULL, note TEXT, cursor ${time})`,
      sql`CREATE TABLE ${t.members} (watch TEXT NOT NULL, number TEXT NOT NULL, expiry_told ${date},
  PRIMARY KEY (watch, number))`,
      sql`CREATE TABLE ${t.events} (watch TEXT NOT NULL, at ${time} NOT NULL, number TEXT NOT NULL,
  event TEXT NOT NULL, fields ${json} NOT NULL, design ${json} NOT NULL, PRIMARY KEY (watch, at, number, event))`
    ], { discard: true })
  })
})

interface Row {
  readonly name: string
  readonly criteria: string | null
  readonly criteria_key: string | null
  readonly numbers: string
  readonly portfolio_key: string | null
  readonly expiring_within: number
  readonly note: string | null
  readonly cursor: string | Date | null
}

const invalid = (parameter: string, detail: string) =>
  Effect.fail(clientValidation([parameterError(parameter, detail)]))

/** A portfolio as criteria: one row a number, joined with OR. */
export const portfolioOf = (numbers: ReadonlyArray<string>): Criteria => ({
  rows: numbers.map((n, i) => ({ op: i === 0 ? "AND" : "OR", query: { designNumber: n } }))
})

/** A watch as `add` takes it, checked, as its row. */
const readWatch = (input: unknown): Effect.Effect<Row, ValidationError> =>
  Effect.gen(function*() {
    if (typeof input !== "object" || input === null) return yield* invalid("watch", "expected an object")
    const { criteria, expiringWithin = 90, name, note, numbers = [] } = input as WatchInput
    // eslint-disable-next-line no-control-regex
    if (typeof name !== "string" || !/^[^\u0000-\u001f\u007f-\u009f]{1,100}$/.test(name)) {
      return yield* invalid("name", "expected a text of 1 to 100 characters, without control characters")
    }
    if (!Array.isArray(numbers) || numbers.some((n) => typeof n !== "string" || !/^\d{1,15}$/.test(n))) {
      return yield* invalid("numbers", "expected design numbers, digits only")
    }
    if (criteria === undefined && numbers.length === 0) {
      return yield* invalid("criteria", "a watch needs criteria, design numbers, or both")
    }
    if (!Number.isSafeInteger(expiringWithin) || expiringWithin < 0 || expiringWithin > 3650) {
      return yield* invalid("expiringWithin", "expected a whole number of days from 0 to 3650")
    }
    if (note !== undefined && (typeof note !== "string" || note.includes("\u0000"))) {
      return yield* invalid("note", "expected a text without NUL, or nothing")
    }
    const portfolio = [...new Set(numbers)].sort()
    const read = (c: unknown) => Effect.map(fromResult(readCriteria(c)), ({ json, search }) => ({ json, search }))
    const search = criteria === undefined ? undefined : yield* read(criteria)
    const owned = portfolio.length === 0 ? undefined : yield* read(portfolioOf(portfolio))
    return {
      name,
      criteria: search === undefined ? null : JSON.stringify(search.search.request),
      criteria_key: search === undefined ? null : criteriaKeyOf(search.json),
      numbers: JSON.stringify(portfolio),
      portfolio_key: owned === undefined ? null : criteriaKeyOf(owned.json),
      expiring_within: expiringWithin,
      note: note ?? null,
      cursor: null
    }
  })

const watchOf = (row: Row): Watch => ({
  name: row.name,
  criteria: row.criteria === null ? undefined : parsed(row.criteria) as Criteria,
  numbers: JSON.parse(row.numbers) as ReadonlyArray<string>,
  expiringWithin: Number(row.expiring_within),
  note: row.note ?? undefined,
  cursor: row.cursor === null ? undefined : new Date(row.cursor).toISOString()
})

const db = (doing: string) => <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, databaseError(doing))

/** Names of a list of values in the record (`owners` by name, `classifications` by code). */
const namesOf = (value: unknown, key: "name" | "code"): ReadonlyArray<string> =>
  Array.isArray(value) ? value.map((v: unknown) => String((v as Record<string, unknown> | null)?.[key] ?? "")) : []

/** The events a change of the history makes: the fields a watch tells, old → new. */
const changeEvents = (fields: Record<string, { readonly old?: unknown; readonly new?: unknown }>) => {
  const told: ReadonlyArray<readonly [string, EventKind, (v: unknown) => unknown]> = [
    ["status", "status", (v) => v ?? null],
    ["owners", "owner", (v) => namesOf(v, "name")],
    ["classifications", "classification", (v) => namesOf(v, "code")]
  ]
  return told.flatMap(([field, event, value]) => {
    const change = fields[field]
    return change === undefined ? [] : [{ event, fields: { old: value(change.old), new: value(change.new) } }]
  })
}

/** The watches' operations over the ambient `SqlClient`, and `mirror`'s syncs; their tables made or migrated first. */
export const make = (mirror: Mirror, schema: string | undefined) =>
  Effect.gen(function*() {
    const loader = Migrator.fromRecord(migrations(schema))
    const table = "design_watch_migrations"
    yield* migrateLocked(schema, Migrator.make({})({ loader, table }), table)
    const sql = yield* SqlClient.SqlClient
    const t = names(sql, schema)
    const insertAll = (table: typeof t.events, rows: ReadonlyArray<Record<string, unknown>>) =>
      Effect.forEach(Arr.chunksOf(rows, 200), (c) => sql`INSERT INTO ${table} ${sql.insert(c)} ON CONFLICT DO NOTHING`)
    const all = db("reading watches")(sql<Row>`SELECT name, CAST(criteria AS TEXT) AS criteria,
  criteria_key, CAST(numbers AS TEXT) AS numbers, portfolio_key, expiring_within, note, cursor
  FROM ${t.watches} ORDER BY name`)
    const rowsOf = (wanted?: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const rows = yield* all
        const missing = wanted?.find((name) => !rows.some((r) => r.name === name))
        if (missing !== undefined) return yield* new WatchNotFoundError({ name: missing })
        return wanted === undefined ? rows : rows.filter((r) => wanted.includes(r.name))
      })

    /** One watch's events since its cursor, written with its designs and cursor in one transaction. */
    const derive = (w: Row, at: string) =>
      Effect.gen(function*() {
        const keys = [w.criteria_key, w.portfolio_key].filter((k): k is string => k !== null)
        const listed = sql`SELECT number FROM ${t.listing} WHERE ${sql.in("criteria_key", keys)}`
        const member = sql`FROM ${t.members} m WHERE m.watch = ${w.name}`
        const entered = yield* sql<{ number: string }>`SELECT DISTINCT l.number FROM (${listed}) l
  WHERE NOT EXISTS (SELECT 1 ${member} AND m.number = l.number) ORDER BY l.number`
        const left = yield* sql<{ number: string }>`SELECT m.number ${member} AND m.number NOT IN (${listed})
  ORDER BY m.number`
        const changed = w.cursor === null ?
          [] :
          yield* sql<{ number: string; synced_at: string | Date; fields: string }>`
SELECT c.number, c.synced_at, CAST(c.fields AS TEXT) AS fields FROM ${t.changes} c
  JOIN ${t.members} m ON m.number = c.number AND m.watch = ${w.name}
  WHERE c.kind = 'changed' AND c.synced_at > ${new Date(w.cursor).toISOString()} AND c.synced_at <= ${at}
  ORDER BY c.synced_at, c.number`
        yield* insertAll(t.members, entered.map(({ number }) => ({ watch: w.name, number })))
        if (left.length > 0) {
          yield* sql`DELETE FROM ${t.members} WHERE watch = ${w.name} AND ${
            sql.in("number", left.map((r) => r.number))
          }`
        }
        const horizon = DateTime.formatIso(DateTime.add(dateTimeUnsafe(Date.parse(at)), { days: w.expiring_within }))
        const expiring = yield* sql<
          { number: string; expiry: string }
        >`SELECT m.number, CAST(d.expiry_date AS TEXT) AS expiry
  FROM ${t.members} m JOIN ${t.designs} d ON d.number = m.number WHERE m.watch = ${w.name}
  AND d.status IN ('REGISTERED', 'CERTIFIED') AND d.expiry_date >= ${at.slice(0, 10)}
  AND d.expiry_date <= ${horizon.slice(0, 10)} AND (m.expiry_told IS NULL OR m.expiry_told <> d.expiry_date)
  ORDER BY d.expiry_date, m.number`
        for (const { expiry, number } of expiring) {
          yield* sql`UPDATE ${t.members} SET expiry_told = ${expiry} WHERE watch = ${w.name} AND number = ${number}`
        }
        const events: Array<Omit<WatchEvent, "design">> = w.cursor === null ? [] : [
          ...entered.map(({ number }) => ({ watch: w.name, number, event: "new" as const, at, fields: {} })),
          ...changed.flatMap((c) =>
            changeEvents(parsed(c.fields) as Record<string, { old?: unknown; new?: unknown }>).map((e) => ({
              watch: w.name,
              number: c.number,
              at: new Date(c.synced_at).toISOString(),
              ...e
            }))
          ),
          ...expiring.map(({ expiry, number }) => ({
            watch: w.name,
            number,
            event: "expiring" as const,
            at,
            fields: { expiryDate: expiry.slice(0, 10) }
          })),
          ...left.map(({ number }) => ({ watch: w.name, number, event: "no_longer_matching" as const, at, fields: {} }))
        ]
        const numbers = [...new Set(events.map((e) => e.number))]
        const designs = new Map<string, WatchEvent["design"]>()
        for (let i = 0; i < numbers.length; i += 500) {
          const found = yield* sql<{ number: string; record: string }>`SELECT number, CAST(record AS TEXT) AS record
  FROM ${t.designs} WHERE ${sql.in("number", numbers.slice(i, i + 500))}`
          for (const { number, record } of found) {
            const r = parsed(record)
            const text = (v: unknown) => (typeof v === "string" ? v : null)
            const owners = namesOf(r.owners, "name")
            designs.set(number, {
              title: text(r.title),
              status: text(r.status),
              owners,
              classes: namesOf(r.classifications, "code")
            })
          }
        }
        const none = { title: null, status: null, owners: [], classes: [] }
        const told = events.map((e): WatchEvent => ({ ...e, design: designs.get(e.number) ?? none }))
        const rows = told.map((e) => ({ ...e, fields: JSON.stringify(e.fields), design: JSON.stringify(e.design) }))
        yield* insertAll(t.events, rows)
        yield* sql`UPDATE ${t.watches} SET cursor = ${at} WHERE name = ${w.name}`
        const [count] = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n ${member}`
        return { watch: w.name, baseline: w.cursor === null, following: Number(count?.n ?? 0), events: told }
      }).pipe(sql.withTransaction, db(`running the watch ${w.name}`))

    return {
      add: (input: WatchInput) =>
        Effect.gen(function*() {
          const row = yield* readWatch(input)
          if ((yield* all).some((r) => r.name === row.name)) {
            return yield* invalid("name", `a watch named ${JSON.stringify(row.name)} exists: remove it first`)
          }
          yield* db("adding the watch")(sql`INSERT INTO ${t.watches} ${sql.insert({ ...row })}`)
          return watchOf(row)
        }),
      list: Effect.map(all, (rows) => rows.map(watchOf)),
      remove: (name: string) =>
        Effect.gen(function*() {
          yield* rowsOf([name])
          yield* db("removing the watch")(sql.withTransaction(Effect.all([
            sql`DELETE FROM ${t.events} WHERE watch = ${name}`,
            sql`DELETE FROM ${t.members} WHERE watch = ${name}`,
            sql`DELETE FROM ${t.watches} WHERE name = ${name}`
          ])))
        }),
      run: (wanted?: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const rows = yield* rowsOf(wanted)
          // Watches with equal criteria share one sync.
          const searches = new Map<string, Criteria>()
          for (const w of rows) {
            if (w.criteria_key !== null) searches.set(w.criteria_key, parsed(w.criteria) as Criteria)
            if (w.portfolio_key !== null) searches.set(w.portfolio_key, portfolioOf(JSON.parse(w.numbers)))
          }
          let requests = 0
          for (const criteria of searches.values()) requests += (yield* mirror.sync(criteria)).requests
          const at = new Date(yield* Clock.currentTimeMillis).toISOString()
          const watches: Array<WatchRun> = []
          for (const w of rows) watches.push(yield* derive(w, at))
          return { watches, syncs: searches.size, requests }
        }),
      report: (name: string, range: ReportRange = {}) =>
        Effect.gen(function*() {
          const { since, until } = (range ?? {}) as ReportRange
          for (const [key, value] of Object.entries({ since, until })) {
            if (value !== undefined && !DateTime.isDateTime(value)) {
              return yield* invalid(key, "expected a DateTime, or nothing")
            }
          }
          yield* rowsOf([name])
          const from = since === undefined ? "1970-01-01T00:00:00.000Z" : DateTime.formatIso(since)
          const to = until === undefined ? "9999-12-31T00:00:00.000Z" : DateTime.formatIso(until)
          const rows = yield* db("reading events")(sql<
            { number: string; event: EventKind; at: string | Date; fields: string; design: string }
          >`SELECT number, event, at, CAST(fields AS TEXT) AS fields, CAST(design AS TEXT) AS design
  FROM ${t.events} WHERE watch = ${name} AND at >= ${from} AND at < ${to} ORDER BY at, number, event`)
          return rows.map((r): WatchEvent => ({
            watch: name,
            number: r.number,
            event: r.event,
            at: new Date(r.at).toISOString(),
            fields: parsed(r.fields),
            design: parsed(r.design) as unknown as WatchEvent["design"]
          }))
        })
    }
  })
