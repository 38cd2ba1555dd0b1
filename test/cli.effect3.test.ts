/**
 * The built `design-search` CLI (`dist/cli/main.js`), run as a child process against a sandbox
 * served by the test on an ephemeral port: what each command prints, what export writes (resumed
 * and interrupted), that the token stays secret, and the exit code and message of every kind of
 * failure. `npm test` builds before it runs the tests.
 */
import { FileSystem, HttpServerError } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { SystemError } from "@effect/platform/Error"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Clock, ConfigError, ConfigProvider, Duration, Effect, Either, Fiber, Layer, Option, Schema } from "effect"
import { TestClock } from "effect"
import type { Scope } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { plan } from "../src/cli/Cli.js"
import type { Environment } from "../src/cli/Environment.js"
import * as ExportFile from "../src/cli/ExportFile.js"
import { exitCode, FileError, render, UsageError } from "../src/cli/failure.js"
import { budgetFor } from "../src/cli/Pacing.js"
import * as DesignMirror from "../src/DesignMirror.js"
import { ApiError, Designs, Sandbox } from "../src/index.js"
import {
  cliPath,
  completeLines,
  envFor,
  jwtPattern,
  readExport,
  run,
  start,
  waitForFile
} from "./support/cli.effect3.js"
import type { Outcome } from "./support/cli.effect3.js"

const { chair } = Sandbox.fixedNumbers
const secret = "cli-test-secret-5f1c"

/** A sandbox served for one test, with a secret we can look for in the output. */
const serve = (options: Sandbox.ServeOptions = {}) => Sandbox.serve({ port: 0, clientSecret: secret, ...options })

/** A fresh directory for one test's files, removed afterwards. */
const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "design-search-cli-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "")

/** A failure is one to three short lines, never a stack. */
const expectCleanFailure = (outcome: Outcome, code: number) => {
  expect(outcome.code, outcome.stderr).toBe(code)
  expect(outcome.stdout).toBe("")
  expect(lines(outcome.stderr).length).toBeGreaterThanOrEqual(1)
  expect(lines(outcome.stderr).length).toBeLessThanOrEqual(3)
  expect(outcome.stderr).not.toMatch(/^\s+at /m)
  expect(outcome.stderr).not.toContain(secret)
}

const SearchJson = Schema.Struct({
  count: Schema.Number,
  designNumbers: Schema.Array(Schema.String),
  messages: Schema.Array(Schema.Unknown)
})
const decodeSearchJson = (stdout: string) => Schema.decodeUnknownSync(Schema.parseJson(SearchJson))(stdout.trim())

describe("design-search search and get", () => {
  it.scopedLive("search prints the count and a table of hits; server messages go to stderr", () =>
    Effect.gen(function*() {
      const served = yield* serve({ resultCap: 2 })
      const outcome = yield* run(["search", "chair", "--sort", "-number"], envFor(served))
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stdout).toMatch(/^\d+ designs match "chair"$/m)
      expect(outcome.stdout).toMatch(new RegExp(`^${chair}\\s+REGISTERED\\s+Chair$`, "m"))
      expect(outcome.stdout).toMatch(/^NUMBER\s+STATUS\s+TITLE$/m)
      expect(outcome.stdout).toContain("the service listed 2 of")
      expect(outcome.stderr).toMatch(/^warning: RESULT_LIMIT: /m)
    }))

  it.scopedLive("search --json prints exactly one JSON object and fetches no details", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(
        ["search", "chair", "--json", "--status", "REGISTERED", "--class", "06", "--changed-since", "2019-01-01"],
        envFor(served)
      )
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(lines(outcome.stdout)).toHaveLength(1)
      const result = decodeSearchJson(outcome.stdout)
      expect(Object.keys(JSON.parse(outcome.stdout) as object).sort()).toEqual(["count", "designNumbers", "messages"])
      expect(result.designNumbers).toEqual([chair])
      expect(result.count).toBe(1)
      expect(outcome.stderr).toBe("")
      expect((yield* served.control.stats).requests).toEqual({ token: 1, search: 1, design: 0, advanced: 0, page: 0 })
    }))

  it.scopedLive("get prints the whole design for people, or encoded with the Design schema with --json", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const [text, json] = yield* Effect.all([
        run(["get", chair], envFor(served)),
        run(["get", chair, "--json"], envFor(served))
      ], { concurrency: 2 })
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toMatch(new RegExp(`^Design ${chair} — Chair$`, "m"))
      expect(text.stdout).toMatch(/^\s+Status:\s+REGISTERED$/m)
      expect(text.stdout).toMatch(/^\s+Filed:\s+2019-03-14$/m)
      expect(text.stdout).toMatch(/^\s+Classes:\s+06-01 /m)
      expect(json.code, json.stderr).toBe(0)
      expect(lines(json.stdout)).toHaveLength(1)
      const raw = JSON.parse(json.stdout) as Record<string, unknown>
      expect(raw).toMatchObject({ number: chair, title: "Chair", status: "REGISTERED", filingDate: "2019-03-14" })
      const design = Schema.decodeUnknownSync(Designs.Design)(raw)
      expect(design.owners?.[0]?.name).toBe("Wattle Furniture Pty Ltd")
    }))

  it.scopedLive("without credentials, or with a global --env sandbox, search uses the embedded sandbox and says so in one stderr line", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const [bare, forced] = yield* Effect.all([
        run(["search", "chair"], {}),
        run(["--env", "sandbox", "search", "chair"], envFor(served))
      ], { concurrency: 2 })
      for (const outcome of [bare, forced]) {
        expect(outcome.code, outcome.stderr).toBe(0)
        expect(outcome.stdout).toMatch(new RegExp(`^${chair}\\s+REGISTERED\\s+Chair$`, "m"))
        expect(lines(outcome.stderr)).toHaveLength(1)
        expect(outcome.stderr).toContain("embedded sandbox")
      }
      expect(bare.stderr).toContain("no IPAUSTRALIA_* variable is set")
      expect(forced.stderr).toContain("--env sandbox")
      // The served sandbox was not asked.
      expect((yield* served.control.stats).requests).toEqual({ token: 0, search: 0, design: 0, advanced: 0, page: 0 })
    }))
})

describe("design-search export", () => {
  it.scopedLive("writes every hit as JSONL, repairs a cut-off last line, and resumes without duplicates", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const file = path.join(yield* tempDir, "designs.jsonl")
      const env = envFor(served)
      const all = decodeSearchJson((yield* run(["search", "ltd", "--json"], env)).stdout)
      expect(all.count).toBeGreaterThan(50)

      // A first, smaller export: only the registered designs.
      const first = yield* run(["export", "ltd", "--status", "REGISTERED", "--out", file], env)
      expect(first.code, first.stderr).toBe(0)
      const registered = Either.getOrThrow(readExport(file))
      expect(registered.length).toBeGreaterThan(0)
      expect(registered.length).toBeLessThan(all.count)
      expect(registered.every((d) => d.status === "REGISTERED" && d.title !== undefined)).toBe(true)
      expect(lines(first.stderr)).toHaveLength(1)
      expect(first.stderr).toMatch(
        new RegExp(
          `^exported ${registered.length} designs to .+ in [\\d.]+s \\(0 already there; ${registered.length} listed; ${
            registered.length + 1
          } API requests\\)$`,
          "m"
        )
      )

      // An earlier run that died mid-line.
      fs.appendFileSync(file, "{\"number\":\"2000100")
      const before = (yield* served.control.stats).requests.design
      const second = yield* run(["export", "ltd", "--out", file, "--concurrency", "4"], env)
      expect(second.code, second.stderr).toBe(0)
      expect(second.stderr).toContain("dropped an incomplete last line")
      expect(second.stderr).toContain(`exported ${all.count - registered.length} designs`)
      expect(second.stderr).toContain(`(${registered.length} already there`)
      const designs = Either.getOrThrow(readExport(file))
      const numbers = designs.map((d) => d.number)
      expect(new Set(numbers).size).toBe(numbers.length)
      expect([...numbers].sort()).toEqual([...all.designNumbers].sort())
      // Only the missing designs were fetched.
      expect((yield* served.control.stats).requests.design - before).toBe(all.count - registered.length)

      const third = yield* run(["export", "ltd", "--out", file], env)
      expect(third.code, third.stderr).toBe(0)
      expect(third.stderr).toContain(`nothing to export: all ${all.count} listed designs are already in ${file}`)
      expect(Either.getOrThrow(readExport(file))).toHaveLength(all.count)
    }))

  it.scopedLive(
    "interrupted, it leaves valid JSONL holding every record fetched, and a rerun completes it",
    () =>
      Effect.gen(function*() {
        const served = yield* serve({ designs: 1500 })
        const file = path.join(yield* tempDir, "interrupted.jsonl")
        const env = envFor(served)
        const child = yield* start(["export", "ltd", "--out", file, "--concurrency", "2"], env)
        yield* waitForFile(file, (content) => completeLines(content).length >= 20)
        // Hold every later design request, so the export is surely still running when interrupted.
        yield* served.control.injectFault({ target: "design", status: 503, count: 1_000_000, delayMs: 60_000 })
        yield* child.kill("SIGINT")
        const outcome = yield* child.exit()
        expect(outcome.code, outcome.stderr).toBe(130)
        const designs = Either.getOrThrow(readExport(file))
        const summary = outcome.stderr.match(
          /^interrupted: (\d+) of (\d+) designs written to .*; it is valid JSONL, run the same command again to resume$/m
        )
        expect(summary, outcome.stderr).not.toBeNull()
        expect(Number(summary?.[1])).toBe(designs.length)
        expect(designs.length).toBeGreaterThanOrEqual(20)
        const total = Number(summary?.[2])
        expect(designs.length).toBeLessThan(total)
        expect(designs.every((d) => d.title !== undefined && d.status !== undefined && d.filingDate !== undefined))
          .toBe(true)
        expect(new Set(designs.map((d) => d.number)).size).toBe(designs.length)

        yield* served.control.reset
        const rerun = yield* run(["export", "ltd", "--out", file, "--concurrency", "8"], env, "60 seconds")
        expect(rerun.code, rerun.stderr).toBe(0)
        expect(rerun.stderr).toContain(`(${designs.length} already there`)
        const complete = Either.getOrThrow(readExport(file))
        expect(complete).toHaveLength(total)
        expect(new Set(complete.map((d) => d.number)).size).toBe(total)
      }),
    60_000
  )
})

describe("design-search by criteria", () => {
  it.scopedLive("search with criteria and no query is one advanced search; a query with criteria, or neither, is bad usage", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      const found = yield* run(["search", "--owner", "ltd", "--status", "REGISTERED", "--json"], env)
      expect(found.code, found.stderr).toBe(0)
      const result = decodeSearchJson(found.stdout)
      expect(result.count).toBeGreaterThan(0)
      expect((yield* served.control.stats).requests).toMatchObject({ advanced: 1, search: 0 })
      const table = yield* run(["search", "--owner", "ltd", "--class", "06", "--class", "07", "--limit", "2"], env)
      expect(table.code, table.stderr).toBe(0)
      expect(table.stdout).toMatch(/^\d+ designs? match owner "ltd" and class 06 or 07$/m)
      for (
        const [args, why] of [
          [["search", "chair", "--owner", "ltd"], "cannot be combined"],
          [["search"], "needs a query, or criteria"],
          [["export", "--out", "x.jsonl"], "needs a query, or criteria"]
        ] as const
      ) {
        const outcome = yield* run(args, env)
        expectCleanFailure(outcome, 2)
        expect(outcome.stderr).toContain(why)
      }
      expect((yield* served.control.stats).requests).toMatchObject({ advanced: 2, search: 0 })
      // A quick search's header lists its filters as the criteria's does.
      const quick = yield* run(
        ["search", "chair", "--status", "REGISTERED", "--class", "06", "--changed-since", "2001-01-01", "--limit", "1"],
        env
      )
      expect(quick.code, quick.stderr).toBe(0)
      expect(lines(quick.stdout)[0]).toMatch(
        /^\d+ designs? match "chair" and status REGISTERED and class 06 and changed since 2001-01-01$/
      )
    }))

  it.scopedLive("export by criteria reads pages of 100, says how many requests it made, and resumes", () =>
    Effect.gen(function*() {
      const served = yield* serve({ designs: 1500 })
      const env = envFor(served)
      const file = path.join(yield* tempDir, "owners.jsonl")
      const listed = decodeSearchJson((yield* run(["search", "--owner", "ltd", "--limit", "0", "--json"], env)).stdout)
      expect(listed.count).toBeGreaterThan(200)
      const pages = Math.ceil(listed.count / 100)
      const before = yield* served.control.stats
      const first = yield* run(["export", "--owner", "ltd", "--out", file], env)
      expect(first.code, first.stderr).toBe(0)
      expect(first.stderr).toMatch(
        new RegExp(
          `^exported ${listed.count} designs to .+ \\(0 already there; ${listed.count} listed; ${pages} API requests\\)$`,
          "m"
        )
      )
      const after = yield* served.control.stats
      expect(after.requests.page - before.requests.page).toBe(pages)
      expect(after.requests.design - before.requests.design).toBe(0)
      const designs = Either.getOrThrow(readExport(file))
      expect(designs.map((d) => d.number)).toEqual(listed.designNumbers)
      expect(designs.every((d) => d.title !== undefined && d.owners !== undefined)).toBe(true)

      const again = yield* run(["export", "--owner", "ltd", "--out", file], env)
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toContain(`exported 0 designs`)
      expect(again.stderr).toContain(`(${listed.count} already there; ${listed.count} listed; ${pages} API requests)`)
      expect(Either.getOrThrow(readExport(file))).toHaveLength(listed.count)
    }))

  it.scopedLive("a count of one is told in the singular: 1 design, 1 API request", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      const dir = yield* tempDir
      const file = path.join(dir, "one.jsonl")
      const exported = yield* run(["export", "--number", chair, "--out", file], env)
      expect(exported.code, exported.stderr).toBe(0)
      expect(exported.stderr).toMatch(/^exported 1 design to .+ \(0 already there; 1 listed; 1 API request\)$/m)
      const synced = yield* run(["sync", "--number", chair, "--db", path.join(dir, "one.db")], env)
      expect(synced.code, synced.stderr).toBe(0)
      expect(synced.stderr).toMatch(/^synced 1 design of designNumber "\d+" into /m)
    }))

  it.scopedLive("where the paged search is refused, export says so and fetches each design", () =>
    Effect.gen(function*() {
      const served = yield* serve({ designs: 300 })
      const env = envFor(served)
      const file = path.join(yield* tempDir, "fallback.jsonl")
      const listed = decodeSearchJson((yield* run(["search", "--owner", "ltd", "--limit", "0", "--json"], env)).stdout)
      yield* served.control.injectFault({ target: "page", status: 404, count: 1 })
      const outcome = yield* run(["export", "--owner", "ltd", "--out", file], env)
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stderr).toContain("warning: PAGED_SEARCH_UNAVAILABLE: the paged search was refused (HTTP 404)")
      // the refused page, the advanced search, a get per design
      expect(outcome.stderr).toContain(`; ${listed.count} listed; ${listed.count + 2} API requests)`)
      expect(Either.getOrThrow(readExport(file)).map((d) => d.number)).toEqual(listed.designNumbers)
    }))
})

describe("design-search sync", () => {
  const ownerRows = (file: string) =>
    Effect.scoped(Effect.flatMap(
      Layer.build(DesignMirror.layerSqlite({ url: `file:${file}` })),
      (context) =>
        Effect.provide(
          Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              sql<
                { number: string; record: string; state: string }
              >`SELECT number, record, state FROM designs ORDER BY number`
          ),
          context
        )
    ))

  it.scopedLive("mirrors into a SQLite file as get --json prints; a run with nothing changed makes two requests; a touched design is fetched again", () =>
    Effect.gen(function*() {
      const served = yield* serve({ designs: 400 })
      const env = envFor(served)
      const file = path.join(yield* tempDir, "mirror.db")
      const listed = decodeSearchJson((yield* run(["search", "--owner", "ltd", "--limit", "0", "--json"], env)).stdout)
      const pages = Math.ceil(listed.count / 100)
      const first = yield* run(["sync", "--owner", "ltd", "--db", file], env)
      expect(first.code, first.stderr).toBe(0)
      expect(first.stderr).toMatch(
        new RegExp(
          `^synced ${listed.count} designs of owner "ltd" into ${file} in [\\d.]+s \\(all: ${listed.count} fetched, ` +
            `${listed.count} new, 0 updated, 0 unchanged; 0 no longer matching, 0 not found; ${
              pages + 1
            } API requests; ` +
            `watermark \\d{4}-\\d\\d-\\d\\d\\)$`,
          "m"
        )
      )
      const stored = yield* ownerRows(file)
      expect(stored.map((r) => r.number)).toEqual([...listed.designNumbers].sort())
      const sample = stored[Math.floor(stored.length / 2)]!
      const got = yield* run(["get", sample.number, "--json"], env)
      expect(sample.record).toBe(got.stdout.trim())

      const second = yield* run(["sync", "--owner", "ltd", "--db", file], env)
      expect(second.stderr).toMatch(
        /\(changed since [\d-]+: 0 fetched, 0 new, 0 updated, 0 unchanged; .*; 2 API requests;/
      )

      yield* served.control.touch([sample.number])
      const third = yield* run(["sync", "--owner", "ltd", "--db", file], env)
      expect(third.stderr).toMatch(/: 1 fetched, 0 new, 1 updated, 0 unchanged; .*; 2 API requests;/)
      const touched = (yield* ownerRows(file)).find((r) => r.number === sample.number)!
      expect(touched.record).toBe((yield* run(["get", sample.number, "--json"], env)).stdout.trim())
      expect(touched.record).toContain("(amended)")
    }))

  it.scopedLive("interrupted, it leaves the database consistent (exit 130) and the same command goes on; bad --db values are one line", () =>
    Effect.gen(function*() {
      const served = yield* serve({ designs: 400 })
      const env = envFor(served)
      const dir = yield* tempDir
      const file = path.join(dir, "mirror.db")
      // Every page is held: the run has started (its state is committed) and waits for its first page.
      yield* served.control.injectFault({ target: "page", status: 503, count: 1_000_000, delayMs: 60_000 })
      const child = yield* start(["sync", "--owner", "ltd", "--db", file, "--concurrency", "1"], env)
      // Its state is in the write-ahead log of the mirror's file (WAL mode).
      yield* waitForFile(`${file}-wal`, (content) => content.includes(`"kind":"advanced"`))
      yield* child.kill("SIGINT")
      const outcome = yield* child.exit()
      expect(outcome.code, outcome.stderr).toBe(130)
      expect(outcome.stderr).toMatch(
        /^interrupted: 0 designs committed to .*mirror\.db \(\d+ API requests?\); the database is consistent, run the same command again to go on$/m
      )
      expect(yield* ownerRows(file)).toEqual([])

      yield* served.control.reset
      const rerun = yield* run(["sync", "--owner", "ltd", "--db", file], env)
      expect(rerun.code, rerun.stderr).toBe(0)
      expect(rerun.stderr).toMatch(/^synced \d+ designs .*\(all: /m)
      expect((yield* ownerRows(file)).length).toBeGreaterThan(100)

      for (
        const [db, words] of [
          ["", "--db is empty"],
          [dir, "is not a regular file"],
          [path.join(dir, "none", "m.db"), "no such directory"],
          ["mysql://user:pw@host/db", "names no database this command knows (mysql://)"]
        ] as const
      ) {
        const bad = yield* run(["sync", "--owner", "ltd", "--db", db], env)
        expectCleanFailure(bad, 2)
        expect(bad.stderr).toContain(words)
        expect(bad.stderr).not.toContain("pw@")
      }
      const unreachable = yield* run(["sync", "--owner", "ltd", "--db", "postgres://user:pw@127.0.0.1:1/db"], env)
      expectCleanFailure(unreachable, 1)
      expect(unreachable.stderr).toContain("the mirror's database failed: connecting to PostgreSQL")
      expect(unreachable.stderr).not.toContain("pw")
    }))

  it.scopedLive("file: URLs name SQLite files, relative or absolute; file: with no path is bad usage", () =>
    Effect.gen(function*() {
      const served = yield* serve({ designs: 240 })
      const env = envFor(served)
      const dir = yield* tempDir
      const relative = path.join(dir, "relative.db")
      const absolute = path.join(dir, "absolute.db")
      for (
        const [db, file] of [[`file:${path.relative(process.cwd(), relative)}`, relative], [
          `file://${absolute}`,
          absolute
        ]]
      ) {
        const outcome = yield* run(["sync", "table", "--db", db!], env)
        expect(outcome.code, outcome.stderr).toBe(0)
        expect(outcome.stderr).toMatch(/^synced \d+ designs of "table" into file:/m)
        expect((yield* ownerRows(file!)).length).toBeGreaterThan(0)
      }
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".db")).sort()).toEqual(["absolute.db", "relative.db"])
      expect(fs.existsSync(path.join(process.cwd(), "file:"))).toBe(false)
      for (const db of ["file:", "FILE:", "file://"]) {
        const bad = yield* run(["sync", "table", "--db", db], env)
        expectCleanFailure(bad, 2)
        expect(bad.stderr).toContain("names no file")
      }
    }))

  it.scopedLive("a run that gets fewer designs than the service counts says so in one line, exit 1, and keeps the watermark", () =>
    Effect.gen(function*() {
      const served = yield* serve({ designs: 240, resultCap: 2 })
      const file = path.join(yield* tempDir, "mirror.db")
      const outcome = yield* run(["sync", "table", "--db", file], envFor(served))
      expectCleanFailure(outcome, 1)
      expect(lines(outcome.stderr)).toEqual([
        expect.stringMatching(
          /^design-search: incomplete sync: the search counted \d+ designs and listed 2; 2 designs committed, watermark not set unchanged: the next run asks again$/
        )
      ])
      expect(yield* ownerRows(file)).toHaveLength(2)
    }))
})

describe("design-search token", () => {
  it.scopedLive("shows type, expiry and claims, and the token only with --show", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      const [text, json, shown, shownJson] = yield* Effect.all([
        run(["token"], env),
        run(["token", "--json"], env),
        run(["token", "--show"], env),
        run(["token", "--json", "--show"], env)
      ], { concurrency: 4 })
      for (const outcome of [text, json, shown, shownJson]) {
        expect(outcome.code, outcome.stderr).toBe(0)
        expect(outcome.stdout + outcome.stderr).not.toContain(secret)
      }
      expect(text.stdout).toMatch(/^token type:\s+Bearer$/m)
      expect(text.stdout).toMatch(/^expires at:\s+\d{4}-\d\d-\d\dT.* \(in 59m 5\ds\)$/m)
      expect(text.stdout).toMatch(new RegExp(`^  client_id: ${served.sandbox.clientId}$`, "m"))
      expect(text.stdout + text.stderr).not.toMatch(jwtPattern)

      const parsed = Schema.decodeUnknownSync(
        Schema.parseJson(Schema.Struct({
          tokenType: Schema.String,
          issuedAt: Schema.DateTimeUtc,
          expiresAt: Schema.DateTimeUtc,
          expiresInSeconds: Schema.Number,
          claims: Schema.Record({ key: Schema.String, value: Schema.Unknown })
        })),
        { onExcessProperty: "error" }
      )(json.stdout.trim())
      expect(parsed.tokenType).toBe("Bearer")
      expect(parsed.expiresAt.epochMillis - parsed.issuedAt.epochMillis).toBe(3600_000)
      expect(parsed.expiresInSeconds).toBeGreaterThan(3500)
      expect(parsed.claims["client_id"]).toBe(served.sandbox.clientId)
      expect(json.stdout).not.toMatch(jwtPattern)

      expect(shown.stdout).toMatch(new RegExp(`^access token: ${jwtPattern.source}$`, "m"))
      const token = (JSON.parse(shownJson.stdout) as { accessToken?: unknown }).accessToken
      expect(typeof token === "string" && jwtPattern.test(token)).toBe(true)
    }))
})

describe("design-search exit codes", () => {
  it.scopedLive("an unknown flag is bad usage: 2", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(["search", "chair", "--bogus"], envFor(served))
      expectCleanFailure(outcome, 2)
      expect(outcome.stderr).toContain("--bogus")
      expect((yield* served.control.stats).requests.search).toBe(0)
    }))

  it.scopedLive("a date that is no day, or not written YYYY-MM-DD, is bad usage: 2, told which", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(["search", "chair", "--changed-since", "2023-02-30"], envFor(served))
      expectCleanFailure(outcome, 2)
      expect(lines(outcome.stderr)).toEqual([
        "design-search: `--changed-since`: 2023-02-30 is no such day. See `design-search search --help`"
      ])
      const misuse = (args: ReadonlyArray<string>) => Either.getLeft(plan(args, "0")).pipe(Option.map((e) => e.detail))
      expect(misuse(["export", "chair", "--out", "x.jsonl", "--changed-since", "2024-02-30"])).toEqual(
        Option.some("`--changed-since`: 2024-02-30 is no such day. See `design-search export --help`")
      )
      expect(misuse(["search", "chair", "--changed-since", "2024-2-3"])).toEqual(
        Option.some(
          "`--changed-since` takes a date written YYYY-MM-DD; got `2024-2-3`. See `design-search search --help`"
        )
      )
      expect((yield* served.control.stats).requests.search).toBe(0)
    }))

  it.scopedLive("a class that is not a Locarno class or subclass (06, 06-01) is bad usage: 2, told how classes are written", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(["search", "chair", "--class", "6"], envFor(served))
      expectCleanFailure(outcome, 2)
      const written = "`--class` takes a Locarno class written 06, or a subclass written 06-01"
      expect(lines(outcome.stderr)).toEqual([
        `design-search: ${written}; got \`6\`. See \`design-search search --help\``
      ])
      const misuse = (args: ReadonlyArray<string>) => Either.getLeft(plan(args, "0")).pipe(Option.map((e) => e.detail))
      for (
        const [command, bad] of [["search", "chairs"], ["sync", "06-1"], ["export", "06 "], ["search", "06-01-02"]]
      ) {
        const more = command === "sync" ? ["--db", "x.db"] : command === "export" ? ["--out", "x.jsonl"] : []
        expect(misuse([command!, "--class", "06", "--class", bad!, ...more])).toEqual(
          Option.some(`${written}; got \`${bad}\`. See \`design-search ${command} --help\``)
        )
      }
      for (const good of ["06", "06-01", "32-00"]) {
        expect(misuse(["search", "chair", "--class", good])).toEqual(Option.none())
      }
      expect((yield* served.control.stats).requests.search).toBe(0)
    }))

  it.scopedLive("a malformed design number is refused before sending: 2", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(["get", "12-34"], envFor(served))
      expectCleanFailure(outcome, 2)
      expect(outcome.stderr).toContain("ipRightIdentifier")
      expect((yield* served.control.stats).requests.design).toBe(0)
    }))

  it.scopedLive("an unknown design number is the service's 404: 1", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(["get", "999999999"], envFor(served))
      expectCleanFailure(outcome, 1)
      expect(outcome.stderr).toContain("NOT_FOUND: no design numbered 999999999")
    }))

  it.scopedLive("wrong credentials: 3, without echoing the secret", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const wrong = "not-the-secret-81ab"
      const outcome = yield* run(["search", "chair"], envFor(served, { IPAUSTRALIA_CLIENT_SECRET: wrong }))
      expectCleanFailure(outcome, 3)
      expect(outcome.stderr).toContain("InvalidCredentials")
      expect(outcome.stderr).toContain("invalid_client")
      expect(outcome.stderr).not.toContain(wrong)
    }))

  it.scopedLive("a 403 (not entitled): 3", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      yield* served.control.injectFault({ target: "search", status: 403 })
      const outcome = yield* run(["search", "chair"], envFor(served))
      expectCleanFailure(outcome, 3)
      expect(outcome.stderr).toContain("forbidden (HTTP 403)")
    }))

  it.scopedLive("a 500 from the service: 1, with the error's code and detail", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      yield* served.control.injectFault({ target: "search", status: 500 })
      const outcome = yield* run(["search", "chair", "--json"], envFor(served))
      expectCleanFailure(outcome, 1)
      expect(outcome.stderr).toContain("server error (HTTP 500): 500: Internal Server Error")
    }))

  it.scopedLive("missing configuration for an explicit environment: 3", () =>
    Effect.gen(function*() {
      const outcome = yield* run(["search", "chair", "--env", "test"], { IPAUSTRALIA_CLIENT_ID: "someone" })
      expectCleanFailure(outcome, 3)
      expect(outcome.stderr).toContain("IPAUSTRALIA_CLIENT_SECRET is not set")
    }))
})

describe("design-search sandbox", () => {
  it.scopedLive("serves the default dataset of the embedded sandbox, and names samples to try", () =>
    Effect.gen(function*() {
      const sandbox = yield* start(["sandbox", "--port", "0"])
      yield* sandbox.waitForOutput(({ stderr }) => stderr.includes("sandbox: try"))
      const { stderr } = sandbox.output()
      expect(stderr).toContain(`sandbox: ${Sandbox.defaults.designs} designs on http://127.0.0.1:`)
      const { classes, owners, products } = Sandbox.samples
      expect(stderr).toContain(`search ${products[0]}, search --owner "${owners[0]}" or search --class ${classes[0]}`)
      const help = yield* run(["sandbox", "--help"])
      for (const sample of [...owners, ...products, ...classes]) expect(help.stdout).toContain(sample)
      yield* sandbox.kill("SIGTERM")
      expect((yield* sandbox.exit()).code).toBe(0)
    }))

  it.scopedLive("serves until SIGTERM and prints the variables that point a client at it", () =>
    Effect.gen(function*() {
      const sandbox = yield* start(["sandbox", "--port", "0", "--designs", "50", "--client-secret", "shh-123"])
      yield* sandbox.waitForOutput(({ stdout }) => stdout.includes("IPAUSTRALIA_BASE_URL="))
      const exported = Object.fromEntries(
        lines(sandbox.output().stdout).map((line) => {
          const match = /^export (IPAUSTRALIA_[A-Z_]+)=(.*)$/.exec(line)
          expect(match, line).not.toBeNull()
          return [match?.[1] ?? "", match?.[2] ?? ""]
        })
      )
      expect(Object.keys(exported).sort()).toEqual([
        "IPAUSTRALIA_AUTH_URL",
        "IPAUSTRALIA_BASE_URL",
        "IPAUSTRALIA_CLIENT_ID",
        "IPAUSTRALIA_CLIENT_SECRET"
      ])
      expect(exported).toMatchObject({ IPAUSTRALIA_CLIENT_ID: "sandbox-client", IPAUSTRALIA_CLIENT_SECRET: "shh-123" })
      expect(exported["IPAUSTRALIA_AUTH_URL"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(exported["IPAUSTRALIA_BASE_URL"]).toBe(
        `${exported["IPAUSTRALIA_AUTH_URL"]}/public/australian-design-search-api/v1`
      )

      const got = yield* run(["get", chair, "--json"], exported)
      expect(got.code, got.stderr).toBe(0)
      expect(JSON.parse(got.stdout)).toMatchObject({ number: chair, title: "Chair" })

      yield* sandbox.kill("SIGTERM")
      const outcome = yield* sandbox.exit()
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stderr).toContain("sandbox: stopped")
    }))

  it.scopedLive("--result-field designIds names the numbers of search results so; the CLI reads them the same", () =>
    Effect.gen(function*() {
      const sandbox = yield* start(["sandbox", "--port", "0", "--designs", "50", "--result-field", "designIds"])
      yield* sandbox.waitForOutput(({ stdout }) => stdout.includes("IPAUSTRALIA_BASE_URL="))
      const exported = Object.fromEntries(
        lines(sandbox.output().stdout).map((line) => /^export (IPAUSTRALIA_[A-Z_]+)=(.*)$/.exec(line)!.slice(1, 3))
      )
      const raw = yield* Effect.promise(async () => {
        const form = new URLSearchParams({
          grant_type: "client_credentials",
          client_id: exported["IPAUSTRALIA_CLIENT_ID"]!,
          client_secret: exported["IPAUSTRALIA_CLIENT_SECRET"]!
        })
        const token = await fetch(`${exported["IPAUSTRALIA_AUTH_URL"]}/public/external-token-api/v1/access_token`, {
          method: "POST",
          body: form
        }).then((r) => r.json() as Promise<{ access_token: string }>)
        const search = await fetch(`${exported["IPAUSTRALIA_BASE_URL"]}/search/quick`, {
          method: "POST",
          headers: { authorization: `Bearer ${token.access_token}`, "content-type": "application/json" },
          body: JSON.stringify({ query: "chair" })
        })
        return search.json() as Promise<Record<string, unknown>>
      })
      expect(Object.keys(raw).sort()).toEqual(["count", "designIds"])
      const found = yield* run(["search", "chair", "--json"], exported)
      expect(found.code, found.stderr).toBe(0)
      expect(decodeSearchJson(found.stdout).designNumbers).toEqual(raw["designIds"])
      const bad = yield* run(["sandbox", "--port", "0", "--result-field", "ids"])
      expectCleanFailure(bad, 2)
    }))

  it.scopedLive("refuses a host that is not loopback: 2", () =>
    Effect.gen(function*() {
      const outcome = yield* run(["sandbox", "--port", "0", "--host", "0.0.0.0"])
      expectCleanFailure(outcome, 2)
      expect(outcome.stderr).toContain("loopback")
    }))
})

describe("design-search failures (failure.ts)", () => {
  const fields = { status: 0, errors: [], messages: [], excerpt: "" }
  const serverError = { id: "x", code: "500", detail: "Internal Server Error" }
  const cases: ReadonlyArray<readonly [string, Parameters<typeof exitCode>[0], number, string]> = [
    [
      "MirrorDatabaseError",
      new DesignMirror.MirrorDatabaseError({ detail: "connecting to PostgreSQL: connect ECONNREFUSED 127.0.0.1:1" }),
      1,
      "the mirror's database failed: connecting to PostgreSQL: connect ECONNREFUSED"
    ],
    [
      "SqlDriverMissingError",
      new DesignMirror.SqlDriverMissingError({ packageName: "@effect/sql-pg" }),
      3,
      "the SQL driver @effect/sql-pg is not installed: npm install @effect/sql-pg"
    ],
    [
      // Where Effect 4 is installed, npm refuses @effect/sql-libsql (it peers on Effect 3): the line says what works there.
      "SqlDriverMissingError of SQLite",
      new DesignMirror.SqlDriverMissingError({ packageName: "@effect/sql-libsql" }),
      3,
      "npm install @effect/sql-libsql, which installs beside Effect 3 only: SQLite mirrors need the Effect 3 " +
      "edition, and an Effect 4 application mirrors into PostgreSQL (DesignMirror.layerPostgres)\n" +
      "in an Effect 4 application, give --db a postgres:// URL"
    ],
    [
      "IncompleteSyncError",
      new DesignMirror.IncompleteSyncError({
        criteriaKey: "k",
        detail: "the search counted 30 designs and listed 5",
        fetched: 5,
        watermark: "2026-12-01"
      }),
      1,
      "incomplete sync: the search counted 30 designs and listed 5; 5 designs committed, watermark 2026-12-01 unchanged"
    ],
    [
      "ServerError",
      new ApiError.ServerError({ ...fields, status: 500, errors: [serverError] }),
      1,
      "500: Internal Server Error"
    ],
    [
      "RateLimitError",
      new ApiError.RateLimitError({ ...fields, status: 429, retryAfter: Duration.seconds(90) }),
      1,
      "rate limited (HTTP 429, retry after 1m 30s)"
    ],
    [
      "NotFoundError",
      new ApiError.NotFoundError({ ...fields, status: 404, errors: [{ code: "NOT_FOUND", detail: "no design" }] }),
      1,
      "NOT_FOUND: no design"
    ],
    [
      "TransportError",
      new ApiError.TransportError({
        reason: "Timeout",
        method: "GET",
        url: "https://x.test/design/1",
        detail: "no complete response within 30s"
      }),
      1,
      "(Timeout): no complete response"
    ],
    [
      "UnexpectedResponseError",
      new ApiError.UnexpectedResponseError({ status: 418, excerpt: "teapot", issue: "unexpected HTTP status 418" }),
      1,
      "unexpected HTTP status 418"
    ],
    [
      "TokenError Unavailable",
      new ApiError.TokenError({ reason: "Unavailable", status: 503, detail: "down" }),
      1,
      "Unavailable HTTP 503"
    ],
    [
      "TokenError InvalidResponse",
      new ApiError.TokenError({ reason: "InvalidResponse", status: 200, detail: "not a token response" }),
      1,
      "InvalidResponse"
    ],
    [
      "TokenError InvalidCredentials",
      new ApiError.TokenError({
        reason: "InvalidCredentials",
        status: 401,
        error: "invalid_client",
        detail: "refused"
      }),
      3,
      "invalid_client"
    ],
    [
      "AuthenticationError",
      new ApiError.AuthenticationError({ ...fields, status: 401 }),
      3,
      "not authenticated (HTTP 401)"
    ],
    [
      "ForbiddenError",
      new ApiError.ForbiddenError({ ...fields, status: 403, excerpt: "not subscribed" }),
      3,
      "not subscribed"
    ],
    [
      "ConfigError",
      ConfigError.InvalidData(["IPAUSTRALIA_ENV"], "unknown environment \"staging\""),
      3,
      "unknown environment"
    ],
    [
      "ValidationError",
      new ApiError.ValidationError({
        ...fields,
        origin: "client",
        errors: [{ code: "INVALID_FIELD", detail: "expected a date", source: { pointer: "/changedSinceDate" } }]
      }),
      2,
      "INVALID_FIELD at /changedSinceDate: expected a date"
    ],
    [
      "BadRequestError",
      new ApiError.BadRequestError({
        ...fields,
        status: 400,
        errors: [{ code: "INVALID_PARAMETER", detail: "bad number", source: { parameter: "ipRightIdentifier" } }]
      }),
      2,
      "at ipRightIdentifier: bad number"
    ],
    ["UsageError", new UsageError({ detail: "line 3 is not a design" }), 2, "line 3 is not a design"],
    [
      "FileError (a path the user gave)",
      new FileError({ path: "/x.jsonl", detail: "cannot open it for writing: permission denied" }),
      2,
      "/x.jsonl: cannot open it for writing: permission denied"
    ],
    [
      "ServeError",
      new HttpServerError.ServeError({ cause: new Error("listen EADDRINUSE 127.0.0.1:8787") }),
      1,
      "EADDRINUSE"
    ]
  ]
  for (const [name, failure, code, shows] of cases) {
    it(`${name}: exit ${code}, one or two lines that say what went wrong`, () => {
      expect(exitCode(failure)).toBe(code)
      const text = render(failure)
      expect(text.length).toBeGreaterThanOrEqual(1)
      expect(text.length).toBeLessThanOrEqual(2)
      expect(text.join("\n")).toContain(shows)
      expect(text.join("\n")).not.toMatch(/^\s+at /m)
    })
  }
})

describe("export files (ExportFile.scan)", () => {
  const design = (n: string) => JSON.stringify({ number: n, title: "Chair" })
  const bytes = (text: string) => new TextEncoder().encode(text)

  it("reads the numbers of complete lines; an empty file is fine", () => {
    expect(Either.getOrThrow(ExportFile.scan(bytes("")))).toEqual({
      numbers: new Set(),
      completeBytes: 0,
      tail: "none"
    })
    const text = `${design("1")}\n${design("2")}\n`
    expect(Either.getOrThrow(ExportFile.scan(bytes(text)))).toEqual({
      numbers: new Set(["1", "2"]),
      completeBytes: text.length,
      tail: "none"
    })
  })

  it("a cut-off last line is dropped; a whole record missing its newline is kept", () => {
    const head = `${design("1")}\n`
    expect(Either.getOrThrow(ExportFile.scan(bytes(head + "{\"number\":\"2")))).toEqual({
      numbers: new Set(["1"]),
      completeBytes: head.length,
      tail: "partial"
    })
    expect(Either.getOrThrow(ExportFile.scan(bytes(head + design("2"))))).toEqual({
      numbers: new Set(["1", "2"]),
      completeBytes: head.length,
      tail: "unterminated"
    })
  })

  it("a complete line that is not a design makes the file foreign", () => {
    expect(ExportFile.scan(bytes(`${design("1")}\n{"no":"number"}\n${design("2")}\n`))).toEqual(
      Either.left({ line: 2, reason: "it is not a design record" })
    )
    expect(ExportFile.scan(bytes(`${design("1")}\n\n`))).toEqual(Either.left({ line: 2, reason: "it is empty" }))
  })
})

describe("export files (ExportFile.open)", () => {
  const design = (n: string) => JSON.stringify({ number: n, title: "Chair" })
  const noSpace = new SystemError({
    reason: "Unknown",
    module: "FileSystem",
    method: "writeAll",
    cause: { code: "ENOSPC" }
  })

  /** The node file system, but a write of more than `room` bytes writes `room` of them and fails. */
  const cramped = (room: number, truncateFails: boolean) =>
    Layer.effect(
      FileSystem.FileSystem,
      Effect.map(FileSystem.FileSystem, (real) => ({
        ...real,
        truncate: truncateFails ? () => Effect.fail(noSpace) : real.truncate,
        open: (file: string, options?: FileSystem.OpenFileOptions) =>
          Effect.map(real.open(file, options), (opened): FileSystem.File => ({
            ...opened,
            sync: opened.sync,
            writeAll: (bytes: Uint8Array) =>
              bytes.length <= room
                ? opened.writeAll(bytes)
                : Effect.zipRight(opened.writeAll(bytes.subarray(0, room)), Effect.fail(noSpace))
          }))
      }))
    ).pipe(Layer.provide(NodeFileSystem.layer))

  it.scoped("a write cut short (no space left) is cut back to the last whole line", () =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir, "x.jsonl")
      for (const truncateFails of [false, true]) {
        fs.writeFileSync(file, "")
        const failed = yield* Effect.scoped(Effect.gen(function*() {
          const opened = yield* ExportFile.open(file)
          yield* opened.append([design("1")])
          const error = yield* Effect.flip(opened.append([`${design("2")}${" ".repeat(100)}`]))
          return { error, intact: opened.intact() }
        })).pipe(Effect.provide(cramped(60, truncateFails)))
        expect(failed.error).toEqual(
          new FileError({ path: file, detail: "cannot write to it: no space left on the device" })
        )
        expect(failed.intact).toBe(!truncateFails)
        const content = fs.readFileSync(file, "utf8")
        if (truncateFails) expect(content).toMatch(new RegExp(`^${design("1").replace(/[{}]/g, "\\$&")}\n.+[^\n]$`))
        else expect(content).toBe(`${design("1")}\n`)
      }
    }))
})

describe("export pacing (Pacing.budgetFor)", () => {
  const client = { tokenUrl: "https://auth.example/token", clientId: "c" }
  /** When four slots in a row were had, on the test clock, and how many requests the budget counted. */
  const waits = (rate: Option.Option<number>, env: Option.Option<Environment>, variables: Record<string, string>) =>
    Effect.gen(function*() {
      const counted = yield* budgetFor(rate, env)
      const budget = counted.budget.forClient(client)
      const slots = yield* Effect.fork(
        Effect.forEach([1, 2, 3, 4], () => Effect.zipRight(budget.reserve, Clock.currentTimeMillis))
      )
      yield* TestClock.adjust("1 minute")
      const times = yield* Fiber.join(slots)
      // from the first slot on
      return { taken: times.map((t) => t - times[0]!), requests: counted.requests() }
    }).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables)))))

  const credentials = { IPAUSTRALIA_CLIENT_ID: "id", IPAUSTRALIA_CLIENT_SECRET: "secret" }

  it.effect("the published cap against the service's own hosts; no pace against the sandbox or URLs of one's own", () =>
    Effect.gen(function*() {
      const cap = [0, 100, 200, 300]
      const none = [0, 0, 0, 0]
      expect(yield* waits(Option.none(), Option.none(), credentials)).toEqual({ taken: cap, requests: 4 })
      expect(yield* waits(Option.none(), Option.some("test"), credentials)).toEqual({ taken: cap, requests: 4 })
      expect(yield* waits(Option.none(), Option.none(), { ...credentials, IPAUSTRALIA_ENV: "production" }))
        .toEqual({ taken: cap, requests: 4 })
      expect(yield* waits(Option.none(), Option.some("sandbox"), credentials)).toEqual({ taken: none, requests: 4 })
      expect(yield* waits(Option.none(), Option.none(), {})).toEqual({ taken: none, requests: 4 })
      expect(
        yield* waits(Option.none(), Option.none(), { ...credentials, IPAUSTRALIA_BASE_URL: "http://127.0.0.1:1/v1" })
      )
        .toEqual({ taken: none, requests: 4 })
      expect(yield* waits(Option.none(), Option.none(), { ...credentials, IPAUSTRALIA_AUTH_URL: "http://127.0.0.1:1" }))
        .toEqual({ taken: none, requests: 4 })
    }))

  it.effect("--rate wins either way: requests a minute, 0 for none", () =>
    Effect.gen(function*() {
      expect((yield* waits(Option.some(120), Option.some("sandbox"), {})).taken).toEqual([0, 500, 1000, 1500])
      expect((yield* waits(Option.some(0), Option.none(), credentials)).taken).toEqual([0, 0, 0, 0])
    }))

  it.effect("a request interrupted while it waits for its slot is not counted", () =>
    Effect.gen(function*() {
      const counted = yield* budgetFor(Option.some(60), Option.none())
      const budget = counted.budget.forClient(client)
      yield* budget.reserve
      const waiting = yield* Effect.fork(budget.reserve)
      yield* TestClock.adjust("500 millis")
      yield* Fiber.interrupt(waiting)
      expect(counted.requests()).toBe(1)
      yield* Effect.fork(budget.reserve)
      yield* TestClock.adjust("2 seconds")
      expect(counted.requests()).toBe(2)
    }))
})

describe("design-search refuses what it would otherwise guess", () => {
  it.scopedLive("a real environment named with no credentials is exit 3 with the hint, never the sandbox", () =>
    Effect.gen(function*() {
      for (
        const [args, env] of [
          [["search", "chair"], { IPAUSTRALIA_ENV: "production" }],
          [["search", "chair"], { IPAUSTRALIA_ENV: "test" }],
          [["search", "chair", "--env", "production"], {}],
          [["--env", "test", "get", chair], {}],
          [["token"], { IPAUSTRALIA_ENV: " production " }],
          [["search", "chair"], { IPAUSTRALIA_BASE_URL: "https://example.invalid/v1" }],
          [["search", "chair"], { IPAUSTRALIA_CLIENT_SECRET: "s" }]
        ] as const
      ) {
        const outcome = yield* run(args, env)
        expectCleanFailure(outcome, 3)
        expect(outcome.stderr, args.join(" ")).toContain("IPAUSTRALIA_CLIENT_ID is not set")
        expect(outcome.stderr).toContain("set IPAUSTRALIA_CLIENT_ID and IPAUSTRALIA_CLIENT_SECRET")
        expect(outcome.stderr).not.toContain("embedded sandbox")
      }
      // nothing names an environment: the sandbox stands in, and says so
      const alone = yield* run(["search", "chair", "--json"])
      expect(alone.code, alone.stderr).toBe(0)
      expect(alone.stderr).toContain("no IPAUSTRALIA_* variable is set; using the embedded sandbox")
      const named = yield* run(["search", "chair", "--json"], { IPAUSTRALIA_ENV: "sandbox" })
      expect(named.code, named.stderr).toBe(0)
      expect(named.stderr).toContain("IPAUSTRALIA_ENV=sandbox; using the embedded sandbox")
    }))

  it.scopedLive("an IPAUSTRALIA_ENV that names no environment is exit 3, listing sandbox, test and production", () =>
    Effect.gen(function*() {
      for (const env of [{ IPAUSTRALIA_ENV: "staging" }, { IPAUSTRALIA_ENV: "staging", IPAUSTRALIA_CLIENT_ID: "x" }]) {
        const outcome = yield* run(["search", "chair"], env)
        expectCleanFailure(outcome, 3)
        expect(outcome.stderr).toContain("expected one of sandbox, test, production")
      }
    }))

  it.scopedLive("an option with no value, or another option as its value, is bad usage: 2, nothing sent", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      for (
        const args of [
          ["search", "chair", "--status"],
          ["search", "chair", "--status", "--json"],
          ["export", "chair", "--out"],
          ["search", "chair", "--limit", "--json"]
        ]
      ) {
        const outcome = yield* run(args, envFor(served))
        expectCleanFailure(outcome, 2)
        expect(outcome.stderr, args.join(" ")).toContain("needs a value")
      }
      expect((yield* served.control.stats).requests).toEqual({ token: 0, search: 0, design: 0, advanced: 0, page: 0 })
    }))

  it.scopedLive("an option written in another case is unknown, not matched and then dropped: 2", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      for (const args of [["search", "chair", "--LIMIT", "1"], ["search", "chair", "--Json"]]) {
        const outcome = yield* run(args, envFor(served))
        expect(outcome.code, args.join(" ")).toBe(2)
        expect(outcome.stdout).toBe("")
      }
      expect((yield* served.control.stats).requests.search).toBe(0)
    }))

  /** The usage error of `args`, if any. */
  const misuse = (args: ReadonlyArray<string>) => Either.getLeft(plan(args, "0")).pipe(Option.map((e) => e.detail))

  it("every option that takes a value is checked, and only those", () => {
    for (
      const [command, name, value] of [
        ["search", "--status", "A"],
        ["search", "--class", "06"],
        ["search", "--changed-since", "2020-01-01"],
        ["search", "--sort", "-number"],
        ["search", "--limit", "3"],
        ["search", "--env", "sandbox"],
        ["export", "--out", "x.jsonl"],
        ["export", "--concurrency", "2"],
        ["sync", "--rate", "60"],
        ["sandbox", "--port", "0"],
        ["sandbox", "--host", "127.0.0.1"],
        ["sandbox", "--designs", "10"],
        ["sandbox", "--seed", "-3"],
        ["sandbox", "--client-id", "c"],
        ["sandbox", "--client-secret", "s"],
        ["sandbox", "--token-lifetime", "60"]
      ] as const
    ) {
      const extra = command === "sandbox"
        ? []
        : [
          "q",
          ...(command === "export" && name !== "--out" ? ["--out", "x"] : command === "sync" ? ["--db", "x"] : [])
        ]
      expect(Option.getOrThrow(misuse([command, ...extra, name])), name).toContain(
        `\`${name}\` needs a value (write ${name}=VALUE`
      )
      expect(Option.getOrThrow(misuse([command, ...extra, name, "--json"])), name).toContain("not the option `--json`")
      expect(misuse([command, ...extra, name, value]), name).toEqual(Option.none())
      expect(Option.getOrElse(misuse([command, ...extra, `${name}=--v`]), () => ""), name).not.toContain(
        "needs a value"
      )
    }
    for (const flag of ["--json", "--quiet", "--no-token-cache"]) {
      expect(misuse(["search", "x", flag])).toEqual(Option.none())
      expect(Option.getOrThrow(misuse(["search", "x", `${flag}=1`]))).toContain(`\`${flag}\` takes no value; got \`1\``)
    }
    expect(misuse(["search", "--", "--status"])).toEqual(Option.none())
    expect(misuse(["token", "--show"])).toEqual(Option.none())
  })

  it("an option the command does not have is refused before --, with the closest of its own; after --, it is the query", () => {
    for (
      const [args, told] of [
        [["search", "--bogus"], "unknown option `--bogus` for search (a query that begins with - goes after --)"],
        [["search", "x", "-q"], "unknown option `-q` for search"],
        [["get", "1", "--Json"], "unknown option `--Json` for get; did you mean `--json`?"],
        [["--nope=1", "search", "x"], "unknown option `--nope` for search"],
        [["search", "chair", "--limt", "5"], "unknown option `--limt` for search; did you mean `--limit`?"],
        [
          ["sandbox", "--env", "test"],
          "`--env` is an option of search, get, export, sync, watch, token, api and mcp, not of sandbox"
        ],
        [
          ["sync", "x", "--db", "d", "--changed-since", "2020-01-01"],
          "`--changed-since` is an option of search and export, not of sync"
        ],
        [["search", "x", "--wizard"], "unknown option `--wizard` for search"],
        [["search", "x", "--completions", "bash"], "unknown option `--completions`"],
        [["search", "x", "--log-level", "debug"], "unknown option `--log-level`"]
      ] as const
    ) {
      const detail = Option.getOrThrow(misuse(args))
      expect(detail, args.join(" ")).toContain(told)
      expect(detail).toMatch(new RegExp(`See \`design-search ${args.find((a) => !a.startsWith("-"))} --help\`$`))
    }
    expect(misuse(["search", "--", "--bogus"])).toEqual(Option.none())
    // A value is not an option, whatever it looks like.
    expect(misuse(["search", "x", "--sort", "-number", "--status", "-x"])).toEqual(Option.none())
  })

  it("--help before -- is the help of the command named, whatever else is given", () => {
    const printed = (args: ReadonlyArray<string>) =>
      Either.map(plan(args, "0"), (p) => (p._tag === "print" ? p.text.split("\n")[0] : p._tag))
    expect(printed(["search", "--json", "--help"])).toEqual(
      Either.right(expect.stringMatching(/^design-search search:/))
    )
    expect(printed(["--env", "sandbox", "get", "1", "-h"])).toEqual(
      Either.right(expect.stringMatching(/^design-search get:/))
    )
    expect(printed(["search", "--bogus", "--limit", "x", "-h"])).toEqual(
      Either.right(expect.stringMatching(/^design-search search:/))
    )
    expect(printed(["--limit", "3", "--help"])).toEqual(Either.right(expect.stringMatching(/^design-search: /)))
    expect(printed(["export", "x", "--out", "-h"])).toEqual(
      Either.right(expect.stringMatching(/^design-search export:/))
    )
    expect(printed(["search", "--", "--help"])).toEqual(Either.right("run"))
    expect(printed(["search", "--version"])).toEqual(Either.right("0"))
  })

  it.scopedLive("an export file that cannot be opened is one line in the CLI's words, exit 2", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const dir = yield* tempDir
      for (
        const [out, why] of [
          [path.join(dir, "missing-folder", "x.jsonl"), "its folder does not exist"],
          [path.join(dir, "a-file", "x.jsonl"), "a part of its path is not a folder"],
          [dir, "it is a folder"]
        ] as const
      ) {
        fs.writeFileSync(path.join(dir, "a-file"), "")
        const outcome = yield* run(["export", "chair", "--out", out], envFor(served))
        expectCleanFailure(outcome, 2)
        expect(outcome.stderr).toMatch(new RegExp(`design-search: ${out}: cannot [a-z ]+: ${why}`))
        expect(outcome.stderr).not.toContain("FileSystem")
      }
      for (const out of ["", "  "]) {
        const outcome = yield* run(["export", "chair", "--out", out], envFor(served))
        expectCleanFailure(outcome, 2)
        expect(outcome.stderr).toContain("--out needs the path of a file")
      }
    }))

  it.scopedLive("a FIFO, a device or a socket as --out is refused at once, nothing read or sent: 2", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const fifo = path.join(yield* tempDir, "fifo")
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
      for (const out of [fifo, "/dev/zero", "/dev/null"]) {
        const outcome = yield* run(["export", "chair", "--out", out], envFor(served), "10 seconds")
        expectCleanFailure(outcome, 2)
        expect(outcome.stderr).toContain(`${out}: cannot open it for writing: it is not a regular file`)
      }
      expect((yield* served.control.stats).requests.search).toBe(0)
    }))

  it("results that cannot be written to stdout are exit 1 in one line, not a silent 0", () => {
    const full = fs.openSync("/dev/full", "w")
    try {
      const outcome = spawnSync(process.execPath, [cliPath, "search", "chair"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: ["ignore", full, "pipe"],
        encoding: "utf8",
        timeout: 20_000
      })
      expect(outcome.status, outcome.stderr).toBe(1)
      expect(outcome.stderr).toContain("design-search: cannot write the results to stdout: ENOSPC")
    } finally {
      fs.closeSync(full)
    }
  })

  it.scopedLive("--help anywhere before -- shows the command's help and sends nothing; --status=VALUE repeats", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      const help = yield* run(["search", "chair", "--json", "--help"], env)
      expect(help.code, help.stderr).toBe(0)
      expect(help.stdout).toContain("Usage: design-search search")
      expect(help.stdout).toContain("--changed-since")
      expect((yield* served.control.stats).requests.search).toBe(0)
      const spaced = yield* run(["search", "ltd", "--status", "REGISTERED", "--status", "FILED", "--json"], env)
      const joined = yield* run(["search", "ltd", "--status=REGISTERED", "--status=FILED", "--json"], env)
      const all = yield* run(["search", "ltd", "--json"], env)
      expect(joined.code, joined.stderr).toBe(0)
      expect(joined.stdout).toBe(spaced.stdout)
      expect(decodeSearchJson(joined.stdout).count).toBeLessThan(decodeSearchJson(all.stdout).count)
    }))

  it.scopedLive("a server's newline ends no line: each value is escaped where it is placed, in a table and a heading", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      const title = "\u001b[31mred\r\nX\u2028Y\u0085Z"
      const design = {
        target: "design",
        status: 200,
        body: JSON.stringify({ number: chair, title, status: "REG\nISTERED" }),
        headers: { "content-type": "application/json" }
      } as const
      yield* served.control.injectFault(design)
      const table = yield* run(["search", "chair", "--limit", "1"], env)
      expect(table.code, table.stderr).toBe(0)
      const rows = lines(table.stdout).filter((line) => line.includes(chair))
      expect(rows).toEqual([expect.stringContaining("\\u001b[31mred\\u000d\\u000aX")])
      expect(rows[0]).toContain("REG\\u000aISTERED")
      expect(lines(table.stdout).some((line) => line.startsWith("X"))).toBe(false)
      yield* served.control.injectFault(design)
      const shown = yield* run(["get", chair], env)
      expect(shown.code, shown.stderr).toBe(0)
      expect(lines(shown.stdout)[0]).toBe(`Design ${chair} — \\u001b[31mred\\u000d\\u000aX\\u2028Y\\u0085Z`)
      expect(lines(shown.stdout).some((line) => line.startsWith("X"))).toBe(false)
    }))

  it.scopedLive("a server's text reaches the terminal printable, one line each, and bounded by the library", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      // Retitles the window, returns the cursor, clears the screen, recolours (C1 CSI), reverses the text.
      // Then marks that reorder text unseen (RLM, ALM) and a byte order mark.
      const hostile = "\u001b]0;owned\u0007\r\u001b[2J\u009b31m\u202eevil\u200f\u061c\ufeff\nFAKE: line"
      // eslint-disable-next-line no-control-regex
      const unprintable = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/
      const record = { number: chair, title: hostile, messages: [{ code: "W", detail: hostile, severity: "warning" }] }
      const design = {
        target: "design",
        status: 200,
        body: JSON.stringify(record),
        headers: { "content-type": "application/json" }
      } as const
      yield* served.control.injectFault(design)
      const shown = yield* run(["get", chair], env)
      expect(shown.code, shown.stderr).toBe(0)
      expect(`${shown.stdout}${shown.stderr}`).not.toMatch(unprintable)
      expect(shown.stdout).toContain(
        "\\u001b]0;owned\\u0007\\u000d\\u001b[2J\\u009b31m\\u202eevil\\u200f\\u061c\\ufeff"
      )
      expect(lines(shown.stderr).filter((line) => line.includes("FAKE"))).toHaveLength(1)
      // The record itself, for programs, is the server's as sent.
      yield* served.control.injectFault(design)
      const json = yield* run(["get", chair, "--json"], env)
      expect(Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ title: Schema.String })))(json.stdout).title)
        .toBe(hostile)
      const errors = Array.from({ length: 20 }, (_, i) => ({ code: `E${i}`, detail: `${hostile} ${"x".repeat(900)}` }))
      yield* served.control.injectFault({
        target: "search",
        status: 500,
        body: JSON.stringify({ errors }),
        headers: { "content-type": "application/json" }
      })
      const failed = yield* run(["search", "chair"], env)
      expectCleanFailure(failed, 1)
      expect(failed.stderr).not.toMatch(unprintable)
      expect(lines(failed.stderr)).toHaveLength(1)
      expect(failed.stderr.length).toBeLessThan(1200)
    }))

  it.scopedLive("a design with a field nested 100,000 levels deep: get, get --json and export fail in one line naming it", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const depth = 100_000
      const body = `{"number":"${chair}","title":"Deep","meta":${"[".repeat(depth)}${"]".repeat(depth)}}`
      const deep = { target: "design", status: 200, body, headers: { "content-type": "application/json" } } as const
      for (const args of [["get", chair, "--json"], ["get", chair]]) {
        yield* served.control.injectFault(deep)
        const outcome = yield* run(args, envFor(served))
        expectCleanFailure(outcome, 1)
        expect(outcome.stderr).toContain("meta: nests deeper than 64 levels")
      }
      const dir = yield* tempDir
      yield* served.control.injectFault({ ...deep, count: 100 })
      const exported = yield* run(["export", chair, "--out", path.join(dir, "x.jsonl")], envFor(served))
      expect(exported.code, exported.stderr).toBe(1)
      expect(exported.stderr).toContain("nests deeper than 64 levels")
      expect(exported.stderr).not.toContain("internal error")
    }))

  it.scopedLive("the framework's --wizard, --completions and --log-level are gone: unknown options, 2 at once", () =>
    Effect.gen(function*() {
      for (
        const args of [["search", "--wizard"], ["get", "1", "--completions", "bash"], [
          "search",
          "x",
          "--log-level",
          "1"
        ]]
      ) {
        const outcome = yield* run(args, {}, "10 seconds")
        expectCleanFailure(outcome, 2)
        expect(lines(outcome.stderr), args.join(" ")).toEqual([expect.stringContaining("unknown option")])
      }
    }))

  it.scopedLive("an integer option that is none says so in plain English: 2", () =>
    Effect.gen(function*() {
      const outcome = yield* run(["sandbox", "--seed", "x"])
      expect(outcome.code).toBe(2)
      expect(outcome.stderr).toContain("`--seed` takes an integer; got `x`")
    }))

  it.scopedLive("an integer option out of its range names the range, with no schema drawing: 2", () =>
    Effect.gen(function*() {
      for (
        const [args, told] of [
          [["search", "chair", "--limit", "1001"], "`--limit` takes an integer from 0 to 1000; got `1001`"],
          [["sandbox", "--port", "99999"], "`--port` takes an integer from 0 to 65535; got `99999`"]
        ] as const
      ) {
        const outcome = yield* run(args)
        expect(outcome.code, args.join(" ")).toBe(2)
        expect(outcome.stderr).toContain(told)
        expect(outcome.stderr).not.toMatch(/└─|Predicate refinement/)
      }
    }))

  it.scopedLive("sandbox stops with 0 on SIGINT as on SIGTERM: stopping is its normal end", () =>
    Effect.gen(function*() {
      const sandbox = yield* start(["sandbox", "--port", "0", "--designs", "10"])
      yield* sandbox.waitForOutput(({ stdout }) => stdout.includes("IPAUSTRALIA_BASE_URL="))
      yield* sandbox.kill("SIGINT")
      const outcome = yield* sandbox.exit()
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stderr).toContain("sandbox: stopped")
    }))
})

describe("the design-search launcher", () => {
  it.scoped("--version is package.json's; a link to the launcher starts it, also with --preserve-symlinks-main", () =>
    Effect.gen(function*() {
      const { version } = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))(
        fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")
      )
      const link = path.join(yield* tempDir, "design-search")
      fs.symlinkSync(cliPath, link)
      for (const options of [[], ["--preserve-symlinks-main"]]) {
        const outcome = spawnSync(process.execPath, [...options, link, "--version"], {
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
          encoding: "utf8",
          timeout: 20_000
        })
        expect(outcome.status, outcome.stderr).toBe(0)
        expect(outcome.stdout.trim()).toBe(version)
      }
    }))
})

describe("design-search help", () => {
  /** Help as a terminal shows it (under `script`, which gives the child a pseudo-terminal). */
  const onTerminal = (args: string, env: Record<string, string> = {}) =>
    spawnSync("script", ["-qec", `${process.execPath} ${cliPath} ${args}`, "/dev/null"], {
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TERM: "xterm", ...env }
    }).stdout

  it.scopedLive("piped, help is plain text; its usage names the program; defaults and every option are described", () =>
    Effect.gen(function*() {
      const help = yield* run(["sandbox", "--help"])
      expect(help.code).toBe(0)
      expect(help.stdout).not.toContain("\u001b")
      expect(help.stdout).toContain("Usage: design-search sandbox")
      for (
        const text of [
          "default 8787",
          "default 127.0.0.1",
          `default ${Sandbox.defaults.designs}`,
          "default 1)",
          "default 3600",
          "default sandbox-client",
          "default sandbox-secret"
        ]
      ) {
        expect(help.stdout, text).toContain(text)
      }
      const search = yield* run(["search", "--help"])
      expect(search.stdout).toContain("Usage: design-search search")
      expect(search.stdout).toContain("default 20")
    }))

  it("on a terminal too, help is plain text", () => {
    const help = onTerminal("search --help")
    expect(help).toContain("Usage: design-search search")
    expect(help).not.toContain("\u001b[")
  })
})
