/**
 * What the mirror's tests share: a fresh database of each engine the edition has (a SQLite file in a
 * temporary folder, Effect 3 only, or a database on the test file's PostgreSQL server), the
 * in-process sandbox behind the client, time on the `TestClock`, and readers of the rows, of the
 * history and of the requests made.
 */
import { Migrator, SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe, fromResult, layerUnwrap } from "#edition/internal/seam"
import { edition, layerSqlite, TestClock } from "#test-edition/support/seam"
import { Effect, Layer, Option, Stream } from "effect"
import type { Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DesignMirror from "../../src/DesignMirror.js"
import type { Designs } from "../../src/index.js"
import { DesignSearchClient, Sandbox } from "../../src/index.js"
import { clientLayer } from "./layers.js"
import * as Pg from "./postgres.js"

export const designs = 240
/** Every design of the sandbox: 3 pages of 100. */
export const everything: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
}
/** Designs last changed before December: a touch takes a design out. */
export const unchanged: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "LAST_CHANGED", to: "2026-11-30" } } }]
}
export const dec1 = Date.UTC(2026, 11, 1, 9)
export const day = 86_400_000
/** The start of time, for `changes({ since })`. */
export const ever = dateTimeUnsafe(0)

export type Engine = "sqlite" | "postgres"
/** The engines of the edition's mirror: SQLite in Effect 3 only, PostgreSQL in both. */
export const engines: ReadonlyArray<Engine> = edition === 3 ? ["sqlite", "postgres"] : ["postgres"]

/** The tables a mirror keeps, by name. */
export const mirrorTables = ["design_changes", "design_classifications", "design_designers", "design_listing"]
  .concat(["design_mirror_migrations", "design_owners", "design_products", "design_sync_state", "designs"])

/** A new temporary folder, removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "mirror-test-"))),
  (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
)

let databases = 0
/** The URL of a new empty database on the test file's PostgreSQL server. */
export const databaseUrl = Effect.flatMap(
  Pg.Postgres,
  (server) => server.database(`mirror_${process.pid}_${++databases}`)
)

/** A `SqlClient` on the PostgreSQL database `url`, the tests' own statements naming the mirror's tables as on SQLite. */
export const postgresAt = (url: string) =>
  DesignMirror.layerPostgres({ url: `${url}?options=-c%20search_path%3Ddesign_search%2Cpublic` })

/** A `SqlClient` on a new empty database of `engine`, for the rest of the scope. */
export const database = (engine: Engine) =>
  Effect.gen(function*() {
    if (engine === "sqlite") return layerSqlite({ url: `file:${join(yield* tempDir, "mirror.db")}` })
    return postgresAt(yield* databaseUrl)
  })

/** The tables of a mirror of the first release (before schemas), made as its migrations made them. */
export const firstRelease = Migrator.make({})({
  loader: Migrator.fromRecord({
    "1_designs_and_sync_state": Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.all([
        sql`CREATE TABLE designs (number TEXT PRIMARY KEY NOT NULL, record TEXT NOT NULL, last_changed TEXT,
  synced_at TEXT NOT NULL, criteria_key TEXT NOT NULL, state TEXT NOT NULL)`,
        sql`CREATE INDEX designs_criteria_key ON designs (criteria_key, state)`,
        sql`CREATE TABLE design_sync_state (criteria_key TEXT PRIMARY KEY NOT NULL, criteria TEXT NOT NULL,
  watermark TEXT, run_day TEXT, run_since TEXT, run_position INTEGER NOT NULL, updated_at TEXT NOT NULL)`
      ])),
    "2_designs_by_criteria_in_order": Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.all([
        sql`DROP INDEX designs_criteria_key`,
        sql`CREATE INDEX designs_criteria_key_state_number ON designs (criteria_key, state, number)`
      ]))
  }),
  table: "design_mirror_migrations"
})

export interface Row {
  readonly number: string
  /** The record as the engine writes it back (PostgreSQL's JSONB orders keys its own way). */
  readonly record: string
  readonly last_changed: string | null
  readonly criteria_key: string
  readonly state: string
}

export const rows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<Row>`SELECT number, CAST(record AS TEXT) AS record, CAST(last_changed AS TEXT) AS last_changed, criteria_key,
  state FROM designs ORDER BY number`
)

/** The names of the tables of a SQLite file, or of a PostgreSQL schema. */
export const tables = (schema?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      schema === undefined
        ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
        : sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema} ORDER BY name`,
      (found) => found.map((t) => t.name)
    ))

/** The stored sync state of `criteria`, which must have been synced. */
export const stateOf = (criteria: DesignMirror.Criteria) =>
  Effect.flatMap(DesignMirror.DesignMirror, (mirror) => Effect.map(mirror.state(criteria), Option.getOrThrow))

/** The changes the mirror holds (`options` as `changes` takes them), newest first. */
export const changesOf = (options?: DesignMirror.ChangesOptions) =>
  Effect.flatMap(
    DesignMirror.DesignMirror,
    (mirror) => Effect.map(Stream.runCollect(mirror.changes(options)), (read) => Array.from(read))
  )

/** Requests the sandbox has answered on the API (tokens not counted). */
export const apiRequests = Effect.flatMap(
  Sandbox.SandboxControl,
  (c) => Effect.map(c.stats, ({ requests }) => requests.search + requests.advanced + requests.page + requests.design)
)

/** `effect`'s result, and how many API requests the sandbox answered while it ran. */
export const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const before = yield* apiRequests
    const result = yield* effect
    return [result, (yield* apiRequests) - before] as const
  })

export const syncAll = Effect.flatMap(DesignMirror.DesignMirror, (mirror) => mirror.sync(everything))

/** What a test changes of the sandbox, of the mirror's options, and of the client the mirror is given (not the test's own). */
export interface Setup {
  readonly sandbox?: Sandbox.Options
  readonly options?: DesignMirror.Options
  readonly wrap?: (client: DesignSearchClient.Service) => DesignSearchClient.Service
}

/** The mirror over `sql`, fed by a fresh sandbox of `designs` (with the client, its control and `sql` itself). */
export const mirrorOver = <E>(sql: Layer.Layer<SqlClient.SqlClient, E>, setup: Setup = {}) =>
  layerUnwrap(
    Effect.map(DesignSearchClient.DesignSearchClient, (client) =>
      DesignMirror.layer(setup.options).pipe(
        Layer.provide(Layer.succeed(DesignSearchClient.DesignSearchClient, setup.wrap?.(client) ?? client))
      ))
  ).pipe(Layer.provideMerge(Layer.merge(sql, clientLayer({ sandbox: { designs, ...setup.sandbox } }))))

/** What a test of the mirror is given. */
type Services =
  | DesignMirror.DesignMirror
  | SqlClient.SqlClient
  | DesignSearchClient.DesignSearchClient
  | Sandbox.SandboxControl

/**
 * Runs a test on a fresh sandbox and a fresh database of `engine` (or `sql`, a database of the
 * test's own), the clock at 1 December 2026.
 */
export const onEngine =
  (engine: Engine, setup: Setup & { readonly sql?: ReturnType<typeof postgresAt> } = {}) =>
  <A, E>(test: Effect.Effect<A, E, Services>) =>
    Effect.gen(function*() {
      yield* TestClock.setTime(dec1)
      const sql = setup.sql ?? (yield* database(engine))
      return yield* Effect.provide(test, mirrorOver(sql, setup))
    }).pipe(Effect.scoped)

/** The record of `n` as the mirror writes it, from the client's get. */
export const record = (n: string) =>
  Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (c) => Effect.flatMap(c.getDesign(n), (r) => fromResult(DesignMirror.recordOf(r.data)))
  )
