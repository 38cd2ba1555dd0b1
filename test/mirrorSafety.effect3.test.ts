/**
 * The mirror sharing its database, where only Effect 3 goes (see mirrorSafety.test.ts for the rest):
 * a SQLite file with a reader or a writer in another process, its busy timeout, a libSQL URL that is
 * none, and the built CLI (`npm run build` first): a process killed while it holds the sync lock, and
 * what it says when the database fails.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Layer, Schedule } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as DesignMirror from "../src/DesignMirror.js"
import { Sandbox } from "../src/index.js"
import { envFor, run, start, waitForFile } from "./support/cli.effect3.js"
import { databaseUrl, designs, type Engine, mirrorOver, syncAll, tempDir } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

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

  it.scoped("sqlite: a libSQL URL that is none, or a database that cannot be opened, is a MirrorDatabaseError", () =>
    Effect.gen(function*() {
      for (const url of ["mirror.db", "file:/proc/no/such/dir/mirror.db"]) {
        expect((yield* Effect.flip(Layer.build(DesignMirror.layerSqlite({ url }))))._tag, url).toBe(
          "MirrorDatabaseError"
        )
      }
      // SQLite's bare code 14, told in words.
      const missing = yield* Effect.flip(Layer.build(DesignMirror.layerSqlite({ url: "file:/proc/no/such/dir/m.db" })))
      expect(missing.message).toBe(
        "the mirror's database failed: opening the SQLite database: cannot open the file: permission denied, " +
          "or it or its folder is missing"
      )
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

  const cliMirror = (engine: Engine) =>
    engine === "sqlite"
      ? Effect.gen(function*() {
        const file = path.join(yield* tempDir, "mirror.db")
        // The run's state, written once the file is in WAL mode, is in its write-ahead log.
        return { db: file, running: waitForFile(`${file}-wal`, (content) => content.includes(`"kind":"advanced"`)) }
      })
      : Effect.gen(function*() {
        const url = yield* databaseUrl
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
    it.scoped(
      `${engine} CLI: while a sync runs another says so in two lines; killed, the first leaves the lock to the next`,
      () =>
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
        }),
      60_000
    )
  }

  it.scoped(
    "CLI: a failure of the mirror's database is one line, without a driver's warnings, and advice only where it helps",
    () =>
      Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 40 })
        const env = envFor(served)
        const tls = yield* run(["sync", "chair", "--db", `${yield* databaseUrl}?sslmode=require`], env)
        expect(tls.code, tls.stderr).toBe(1)
        expect(tls.stderr).toBe(
          "design-search: the mirror's database failed: connecting to PostgreSQL: The server does not support SSL connections\n"
        )
        // Every command that opens a database, `changes` too.
        const read = yield* run(["changes", "--db", `${yield* databaseUrl}?sslmode=require`], env)
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
      }),
    60_000
  )
})
