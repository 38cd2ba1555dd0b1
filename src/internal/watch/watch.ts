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

type Row =
  & { readonly name: string; readonly numbers: string; readonly expiring_within: number }
  & {
    readonly [K in "criteria" | "criteria_key" | "portfolio_key" | "note"]: string | null
  }
  & { readonly cursor: string | Date | null }

const invalid = (parameter: string, detail: string) =>
  Effect.fail(clientValidation([parameterError(parameter, `expected ${detail}`)]))

/** A portfolio as criteria: one row a number, joined with OR. */
const portfolioOf = (numbers: ReadonlyArray<string>): Criteria => ({
  rows: numbers.map((n, i) => ({ op: i === 0 ? "AND" : "OR", query: { designNumber: n } }))
})

// eslint-disable-next-line no-control-regex
const nameText = /^[^\u0000-\u001f\u007f-\u009f]{1,100}$/

/** A watch as `add` takes it, checked, as its row. */
const readWatch = (input: unknown): Effect.Effect<Row, ValidationError> =>
  Effect.gen(function*() {
    const { criteria, expiringWithin: days = 90, name, note, numbers = [] } = (input ?? {}) as WatchInput
    if (typeof name !== "string" || !nameText.test(name)) {
      return yield* invalid("name", "1 to 100 characters, no control")
    }
    if (!Array.isArray(numbers) || numbers.some((n) => !/^\d{1,15}$/.test(String(n)))) {
      return yield* invalid("numbers", "design numbers, digits only")
    }
    if (criteria === undefined && numbers.length === 0) return yield* invalid("criteria", "criteria, numbers, or both")
    if (!Number.isSafeInteger(days) || days < 0 || days > 3650) {
      return yield* invalid("expiringWithin", "0 to 3650 days")
    }
    if (note !== undefined && (typeof note !== "string" || note.includes("\u0000"))) {
      return yield* invalid("note", "a text without NUL, or nothing")
    }
    const portfolio = [...new Set(numbers)].sort()
    const search = criteria === undefined ? undefined : yield* fromResult(readCriteria(criteria))
    const owned = portfolio.length === 0 ? undefined : yield* fromResult(readCriteria(portfolioOf(portfolio)))
    return {
      name,
      criteria: search === undefined ? null : JSON.stringify(search.search.request),
      criteria_key: search === undefined ? null : criteriaKeyOf(search.json),
      numbers: JSON.stringify(portfolio),
      portfolio_key: owned === undefined ? null : criteriaKeyOf(owned.json),
      expiring_within: days,
      note: note ?? null,
      cursor: null
    }
  })

const iso = (at: string | Date) => new Date(at).toISOString()

const watchOf = (row: Row): Watch => ({
  name: row.name,
  criteria: row.criteria === null ? undefined : parsed(row.criteria) as Criteria,
  numbers: JSON.parse(row.numbers) as ReadonlyArray<string>,
  expiringWithin: Number(row.expiring_within),
  note: row.note ?? undefined,
  cursor: row.cursor === null ? undefined : iso(row.cursor)
})

const db = (doing: string) => <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, databaseError(doing))

/** A list of the record by a field of its items (`owners` by name, `classifications` by code). */
const namesOf = (value: unknown, key: "name" | "code"): ReadonlyArray<string> =>
  Array.isArray(value) ? value.map((v: unknown) => String((v as Record<string, unknown> | null)?.[key] ?? "")) : []

/** The design as an event shows it, from its record. */
const summaryOf = (record: Record<string, unknown>): WatchEvent["design"] => {
  const text = (v: unknown) => (typeof v === "string" ? v : null)
  const [owners, classes] = [namesOf(record.owners, "name"), namesOf(record.classifications, "code")]
  return { title: text(record.title), status: text(record.status), owners, classes }
}

/** The fields of a change of the history that a watch tells, as events: old → new. */
const told = [["status", "status"], ["owners", "owner"], ["classifications", "classification"]] as const
const changeEvents = (fields: Readonly<Record<string, { readonly old?: unknown; readonly new?: unknown }>>) =>
  told.flatMap(([field, event]) => {
    const c = fields[field]
    const value = (v: unknown) => (field === "status" ? v ?? null : namesOf(v, field === "owners" ? "name" : "code"))
    return c === undefined ? [] : [{ event, fields: { old: value(c.old), new: value(c.new) } }]
  })

type Numbered = { readonly number: string }
type EventRow = Numbered & {
  readonly event: EventKind
  readonly at: string | Date
  readonly fields: string
  readonly design: string
}

/** The watches' operations over the ambient `SqlClient`, and `mirror`'s syncs; their tables made or migrated first. */
export const make = (mirror: Mirror, schema: string | undefined) =>
  Effect.gen(function*() {
    const table = "design_watch_migrations"
    yield* migrateLocked(schema, Migrator.make({})({ loader: Migrator.fromRecord(migrations(schema)), table }), table)
    const sql = yield* SqlClient.SqlClient
    const t = names(sql, schema)
    const insertAll = (table: typeof t.events, rows: ReadonlyArray<Record<string, unknown>>) =>
      Effect.forEach(Arr.chunksOf(rows, 200), (c) => sql`INSERT INTO ${table} ${sql.insert(c)} ON CONFLICT DO NOTHING`)
    const all = db("reading watches")(sql<Row>`SELECT name, CAST(criteria AS TEXT) AS criteria, criteria_key,
  CAST(numbers AS TEXT) AS numbers, portfolio_key, expiring_within, note, cursor FROM ${t.watches} ORDER BY name`)
    const rowsOf = (wanted?: ReadonlyArray<string>) =>
      Effect.flatMap(all, (rows) => {
        const missing = wanted?.find((name) => !rows.some((r) => r.name === name))
        if (missing !== undefined) return Effect.fail(new WatchNotFoundError({ name: missing }))
        return Effect.succeed(wanted === undefined ? rows : rows.filter((r) => wanted.includes(r.name)))
      })

    /** One watch's events since its cursor, written with its designs and cursor in one transaction. */
    const derive = (w: Row, at: string) =>
      Effect.gen(function*() {
        const keys = [w.criteria_key, w.portfolio_key].filter((k): k is string => k !== null)
        const listed = sql`SELECT number FROM ${t.listing} WHERE ${sql.in("criteria_key", keys)}`
        const member = sql`FROM ${t.members} m WHERE m.watch = ${w.name}`
        const entered = yield* sql<Numbered>`SELECT DISTINCT l.number FROM (${listed}) l
  WHERE NOT EXISTS (SELECT 1 ${member} AND m.number = l.number) ORDER BY l.number`
        const left = yield* sql<Numbered>`SELECT m.number ${member} AND m.number NOT IN (${listed}) ORDER BY m.number`
        const changed = w.cursor === null ? [] : yield* sql<Numbered & { synced_at: string | Date; fields: string }>`
SELECT c.number, c.synced_at, CAST(c.fields AS TEXT) AS fields FROM ${t.changes} c
  JOIN ${t.members} m ON m.number = c.number AND m.watch = ${w.name}
  WHERE c.kind = 'changed' AND c.synced_at > ${iso(w.cursor)} AND c.synced_at <= ${at} ORDER BY c.synced_at, c.number`
        yield* insertAll(t.members, entered.map(({ number }) => ({ watch: w.name, number })))
        for (const chunk of Arr.chunksOf(left.map((r) => r.number), 500)) {
          yield* sql`DELETE FROM ${t.members} WHERE watch = ${w.name} AND ${sql.in("number", chunk)}`
        }
        const horizon = DateTime.formatIso(DateTime.add(dateTimeUnsafe(Date.parse(at)), { days: w.expiring_within }))
        const expiring = yield* sql<Numbered & { expiry: string }>`SELECT m.number,
  CAST(d.expiry_date AS TEXT) AS expiry FROM ${t.members} m JOIN ${t.designs} d ON d.number = m.number
  WHERE m.watch = ${w.name} AND d.status IN ('REGISTERED', 'CERTIFIED') AND d.expiry_date >= ${at.slice(0, 10)}
  AND d.expiry_date <= ${horizon.slice(0, 10)} AND (m.expiry_told IS NULL OR m.expiry_told <> d.expiry_date)
  ORDER BY d.expiry_date, m.number`
        for (const { expiry, number } of expiring) {
          yield* sql`UPDATE ${t.members} SET expiry_told = ${expiry} WHERE watch = ${w.name} AND number = ${number}`
        }
        const event = (number: string, event: EventKind, fields = {}, when = at) => ({
          watch: w.name,
          number,
          event,
          at: when,
          fields
        })
        const events = w.cursor === null ? [] : [
          ...entered.map(({ number }) => event(number, "new")),
          ...changed.flatMap((c) =>
            changeEvents(parsed(c.fields) as never).map((e) => event(c.number, e.event, e.fields, iso(c.synced_at)))
          ),
          ...expiring.map(({ expiry, number }) => event(number, "expiring", { expiryDate: expiry.slice(0, 10) })),
          ...left.map(({ number }) => event(number, "no_longer_matching"))
        ]
        const designs = new Map<string, WatchEvent["design"]>()
        for (const chunk of Arr.chunksOf([...new Set(events.map((e) => e.number))], 500)) {
          const found = yield* sql<Numbered & { record: string }>`SELECT number, CAST(record AS TEXT) AS record
  FROM ${t.designs} WHERE ${sql.in("number", chunk)}`
          for (const { number, record } of found) designs.set(number, summaryOf(parsed(record)))
        }
        const none = { title: null, status: null, owners: [], classes: [] }
        const reported = events.map((e): WatchEvent => ({ ...e, design: designs.get(e.number) ?? none }))
        yield* insertAll(
          t.events,
          reported.map((e) => ({ ...e, fields: JSON.stringify(e.fields), design: JSON.stringify(e.design) }))
        )
        yield* sql`UPDATE ${t.watches} SET cursor = ${at} WHERE name = ${w.name}`
        const [count] = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n ${member}`
        return { watch: w.name, baseline: w.cursor === null, following: Number(count?.n ?? 0), events: reported }
      }).pipe(sql.withTransaction, db(`running the watch ${w.name}`))

    return {
      add: (input: WatchInput) =>
        Effect.gen(function*() {
          const row = yield* readWatch(input)
          if ((yield* all).some((r) => r.name === row.name)) return yield* invalid("name", "a name no watch has")
          yield* db("adding the watch")(sql`INSERT INTO ${t.watches} ${sql.insert({ ...row })}`)
          return watchOf(row)
        }),
      list: Effect.map(all, (rows) => rows.map(watchOf)),
      remove: (name: string) =>
        Effect.andThen(
          rowsOf([name]),
          db("removing the watch")(sql.withTransaction(Effect.all([
            sql`DELETE FROM ${t.events} WHERE watch = ${name}`,
            sql`DELETE FROM ${t.members} WHERE watch = ${name}`,
            sql`DELETE FROM ${t.watches} WHERE name = ${name}`
          ], { discard: true })))
        ),
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
          const at = iso(new Date(yield* Clock.currentTimeMillis))
          const watches: Array<WatchRun> = []
          for (const w of rows) watches.push(yield* derive(w, at))
          return { watches, syncs: searches.size, requests }
        }),
      report: (name: string, range?: ReportRange) =>
        Effect.gen(function*() {
          const { since, until } = (range ?? {}) as ReportRange
          const bad = Object.entries({ since, until }).find(([, v]) => v !== undefined && !DateTime.isDateTime(v))
          if (bad !== undefined) return yield* invalid(bad[0], "a DateTime, or nothing")
          yield* rowsOf([name])
          const from = DateTime.formatIso(since ?? dateTimeUnsafe(0))
          const to = DateTime.formatIso(until ?? dateTimeUnsafe(253402214400000))
          const rows = yield* db("reading events")(
            sql<EventRow>`SELECT number, event, at, CAST(fields AS TEXT) AS fields, CAST(design AS TEXT) AS design
  FROM ${t.events} WHERE watch = ${name} AND at >= ${from} AND at < ${to} ORDER BY at, number, event`
          )
          return rows.map((r): WatchEvent => ({
            ...r,
            watch: name,
            at: iso(r.at),
            fields: parsed(r.fields),
            design: summaryOf(parsed(r.design))
          }))
        })
    }
  })
