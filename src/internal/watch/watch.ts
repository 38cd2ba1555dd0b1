/**
 * Watches over the mirror: their tables, in the mirror's schema, and `run`, which syncs each distinct criteria once,
 * then, a watch at a time in one transaction, derives its events since its cursor (docs/watch.md).
 */
import { Migrator, SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe, fromResult } from "#edition/internal/seam"
import { Array as Arr, Clock, DateTime, Effect } from "effect"
import type { ValidationError } from "../../ApiError.js"
import { criteriaKeyOf, parsed } from "../../core/mirror/mirror.js"
import type { Service as Mirror } from "../../DesignMirror.js"
import { criteriaKey, readCriteria } from "../mirror/criteria.js"
import type { Criteria } from "../mirror/model.js"
import { databaseError } from "../mirror/model.js"
import { migrateLocked } from "../mirror/sharing.js"
import { names as mirrorNames, typesOf } from "../mirror/tables.js"
import { clientValidation, parameterError } from "../validation.js"
import type { EventKind, ReportRange, Watch, WatchEvent, WatchInput } from "./model.js"
import { WatchNotFoundError } from "./model.js"

interface Row extends Readonly<Record<"criteria" | "criteria_key" | "portfolio_key" | "note", string | null>> {
  readonly name: string
  readonly numbers: string
  readonly expiring_within: number
  readonly cursor: string | Date | null
}

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
    const digits = Array.isArray(numbers) && numbers.every((n) => /^\d{1,15}$/.test(String(n)))
    const noted = note === undefined || (typeof note === "string" && !note.includes("\u0000"))
    const bad = ([
      ["name", "1 to 100 characters, no control", typeof name === "string" && nameText.test(name)],
      ["numbers", "design numbers, digits only", digits],
      ["criteria", "criteria, numbers, or both", criteria !== undefined || (digits && numbers.length > 0)],
      ["expiringWithin", "0 to 3650 days", Number.isSafeInteger(days) && days >= 0 && days <= 3650],
      ["note", "a text without NUL, or nothing", noted]
    ] as const).find(([, , ok]) => !ok)
    if (bad !== undefined) return yield* invalid(bad[0], bad[1])
    const portfolio = [...new Set(numbers)].sort()
    const search = criteria === undefined ? undefined : yield* fromResult(readCriteria(criteria))
    return {
      name,
      criteria: search === undefined ? null : JSON.stringify(search.search.request),
      criteria_key: search === undefined ? null : criteriaKeyOf(search.json),
      numbers: JSON.stringify(portfolio),
      portfolio_key: portfolio.length === 0 ? null : yield* fromResult(criteriaKey(portfolioOf(portfolio))),
      expiring_within: days,
      note: note ?? null,
      cursor: null
    }
  })

const iso = (at: string | Date) => new Date(at).toISOString()

const watchOf = (row: Row): Watch => ({
  name: row.name,
  criteria: row.criteria === null ? undefined : parsed(row.criteria) as Criteria,
  numbers: JSON.parse(row.numbers),
  expiringWithin: Number(row.expiring_within),
  note: row.note ?? undefined,
  cursor: row.cursor === null ? undefined : iso(row.cursor)
})

const db = (doing: string) => <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, databaseError(doing))

/** A list of the record by a field of its items (`owners` by name, `classifications` by code). */
const namesOf = (value: unknown, key: "name" | "code"): ReadonlyArray<string> =>
  Array.isArray(value)
    ? value.map((v: unknown) => String((v as Record<string, unknown> | null)?.[key] ?? ""))
    : []
const textOf = (v: unknown) => (typeof v === "string" ? v : null)

/** The design as an event shows it, from its record. */
const summaryOf = (r: Record<string, unknown>): WatchEvent["design"] => ({
  title: textOf(r.title),
  status: textOf(r.status),
  owners: namesOf(r.owners, "name"),
  classes: namesOf(r.classifications, "code")
})

/** The events a change of the history tells, by the field changed: old → new. */
const told = { status: "status", owners: "owner", classifications: "classification" } as const
const changeEvents = (fields: Readonly<Record<string, { readonly old?: unknown; readonly new?: unknown }>>) =>
  Object.entries(told).flatMap(([field, event]) => {
    const c = fields[field]
    const value = (v: unknown) => (field === "status" ? v ?? null : namesOf(v, field === "owners" ? "name" : "code"))
    return c === undefined ? [] : [{ event, fields: { old: value(c.old), new: value(c.new) } }]
  })

type Numbered = { readonly number: string }
type EventRow = Numbered & { event: EventKind; at: string | Date; fields: string; design: string }

/**
 * A watch's events, oldest first, at or after `since` and before `until` (at most `limit`): what
 * `report` reads, with no request and nothing written, so a read-only connection serves it too.
 */
export const readReport = (sql: SqlClient.SqlClient, schema: string | undefined) => {
  const { table } = mirrorNames(sql, schema)
  const [watches, events] = [table("design_watches"), table("design_watch_events")]
  return (name: string, range?: ReportRange, limit = Number.MAX_SAFE_INTEGER) =>
    Effect.gen(function*() {
      const { since, until } = (range ?? {}) as ReportRange
      const bad = Object.entries({ since, until }).find(([, v]) => v !== undefined && !DateTime.isDateTime(v))
      if (bad !== undefined) return yield* invalid(bad[0], "a DateTime, or nothing")
      const found = yield* db("reading watches")(sql`SELECT name FROM ${watches} WHERE name = ${name}`)
      if (found.length === 0) return yield* new WatchNotFoundError({ name })
      const from = DateTime.formatIso(since ?? dateTimeUnsafe(0))
      const to = DateTime.formatIso(until ?? dateTimeUnsafe(253402214400000))
      const rows = yield* db("reading events")(
        sql<EventRow>`SELECT number, event, at, CAST(fields AS TEXT) AS fields, CAST(design AS TEXT) AS design
  FROM ${events} WHERE watch = ${name} AND at >= ${from} AND at < ${to} ORDER BY at, number, event LIMIT ${limit}`
      )
      // the design as the run stored it: its summary already
      return rows.map((r): WatchEvent => ({
        ...r,
        watch: name,
        at: iso(r.at),
        fields: parsed(r.fields),
        design: parsed(r.design) as WatchEvent["design"]
      }))
    })
}

/** The watches' operations over the ambient `SqlClient`, and `mirror`'s syncs; their tables made or migrated first. */
export const make = (mirror: Mirror, schema: string | undefined) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const m = mirrorNames(sql, schema)
    const t = {
      ...m,
      watches: m.table("design_watches"),
      members: m.table("design_watch_designs"),
      events: m.table("design_watch_events")
    }
    const [date, time, json] = Object.values(typesOf(sql)).map((type) => sql.literal(type))
    const created = Effect.all([
      sql`CREATE TABLE ${t.watches} (name TEXT PRIMARY KEY NOT NULL, criteria ${json}, criteria_key TEXT,
  numbers ${json} NOT NULL, portfolio_key TEXT, expiring_within INTEGER NOT NULL, note TEXT, cursor ${time})`,
      sql`CREATE TABLE ${t.members} (watch TEXT NOT NULL, number TEXT NOT NULL, expiry_told ${date},
  PRIMARY KEY (watch, number))`,
      sql`CREATE TABLE ${t.events} (watch TEXT NOT NULL, at ${time} NOT NULL, number TEXT NOT NULL,
  event TEXT NOT NULL, fields ${json} NOT NULL, design ${json} NOT NULL, PRIMARY KEY (watch, at, number, event))`
    ], { discard: true })
    const table = "design_watch_migrations"
    const loader = Migrator.fromRecord({ "1_watches": created })
    yield* migrateLocked(schema, Migrator.make({})({ loader, table }), table)
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
    const derive = (w: Row, now: string) =>
      Effect.gen(function*() {
        const keys = [w.criteria_key, w.portfolio_key].filter((k) => k !== null)
        const listed = sql`SELECT number FROM ${t.listing} WHERE ${sql.in("criteria_key", keys)}`
        const member = sql`FROM ${t.members} m WHERE m.watch = ${w.name}`
        const entered = yield* sql<Numbered>`SELECT DISTINCT l.number FROM (${listed}) l
  WHERE NOT EXISTS (SELECT 1 ${member} AND m.number = l.number) ORDER BY l.number`
        const left = yield* sql<Numbered>`SELECT m.number ${member} AND m.number NOT IN (${listed}) ORDER BY m.number`
        const changed = w.cursor === null ? [] : yield* sql<Numbered & { synced_at: string | Date; fields: string }>`
SELECT c.number, c.synced_at, CAST(c.fields AS TEXT) AS fields FROM ${t.changes} c
  JOIN ${t.members} m ON m.number = c.number AND m.watch = ${w.name}
  WHERE c.kind = 'changed' AND c.synced_at > ${iso(w.cursor)} AND c.synced_at <= ${now} ORDER BY c.synced_at, c.number`
        yield* insertAll(t.members, entered.map(({ number }) => ({ watch: w.name, number })))
        for (const chunk of Arr.chunksOf(left.map((r) => r.number), 500)) {
          yield* sql`DELETE FROM ${t.members} WHERE watch = ${w.name} AND ${sql.in("number", chunk)}`
        }
        const horizon = DateTime.formatIso(DateTime.add(dateTimeUnsafe(Date.parse(now)), { days: w.expiring_within }))
        const expiring = yield* sql<Numbered & { expiry: string }>`SELECT m.number,
  CAST(d.expiry_date AS TEXT) AS expiry FROM ${t.members} m JOIN ${t.designs} d ON d.number = m.number
  WHERE m.watch = ${w.name} AND d.status IN ('REGISTERED', 'CERTIFIED') AND d.expiry_date >= ${now.slice(0, 10)}
  AND d.expiry_date <= ${horizon.slice(0, 10)} AND (m.expiry_told IS NULL OR m.expiry_told <> d.expiry_date)
  ORDER BY d.expiry_date, m.number`
        for (const { expiry, number } of expiring) {
          yield* sql`UPDATE ${t.members} SET expiry_told = ${expiry} WHERE watch = ${w.name} AND number = ${number}`
        }
        const event = (number: string, event: EventKind, fields = {}, at = now) => ({
          watch: w.name,
          number,
          event,
          at,
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
        const found = yield* Effect.forEach(Arr.chunksOf([...new Set(events.map((e) => e.number))], 500), (chunk) =>
          sql<Numbered & { record: string }>`SELECT number, CAST(record AS TEXT) AS record
  FROM ${t.designs} WHERE ${sql.in("number", chunk)}`)
        const designs = new Map(found.flat().map(({ number, record }) => [number, summaryOf(parsed(record))]))
        const reported = events.map((e): WatchEvent => ({ ...e, design: designs.get(e.number) ?? summaryOf({}) }))
        const json = (e: WatchEvent) => ({ ...e, fields: JSON.stringify(e.fields), design: JSON.stringify(e.design) })
        yield* insertAll(t.events, reported.map(json))
        yield* sql`UPDATE ${t.watches} SET cursor = ${now} WHERE name = ${w.name}`
        const [count] = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n ${member}`
        return { watch: w.name, baseline: w.cursor === null, following: Number(count?.n ?? 0), events: reported }
      }).pipe(sql.withTransaction, db(`running the watch ${w.name}`))

    return {
      add: (input: WatchInput) =>
        Effect.gen(function*() {
          const row = yield* readWatch(input)
          const taken = (yield* all).some((r) => r.name === row.name)
          if (taken) return yield* invalid("name", "a name no watch has")
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
          const searches = new Map<string, Criteria>() // watches with equal criteria share one sync
          for (const w of rows) {
            if (w.criteria_key !== null) searches.set(w.criteria_key, parsed(w.criteria) as Criteria)
            if (w.portfolio_key !== null) searches.set(w.portfolio_key, portfolioOf(JSON.parse(w.numbers)))
          }
          const syncs = yield* Effect.forEach(searches.values(), (criteria) => mirror.sync(criteria))
          const now = iso(new Date(yield* Clock.currentTimeMillis))
          const watches = yield* Effect.forEach(rows, (w) => derive(w, now))
          return { watches, syncs: syncs.length, requests: syncs.reduce((n, s) => n + s.requests, 0) }
        }),
      report: readReport(sql, schema)
    }
  })
