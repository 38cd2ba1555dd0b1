/**
 * `design-search changes`: its command line (`--since`, `--kind`, refused before anything opens),
 * its lines for people, and the built command on mirrors of both engines that a sync saw change:
 * the README's sample output, `--since`, `--kind`, `--json`, and the design watch's cron line of
 * docs/cli.md. The CLI is Effect 3's only.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer } from "@effect/vitest"
import { DateTime, Effect, Either, Layer, Option, TestClock } from "effect"
import { execFile, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { plan } from "../src/cli/Cli.js"
import { check, split } from "../src/cli/CommandLine.js"
import { changeLine } from "../src/cli/handlers/changes.js"
import * as Inputs from "../src/cli/Inputs.js"
import * as DesignMirror from "../src/DesignMirror.js"
import { Sandbox } from "../src/index.js"
import { cliPath, freshFolder, run } from "./support/cli.effect3.js"
import { clientLayer } from "./support/layers.js"
import { databaseUrl, postgresAt } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

const root = path.resolve(path.dirname(cliPath), "../..")
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
const cliDoc = fs.readFileSync(path.join(root, "docs/cli.md"), "utf8")

/** The input of `changes` on `args`, or its usage error. */
const changesOf = (args: ReadonlyArray<string>) => check(Inputs.changes, split(args, new Set(["db", "since", "kind"])))

describe("design-search changes, its command line", () => {
  const now = DateTime.unsafeMake("2026-11-25T23:10:00.000Z")
  const sinceOf = (value: string) =>
    Either.map(
      changesOf(["--db", "x.db", "--since", value]),
      (input) => Option.map(input.since, (at) => DateTime.formatIso(at(now)))
    )

  it("--since takes a day, an instant, today or yesterday (UTC days), as the instant it names", () => {
    expect(sinceOf("2026-11-01")).toEqual(Either.right(Option.some("2026-11-01T00:00:00.000Z")))
    expect(sinceOf("2026-11-24T06:30:00Z")).toEqual(Either.right(Option.some("2026-11-24T06:30:00.000Z")))
    expect(sinceOf("today")).toEqual(Either.right(Option.some("2026-11-25T00:00:00.000Z")))
    expect(sinceOf("yesterday")).toEqual(Either.right(Option.some("2026-11-24T00:00:00.000Z")))
    expect(Either.getOrThrow(changesOf(["--db", "x.db"])).since).toEqual(Option.none())
  })

  it("a bad --since or --kind, or no --db, is one usage line", () => {
    const misuse = (args: ReadonlyArray<string>) =>
      Either.getLeft(plan(["changes", ...args], "0")).pipe(Option.map((e) => e.detail))
    const usage = (line: string) => Option.some(`${line}. See \`design-search changes --help\``)
    const since = "`--since` takes a date YYYY-MM-DD, an ISO timestamp, today or yesterday; got"
    expect(misuse(["--db", "x.db", "--since", "2026-02-30"])).toEqual(usage("`--since`: 2026-02-30 is no such day"))
    // A timestamp on a day that is none is not read as a day of the next month.
    expect(misuse(["--db", "x.db", "--since", "2026-02-30T06:00:00Z"])).toEqual(
      usage("`--since`: 2026-02-30 is no such day")
    )
    expect(misuse(["--db", "x.db", "--since", "last week"])).toEqual(usage(`${since} \`last week\``))
    const kinds = "new, changed, no_longer_matching, not_found, matching_again"
    expect(misuse(["--db", "x.db", "--kind", "removed"])).toEqual(
      usage(`\`--kind\` takes one of ${kinds}; got \`removed\``)
    )
    expect(misuse(["--since", "today"])).toEqual(usage("`--db PATH_OR_URL` is needed"))
    expect(misuse(["--db", "x.db", "--kind", "changed", "--since", "today", "--json"])).toEqual(Option.none())
  })

  it.scopedLive("a bad --since or --kind is refused before the mirror's file is made", () =>
    Effect.gen(function*() {
      const db = path.join(yield* freshFolder, "mirror.db")
      for (const args of [["--since", "soon"], ["--kind", "gone"]]) {
        const outcome = yield* run(["changes", "--db", db, ...args])
        expect(outcome.code).toBe(2)
        expect(outcome.stdout).toBe("")
        expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1)
        expect(fs.existsSync(db)).toBe(false)
      }
    }))

  it("a change is one line: the day, the number, and what changed, lists by their names, long values cut", () => {
    const at = "2026-11-25T23:10:00.000Z"
    const line = (kind: DesignMirror.ChangeKind, fields: DesignMirror.Change["fields"] = {}) =>
      changeLine({ number: "201912345", syncedAt: at, kind, fields })
    expect(line("changed", { status: { old: "FILED", new: "REGISTERED" } })).toBe(
      "2026-11-25  201912345  status FILED → REGISTERED"
    )
    expect(line("changed", {
      owners: { old: [{ name: "Wattle Furniture Pty Ltd" }], new: [{ name: "A Ltd" }, { name: "B Inc." }] },
      classifications: { old: [{ code: "06-01", title: "Seats" }], new: [] },
      productNames: { old: ["chair"], new: ["chair", "stool"] },
      expiryDate: { old: undefined, new: "2029-03-14" },
      statementOfNewness: { old: "x".repeat(80), new: "short" }
    })).toBe(
      "2026-11-25  201912345  owners Wattle Furniture Pty Ltd → A Ltd, B Inc.; classifications 06-01 → -; " +
        `productNames chair → chair, stool; expiryDate - → 2029-03-14; statementOfNewness ${"x".repeat(59)}… → short`
    )
    expect(line("changed", { title: { old: "Chair\r\n2026-11-25  1  new", new: "Chair" } })).toBe(
      "2026-11-25  201912345  title Chair\\u000d\\u000a2026-11-25  1  new → Chair"
    )
    expect([line("new"), line("no_longer_matching"), line("not_found"), line("matching_again")]).toEqual([
      "2026-11-25  201912345  new",
      "2026-11-25  201912345  no longer matching",
      "2026-11-25  201912345  not found",
      "2026-11-25  201912345  matching again"
    ])
  })
})

/** The README's sample output of `design-search changes`. */
const readmeSample = /`design-search changes --db designs.db`[^`]*:\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""

const class20 = { rows: [{ op: "AND" as const, query: { classification: "20" } }] }
const dec1 = Date.UTC(2026, 11, 1, 6)

/**
 * The README's design watch on the sandbox: a mirror of class 20 synced on 1 December, then again
 * on 2 December after the register was advanced 60 days.
 */
const watched = (sql: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function*() {
    const mirror = yield* DesignMirror.DesignMirror
    yield* TestClock.setTime(dec1)
    const { matching } = yield* mirror.sync(class20)
    yield* TestClock.setTime(dec1 + 86_400_000)
    yield* Effect.flatMap(Sandbox.SandboxControl, (control) => control.advance("60 days"))
    yield* mirror.sync(class20)
    return matching
  }).pipe(Effect.provide(DesignMirror.layer().pipe(Layer.provideMerge(Layer.merge(sql, clientLayer())))))

const inFolder = Effect.map(freshFolder, (dir) => path.join(dir, "designs.db"))

layer(Pg.layer, { timeout: 120_000 })("design-search changes, on a mirror a sync saw change", (it) => {
  for (const engine of ["sqlite", "postgres"] as const) {
    it.scoped(
      `${engine}: the last sync's changes as the README shows them; --since, --kind, --json`,
      () =>
        Effect.gen(function*() {
          const db = engine === "sqlite" ? yield* inFolder : yield* databaseUrl
          const sql = engine === "sqlite" ? DesignMirror.layerSqlite({ url: `file:${db}` }) : postgresAt(db)
          const designs = yield* watched(sql)
          const cli = (args: ReadonlyArray<string>) =>
            Effect.flatMap(run(["changes", "--db", db, ...args]), (o) => {
              expect({ code: o.code, stderr: o.stderr }).toEqual({ code: 0, stderr: "" })
              return Effect.succeed(o.stdout)
            })
          expect(readmeSample.split("\n").length).toBeGreaterThan(2)
          expect(yield* cli([])).toBe(readmeSample)
          const all = (yield* cli(["--since", "2026-12-01"])).trimEnd().split("\n")
          expect(all.slice(0, 2).join("\n") + "\n").toBe(readmeSample)
          expect(all.slice(2)).toHaveLength(designs)
          expect(all.slice(2).every((l) => /^2026-12-01 {2}\d{9} {2}new$/.test(l))).toBe(true)
          expect(yield* cli(["--since", "2026-12-01", "--kind", "new"])).toMatch(/^(2026-12-0[12] {2}\d{9} {2}new\n)+$/)
          // Nothing to show is one line on stderr, for people; nothing at all with --json.
          const quiet = (args: ReadonlyArray<string>) =>
            Effect.map(run(["changes", "--db", db, ...args]), (o) => ({ code: o.code, out: o.stdout, err: o.stderr }))
          const after = "2026-12-02T06:00:00.001Z"
          expect(yield* quiet(["--since", after])).toEqual({ code: 0, out: "", err: `no changes since ${after}\n` })
          expect(yield* quiet(["--since", after, "--kind", "new"])).toEqual({
            code: 0,
            out: "",
            err: `no changes of kind new since ${after}\n`
          })
          expect(yield* quiet(["--kind", "not_found", "--since", after, "--json"])).toEqual({
            code: 0,
            out: "",
            err: ""
          })
          const lines = (yield* cli(["--kind", "changed", "--json"])).trimEnd().split("\n")
          // Each object's keys in the order the docs show them.
          expect(cliDoc).toContain(
            "`--json` prints one object a change, `{\"number\", \"syncedAt\", \"kind\", \"fields\"}`"
          )
          for (const line of lines) {
            expect(Object.keys(JSON.parse(line))).toEqual(["number", "syncedAt", "kind", "fields"])
          }
          const json = lines.map((l) => JSON.parse(l))
          expect(json).toContainEqual(expect.objectContaining({
            number: "200310013",
            syncedAt: "2026-12-02T06:00:00.000Z",
            kind: "changed",
            fields: expect.objectContaining({ status: { old: "FILED", new: "REGISTERED" } })
          }))
          expect(json).toHaveLength(2)
        }),
      120_000
    )
  }
})

layer(Pg.layer, { timeout: 120_000 })("design-search changes, on a database that is not a mirror", (it) => {
  const refused = (db: string) =>
    Effect.map(run(["changes", "--db", db]), (o) => ({ code: o.code, stdout: o.stdout, stderr: o.stderr.trimEnd() }))
  const notAMirror = (detail: string) => ({
    code: 1,
    stdout: "",
    stderr: `design-search: the mirror's database failed: not a mirror: ${detail}`
  })

  it.scoped("an absent SQLite file, or one without the mirror's tables, is one line, and stays as it was", () =>
    Effect.gen(function*() {
      const db = yield* inFolder
      expect(yield* refused(db)).toEqual(notAMirror(`${db} does not exist`))
      expect(fs.existsSync(db)).toBe(false)
      const tables = Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => Effect.zip(sql`SELECT name FROM sqlite_master`, sql`PRAGMA journal_mode`)
      ).pipe(Effect.provide(DesignMirror.layerSqlite({ url: `file:${db}` })))
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE designs (x TEXT)`).pipe(
        Effect.provide(DesignMirror.layerSqlite({ url: `file:${db}` }))
      )
      expect(yield* refused(db)).toEqual(notAMirror("no design_changes table"))
      expect(yield* tables).toEqual([[{ name: "designs" }], [{ journal_mode: "delete" }]])
    }))

  it.scoped("a PostgreSQL database without the mirror's tables is one line, and is left without them", () =>
    Effect.gen(function*() {
      const db = yield* databaseUrl
      expect(yield* refused(db)).toEqual(notAMirror("no design_changes table"))
      const schemas = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`SELECT nspname FROM pg_namespace WHERE nspname = 'design_search'`
      ).pipe(Effect.provide(DesignMirror.layerPostgres({ url: db })))
      expect(schemas).toEqual([])
    }))
})

/**
 * Another user for the CLI when the tests run as root, whom file modes do not stop (none otherwise:
 * the modes stop the test's own user), with a Node.js that user can run: one under root's home
 * (CI's second Node.js line) cannot, the system's can.
 */
const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
const runs = (node: string) => spawnSync(node, [cliPath, "--version"], { ...user, stdio: "ignore" }).status === 0
const another = { ...user, node: [process.execPath, "/usr/bin/node", "/usr/local/bin/node"].find(runs) }

describe("design-search on a mirror its user may not write", () => {
  it.scopedLive(
    "changes reads a read-only file, in a read-only folder too, and writes nothing; sync says permission denied",
    () =>
      Effect.gen(function*() {
        const home = path.dirname(yield* inFolder)
        const folder = path.join(home, "shared")
        fs.mkdirSync(folder)
        const file = path.join(folder, "designs.db")
        // The embedded sandbox: one sync, then another that changes nothing.
        for (let i = 0; i < 2; i++) expect((yield* run(["sync", "chair", "--db", file])).code).toBe(0)
        const quiet = yield* run(["changes", "--db", file])
        expect({ code: quiet.code, stdout: quiet.stdout, stderr: quiet.stderr }).toEqual({
          code: 0,
          stdout: "",
          stderr: "the last sync changed nothing\n"
        })
        const all = (yield* run(["changes", "--db", file, "--since", "2000-01-01"])).stdout
        expect(all).toMatch(/^(\d{4}-\d{2}-\d{2} {2}\d{9} {2}new\n)+$/)
        const bytes = fs.readFileSync(file)
        fs.chmodSync(home, 0o755)
        fs.chmodSync(file, 0o444)
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.chmodSync(folder, 0o755)))
        const asAnother = (args: ReadonlyArray<string>) =>
          Effect.map(run(args, {}, undefined, another), (o) => ({ code: o.code, stdout: o.stdout, stderr: o.stderr }))
        const denied = (detail: string) => ({ code: 2, stdout: "", stderr: `design-search: ${detail}\n` })
        // The folder read-only first (SQLite can make no file beside the mirror), then writable.
        for (const mode of [0o555, 0o777]) {
          fs.chmodSync(folder, mode)
          expect(yield* asAnother(["changes", "--db", file, "--since", "2000-01-01"])).toEqual({
            code: 0,
            stdout: all,
            stderr: ""
          })
          expect(yield* asAnother(["sync", "chair", "--db", file])).toEqual(
            denied(`${file}: permission denied: the file is read-only to this user`)
          )
          expect(fs.readFileSync(file).equals(bytes)).toBe(true)
        }
        fs.chmodSync(folder, 0o555)
        const fresh = path.join(folder, "fresh.db")
        expect(yield* asAnother(["sync", "chair", "--db", fresh])).toEqual(
          denied(
            `${fresh}: permission denied: the folder ${folder} is read-only to this user, and the mirror writes its files there`
          )
        )
        expect(fs.existsSync(fresh)).toBe(false)
      }),
    60_000
  )

  it.scoped("readOnly: a SQLite layer on a local file reads it and refuses every write", () =>
    Effect.gen(function*() {
      const file = yield* inFolder
      const write = (readOnly: boolean, table: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE ${sql(table)} (x TEXT)`).pipe(
          Effect.provide(DesignMirror.layerSqlite({ url: `file:${file}`, readOnly }))
        )
      yield* write(false, "made")
      const error = yield* Effect.flip(write(true, "refused"))
      expect(String(error.cause)).toMatch(/readonly database/)
      const names = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT name FROM sqlite_master`).pipe(
        Effect.provide(DesignMirror.layerSqlite({ url: `file:${file}`, readOnly: true }))
      )
      expect(names).toEqual([{ name: "made" }])
    }))
})

describe("the design watch", () => {
  it.scopedLive("the design watch's cron line of docs/cli.md runs: a sync, then the designs it saw since yesterday", () =>
    Effect.gen(function*() {
      const line = /^```crontab\n(?:#.*\n)*(.*)\n```$/m.exec(cliDoc)?.[1] ?? ""
      const command = line.split(/\s+/).slice(5).join(" ")
      expect(command).toMatch(/^design-search sync .* && design-search changes .*--since yesterday/)
      const home = path.dirname(yield* inFolder)
      fs.mkdirSync(path.join(home, "bin"))
      const script = `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`
      fs.writeFileSync(path.join(home, "bin", "design-search"), script, { mode: 0o755 })
      const PATH = `${path.join(home, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`
      const outcome = yield* Effect.async<{ code: number; stdout: string }>((resume) =>
        void execFile(
          "/bin/sh",
          ["-c", command],
          { cwd: home, env: { PATH, HOME: home, XDG_CACHE_HOME: home } },
          (e, stdout) =>
            resume(Effect.succeed({ code: e === null ? 0 : typeof e.code === "number" ? e.code : -1, stdout }))
        )
      )
      expect(outcome.code).toBe(0)
      const today = new Date().toISOString().slice(0, 10)
      expect(outcome.stdout).toMatch(new RegExp(`^(${today}  \\d{9}  new\\n)+$`))
      expect(outcome.stdout).toContain(`  ${Sandbox.fixedNumbers.chair}  new\n`)
    }))
})
