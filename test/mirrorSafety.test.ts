/**
 * The mirror sharing its database (docs/mirror.md, "Sharing a database"): a reader of a SQLite file
 * in another process, two syncs at once, a process killed while it holds the sync lock, tables in a
 * schema of their own beside an application's on PostgreSQL, a table in the way, first syncs at once,
 * and what the CLI says when the database fails. SQLite files in temporary folders, and a real
 * PostgreSQL server on loopback; the CLI tests run the built `design-search` (`npm run build` first).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Redacted, Schedule, Stream } from "effect"
import type { Scope } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as DesignMirror from "../src/DesignMirror.js"
import type { Designs } from "../src/index.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { envFor, run, start, waitForFile } from "./support/cli.js"
import { clientLayer } from "./support/layers.js"
import * as Pg from "./support/postgres.js"

const designs = 240
const everything: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
}
type Engine = "sqlite" | "postgres"
type SqlLayer = Layer.Layer<SqlClient.SqlClient, DesignMirror.MirrorDatabaseError | DesignMirror.SqlDriverMissingError>

const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mirror-safety-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

let databases = 0
/** The URL of a new empty PostgreSQL database. */
const pgDatabase = Effect.flatMap(Pg.Postgres, (server) => server.database(`safety_${process.pid}_${++databases}`))

/** The mirror over `sql` (default options), fed by an in-process sandbox through a client `wrap` may change. */
const mirrorOver = (
  sql: SqlLayer,
  options: DesignMirror.Options = {},
  wrap: (client: DesignSearchClient.Service) => DesignSearchClient.Service = (client) => client
) =>
  Layer.unwrapEffect(
    Effect.map(DesignSearchClient.DesignSearchClient, (client) =>
      DesignMirror.layer(options).pipe(
        Layer.provide(Layer.succeed(DesignSearchClient.DesignSearchClient, wrap(client)))
      ))
  ).pipe(Layer.provideMerge(Layer.merge(sql, clientLayer({ sandbox: { designs } }))))

const syncAll = Effect.flatMap(DesignMirror.DesignMirror, (mirror) => mirror.sync(everything))

const readerScript = fileURLToPath(new URL("./support/sqliteReader.mjs", import.meta.url))

/** A reader or a writer of `file` in another process (see the script), holding the file once this returns. */
const holder = (file: string, mode: "read" | "write", millis = 0) =>
  Effect.gen(function*() {
    const args = [readerScript, file, mode, String(millis)]
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] })),
      (child) => Effect.sync(() => void child.kill("SIGKILL"))
    )
    let said = ""
    const held = yield* Deferred.make<void>()
    const released = yield* Deferred.make<void>()
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      said += chunk
      if (said.includes("held\n")) Deferred.unsafeDone(held, Effect.void)
      if (said.includes("released\n")) Deferred.unsafeDone(released, Effect.void)
    })
    yield* Deferred.await(held).pipe(Effect.timeout("20 seconds"))
    return {
      released: Deferred.await(released).pipe(Effect.timeout("20 seconds")),
      kill: Effect.sync(() => void child.kill("SIGKILL"))
    }
  })

/** What another process sees of `file`: its number of designs, and whether it can take the write lock. */
const seenByAnother = (file: string) =>
  Effect.sync(() => execFileSync(process.execPath, [readerScript, file, "count"], { encoding: "utf8" }).trim())

/** The tables a mirror keeps, by name. */
const mirrorTables = [
  "design_changes",
  "design_classifications",
  "design_designers",
  "design_listing",
  "design_mirror_migrations",
  "design_owners",
  "design_products",
  "design_sync_state",
  "designs"
]

/** The names of the tables of a SQLite file, or of a PostgreSQL schema. */
const tables = (schema?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      schema === undefined
        ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
        : sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${schema} ORDER BY name`,
      (rows) => rows.map((r) => r.name)
    ))

layer(Pg.layer, { timeout: 120_000, excludeTestServices: true })("the mirror, sharing its database", (it) => {
  it.scoped("sqlite: a reader in another process does not hold up a sync; a writer that lets go within the default busy timeout is waited for", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "mirror.db")
      const context = yield* Layer.build(mirrorOver(DesignMirror.layerSqlite({ url: `file:${file}` })))
      // The mirror's file is in WAL mode: the reader keeps its snapshot while the sync writes.
      const mode = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`PRAGMA journal_mode`)
      expect(yield* Effect.provide(mode, context)).toEqual([{ journal_mode: "wal" }])
      const analyst = yield* holder(file, "read")
      expect((yield* Effect.provide(syncAll, context)).inserted).toBe(designs)
      yield* analyst.kill
      // A writer holds the lock a second: the run's first write waits for it.
      const writer = yield* holder(file, "write", 1000)
      expect((yield* Effect.provide(syncAll, context)).matching).toBe(designs)
      yield* writer.released
    }))

  it.scoped("sqlite: a writer that keeps the file past the busy timeout fails the sync MirrorDatabaseError locked, never a defect", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "mirror.db")
      const sql = DesignMirror.layerSqlite({ url: `file:${file}`, busyTimeoutMillis: 50 })
      const context = yield* Layer.build(mirrorOver(sql))
      const other = yield* holder(file, "write")
      const error = yield* Effect.flip(Effect.provide(syncAll, context))
      expect(error).toMatchObject({ _tag: "MirrorDatabaseError", locked: true })
      expect(error.message).toBe(
        "the mirror's database failed: starting the run: the mirror file is locked by another process"
      )
      yield* other.kill
      expect((yield* Effect.provide(syncAll, context)).inserted).toBe(designs)
      // Committed: another process sees the rows, and the file's write lock is free.
      expect(yield* seenByAnother(file)).toBe(`${designs} writable`)
    }))

  it.scoped("sqlite: a busy timeout that is not a whole number of milliseconds fails the layer, naming it", () =>
    Effect.gen(function*() {
      const url = `file:${path.join(yield* tempDir, "mirror.db")}`
      for (const busyTimeoutMillis of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = yield* Effect.flip(Layer.build(DesignMirror.layerSqlite({ url, busyTimeoutMillis })))
        expect(error).toMatchObject({ _tag: "MirrorDatabaseError" })
        expect(error.message).toContain(
          `busyTimeoutMillis must be a whole number of milliseconds, got ${busyTimeoutMillis}`
        )
      }
      // Refused before the file is opened: nothing is made.
      expect(fs.existsSync(new URL(url))).toBe(false)
    }))

  it.scoped("sqlite: a write retried after the file was locked is committed", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "mirror.db")
      const sql = DesignMirror.layerSqlite({ url: `file:${file}`, busyTimeoutMillis: 50 })
      const context = yield* Layer.build(mirrorOver(sql))
      // Let go after the first try: a retry gets the lock.
      const other = yield* holder(file, "write", 120)
      expect((yield* Effect.provide(syncAll, context)).inserted).toBe(designs)
      yield* other.released
      expect(yield* seenByAnother(file)).toBe(`${designs} writable`)
    }))

  it.scoped("sqlite: building the mirror while another process writes to its file waits the busy timeout, then fails locked", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      for (const [name, existing] of [["new.db", false], ["mirror.db", true]] as const) {
        const file = path.join(dir, name)
        // One client throughout: a build that failed locked leaves it whole.
        const sql = Layer.succeedContext(
          yield* Layer.build(DesignMirror.layerSqlite({ url: `file:${file}`, busyTimeoutMillis: 50 }))
        )
        if (existing) yield* Effect.scoped(Layer.build(mirrorOver(sql)))
        const other = yield* holder(file, "write")
        const error = yield* Effect.flip(Effect.scoped(Layer.build(mirrorOver(sql))))
        expect(error).toMatchObject({ _tag: "MirrorDatabaseError", locked: true })
        expect(error.message).toMatch(/: the mirror file is locked by another process$/)
        yield* other.kill
        expect((yield* Effect.scoped(Effect.provide(syncAll, mirrorOver(sql)))).inserted).toBe(designs)
        expect(yield* seenByAnother(file)).toBe(`${designs} writable`)
      }
    }))

  const sqlFor = (engine: Engine) =>
    engine === "sqlite"
      ? Effect.map(tempDir, (dir) => DesignMirror.layerSqlite({ url: `file:${path.join(dir, "mirror.db")}` }))
      : Effect.map(pgDatabase, (url) => DesignMirror.layerPostgres({ url }))

  for (const engine of ["sqlite", "postgres"] as const) {
    it.scoped(`${engine}: a second sync while one runs says another sync is running; the lock goes with the run`, () =>
      Effect.gen(function*() {
        const entered = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        // The first run waits at its first page until the gate opens.
        const held = (client: DesignSearchClient.Service): DesignSearchClient.Service => ({
          ...client,
          advancedDesigns: (request, options) =>
            Stream.unwrap(
              Effect.as(
                Effect.zipRight(Deferred.succeed(entered, undefined), Deferred.await(gate)),
                client.advancedDesigns(request, options)
              )
            )
        })
        const context = yield* Layer.build(mirrorOver(yield* sqlFor(engine), {}, held))
        const first = yield* Effect.fork(Effect.provide(syncAll, context))
        yield* Deferred.await(entered)
        const second = yield* Effect.flip(Effect.timeout(Effect.provide(syncAll, context), "10 seconds"))
        expect(second).toMatchObject({ _tag: "MirrorDatabaseError", locked: true })
        expect(second.message).toBe("the mirror's database failed: another sync into this mirror is running")
        yield* Deferred.succeed(gate, undefined)
        expect((yield* Fiber.join(first)).inserted).toBe(designs)
        const third = yield* Effect.provide(syncAll, context)
        expect(third).toMatchObject({ full: false, requests: 2 })
      }))

    it.scoped(`${engine}: a table of the mirror's name in the way fails the migration naming it, and leaves nothing behind`, () =>
      Effect.gen(function*() {
        // On PostgreSQL the mirror's own schema is never in the way: name the application's.
        const schema = engine === "sqlite" ? undefined : "public"
        const context = yield* Layer.build(yield* sqlFor(engine))
        const app = Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`CREATE TABLE designs (id INTEGER PRIMARY KEY, name TEXT)`
        )
        yield* Effect.provide(app, context)
        const mirror = DesignMirror.layer({ schema }).pipe(
          Layer.provide(Layer.succeedContext(context)),
          Layer.provide(clientLayer())
        )
        const built = yield* Effect.exit(Effect.scoped(Layer.build(mirror)))
        expect(built).toMatchObject({
          _tag: "Failure",
          cause: { _tag: "Fail", error: { _tag: "MirrorDatabaseError" } }
        })
        if (Exit.isFailure(built)) {
          expect(String(built.cause)).toMatch(/creating the mirror's tables: .*"?designs"? already exists/)
        }
        expect(yield* Effect.provide(tables(schema), context)).toEqual(["designs"])
      }))
  }

  it.scoped("postgres: the tables live in design_search beside an application's own, over its SqlClient; a schema of the mirror's own by option", () =>
    Effect.gen(function*() {
      const url = yield* pgDatabase
      const app = yield* Layer.build(PgClient.layer({ url: Redacted.make(url) }))
      const appSql = Effect.provide(SqlClient.SqlClient, app)
      const sql = yield* appSql
      yield* sql`CREATE TABLE designs (id INTEGER PRIMARY KEY, name TEXT)`
      yield* sql`INSERT INTO designs (id, name) VALUES (1, 'the application''s own')`
      const over = (options: DesignMirror.Options) => mirrorOver(Layer.succeedContext(app), options)

      expect((yield* Effect.provide(syncAll, over({}))).inserted).toBe(designs)
      expect(yield* sql`SELECT * FROM public.designs`).toEqual([{ id: 1, name: "the application's own" }])
      expect(yield* Effect.provide(tables("design_search"), app)).toEqual(mirrorTables)
      expect((yield* Effect.provide(syncAll, over({ schema: "watch" }))).inserted).toBe(designs)
      expect(yield* sql`SELECT count(*)::int AS n FROM watch.designs`).toEqual([{ n: designs }])
    }))

  it.scoped("postgres: a mirror of this release stays in its schema, public too, whatever the search_path; another schema's starts empty", () =>
    Effect.gen(function*() {
      const count = (schema: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*)::int AS n FROM ${sql(schema)}.designs`)
      const check = (sql: SqlLayer, first: string | undefined, second: string) =>
        Effect.gen(function*() {
          yield* Effect.provide(syncAll, mirrorOver(sql, { schema: first }))
          const next = yield* Effect.provide(syncAll, mirrorOver(sql, { schema: second }))
          expect(next, second).toMatchObject({ full: true, inserted: designs })
          for (const schema of [first ?? "design_search", second]) {
            expect(yield* Effect.provide(Effect.zip(tables(schema), count(schema)), sql)).toEqual([
              mirrorTables,
              [{ n: designs }]
            ])
          }
        })
      // The search_path docs/mirror.md suggests to analysts: the default mirror's schema first.
      const url = yield* pgDatabase
      yield* check(
        DesignMirror.layerPostgres({ url: `${url}?options=-c%20search_path%3Ddesign_search%2Cpublic` }),
        undefined,
        "team_b"
      )
      // A mirror built in public, then one in another schema, then the default.
      const other = DesignMirror.layerPostgres({ url: yield* pgDatabase })
      yield* check(other, "public", "team_b")
      yield* check(other, "public", "design_search")
    }))

  it.scoped("postgres: a role that may not make schemas syncs into one made for it", () =>
    Effect.gen(function*() {
      const url = yield* pgDatabase
      const name = new URL(url).pathname.slice(1)
      yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.all([
            sql`CREATE ROLE ${sql(`${name}_user`)} LOGIN`,
            sql`REVOKE CREATE ON DATABASE ${sql(name)} FROM PUBLIC`,
            sql`CREATE SCHEMA design_search AUTHORIZATION ${sql(`${name}_user`)}`
          ])),
        DesignMirror.layerPostgres({ url })
      )
      const limited = url.replace("postgres@", `${name}_user@`)
      expect((yield* Effect.provide(syncAll, mirrorOver(DesignMirror.layerPostgres({ url: limited })))).inserted)
        .toBe(designs)
    }))

  it.scoped("postgres: mirrors built at once on a fresh database all migrate it, once", () =>
    Effect.gen(function*() {
      const url = yield* pgDatabase
      const mirror = mirrorOver(DesignMirror.layerPostgres({ url }))
      yield* Effect.all(Array.from({ length: 4 }, () => Effect.scoped(Layer.build(mirror))), {
        concurrency: "unbounded"
      })
      const migrations = yield* Effect.provide(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`SELECT migration_id FROM design_search.design_mirror_migrations`
        ),
        DesignMirror.layerPostgres({ url })
      )
      expect(migrations).toEqual([{ migration_id: 1 }, { migration_id: 2 }, { migration_id: 3 }])
    }))

  const cliMirror = (engine: Engine) =>
    engine === "sqlite"
      ? Effect.gen(function*() {
        const file = path.join(yield* tempDir, "mirror.db")
        // The run's state, written once the file is in WAL mode, is in its write-ahead log.
        return { db: file, running: waitForFile(`${file}-wal`, (content) => content.includes(`"kind":"advanced"`)) }
      })
      : Effect.gen(function*() {
        const url = yield* pgDatabase
        const advisory = Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`
        )
        const running = advisory.pipe(
          Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (rows) => rows[0]?.n === 1 }),
          Effect.provide(DesignMirror.layerPostgres({ url })),
          Effect.timeout("20 seconds")
        )
        return { db: url, running }
      })

  for (const engine of ["sqlite", "postgres"] as const) {
    it.scoped(`${engine} CLI: while a sync runs another says so in two lines; killed, the first leaves the lock to the next`, () =>
      Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 400 })
        const env = envFor(served)
        const { db, running } = yield* cliMirror(engine)
        // Every page is held: the run has started and holds the lock, waiting for its first page.
        yield* served.control.injectFault({ target: "page", status: 503, count: 1_000_000, delayMs: 60_000 })
        const first = yield* start(["sync", "--owner", "ltd", "--db", db, "--concurrency", "1"], env)
        yield* running
        const second = yield* run(["sync", "--owner", "ltd", "--db", db], env)
        expect(second.code, second.stderr).toBe(1)
        expect(second.stderr.trim().split("\n")).toEqual([
          expect.stringMatching(/^stopped: 0 designs committed to .*, run the same command again to go on$/),
          "design-search: the mirror's database failed: another sync into this mirror is running"
        ])
        yield* first.kill("SIGKILL")
        yield* first.exit()
        yield* served.control.reset
        const third = yield* run(["sync", "--owner", "ltd", "--db", db], env)
        expect(third.code, third.stderr).toBe(0)
        expect(third.stderr).toMatch(/^synced \d+ designs of owner "ltd"/)
      }))
  }

  it.scoped("CLI: a failure of the mirror's database is one line, without a driver's warnings, and advice only where it helps", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 40 })
      const env = envFor(served)
      const tls = yield* run(["sync", "chair", "--db", `${yield* pgDatabase}?sslmode=require`], env)
      expect(tls.code, tls.stderr).toBe(1)
      expect(tls.stderr).toBe(
        "design-search: the mirror's database failed: connecting to PostgreSQL: The server does not support SSL connections\n"
      )
      // Every command that opens a database, `changes` too.
      const read = yield* run(["changes", "--db", `${yield* pgDatabase}?sslmode=require`], env)
      expect(read.code, read.stderr).toBe(1)
      expect(read.stderr).toMatch(/^design-search: [^\n]*The server does not support SSL connections\n$/)

      // A mirror file that refuses writes, as a read-only one does (tests may run as root, whom modes do not stop).
      const file = path.join(yield* tempDir, "mirror.db")
      expect((yield* run(["sync", "chair", "--db", file], env)).code).toBe(0)
      yield* Effect.provide(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql`CREATE TRIGGER refuse BEFORE UPDATE ON design_sync_state BEGIN SELECT RAISE(ABORT, 'read only'); END`
        ),
        DesignMirror.layerSqlite({ url: `file:${file}` })
      )
      const refused = yield* run(["sync", "chair", "--db", file], env)
      expect(refused.code, refused.stderr).toBe(1)
      expect(refused.stderr).toBe("design-search: the mirror's database failed: starting the run: read only\n")

      // A lock file beside the mirror that cannot be made (a directory in its place, as root is not stopped
      // by a read-only folder) is named.
      const fresh = path.join(path.dirname(file), "fresh.db")
      fs.copyFileSync(file, fresh)
      fs.mkdirSync(`${fresh}-lock`)
      const unlockable = yield* run(["sync", "chair", "--db", fresh], env)
      expect(unlockable.code, unlockable.stderr).toBe(1)
      expect(unlockable.stderr).toMatch(
        new RegExp(`^design-search: the mirror's database failed: locking the mirror with ${fresh}-lock: [^\\n]+\\n$`)
      )
    }))
})
