/**
 * The queries of docs/mirror.md's "Queries", read from the doc and run as written on both engines,
 * over a mirror of the in-process sandbox synced three times: ten days ago (the designs filed before
 * 2020), an hour ago (every design), and now, after three registered designs were stored as `FILED`
 * and changed in the register. Each answer is checked against the sandbox's own data.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { TestClock } from "#test-edition/support/seam"
import { expect, layer } from "@effect/vitest"
import { DateTime, Effect, Layer, Stream } from "effect"
import * as fs from "node:fs"
import * as DesignMirror from "../src/DesignMirror.js"
import type { Designs } from "../src/index.js"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"
import { database, day, type Engine, engines, everything } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

/** The engines of a block of SQL, by its first line. */
const blockEngines: Partial<Record<string, ReadonlyArray<Engine>>> = {
  "-- SQLite and PostgreSQL": ["sqlite", "postgres"],
  "-- SQLite": ["sqlite"],
  "-- PostgreSQL": ["postgres"]
}

/** The doc's questions, in order: each heading and its SQL by engine. */
const questions = (() => {
  const doc = fs.readFileSync(new URL("../docs/mirror.md", import.meta.url), "utf8")
  const section = doc.slice(doc.indexOf("\n## Queries\n")).split(/\n## /)[1] ?? ""
  return section.split("\n### ").slice(1).map((part) => {
    const sql: Partial<Record<Engine, string>> = {}
    for (const [, block] of part.matchAll(/^```sql\n([\s\S]*?)^```$/gm)) {
      const [first = "", ...rest] = (block ?? "").split("\n")
      for (const engine of blockEngines[first] ?? []) sql[engine] = rest.join("\n")
    }
    return { heading: part.split("\n")[0] ?? "", sql }
  })
})()

const now = Date.now()
const date = (millis: number) => new Date(millis).toISOString().slice(0, 10)
const iso = (d: DateTime.Utc | undefined) => (d === undefined ? "" : DateTime.formatIsoDate(d))
const designCount = 2000
const before2020: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01", to: "2019-12-31" } } }]
}

/** A value of a row as text: a date at midnight as `YYYY-MM-DD`, an instant as ISO, a count as digits. */
const cell = (value: unknown): string =>
  value instanceof Date ? value.toISOString().replace("T00:00:00.000Z", "") : String(value)

/** Stores `number`'s design as `FILED`, as if the mirror had seen it before its registration. */
const storeAsFiled = (number: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ record: unknown }>`SELECT record FROM designs WHERE number = ${number}`
    const record = typeof row?.record === "string" ? JSON.parse(row.record) : row?.record
    const filed = JSON.stringify({ ...record, status: "FILED" })
    yield* sql`UPDATE designs SET record = ${filed}, status = 'FILED' WHERE number = ${number}`
  })

/**
 * The mirror synced three times (see above), the clock ten days ago; answers the sandbox's designs
 * and the times of the runs.
 */
const synced = Effect.gen(function*() {
  const mirror = yield* DesignMirror.DesignMirror
  yield* mirror.sync(before2020)
  const second = now - 3_600_000
  yield* TestClock.setTime(second)
  yield* mirror.sync(everything)
  const client = yield* DesignSearchClient.DesignSearchClient
  const registered = Array.from(yield* Stream.runCollect(client.advancedDesigns(everything)))
    .filter((d) => d.status === "REGISTERED" && iso(d.filingDate) >= "2020-01-01")
    .slice(0, 3).map((d) => d.number)
  yield* Effect.forEach(registered, storeAsFiled)
  yield* (yield* Sandbox.SandboxControl).touch(registered)
  yield* TestClock.setTime(now)
  yield* mirror.sync(everything)
  const designs = Array.from(yield* Stream.runCollect(client.advancedDesigns(everything)))
  return { designs, registered, second: new Date(second).toISOString(), third: new Date(now).toISOString() }
})

type Data = typeof synced extends Effect.Effect<infer A, infer _E, infer _R> ? A : never

/** What each question should answer, from the sandbox's data, in the doc's order. */
const expected: ReadonlyArray<(data: Data) => ReadonlyArray<ReadonlyArray<string>>> = [
  ({ designs }) =>
    designs.filter((d) =>
      d.status === "REGISTERED" && iso(d.filingDate) >= "2024-01-01" &&
      (d.owners ?? []).some((o) => o.name.toLowerCase().includes("wattle")) &&
      (d.classifications ?? []).some((c) => c.code.startsWith("06-01"))
    ).map((d) => [d.number, d.title ?? "", iso(d.filingDate)]).sort(),
  ({ designs, second }) =>
    designs.filter((d) => iso(d.filingDate) >= "2020-01-01").map((d) => [d.number, d.title ?? "", second]).sort(),
  ({ registered, third }) => registered.map((n) => [n, third, "FILED", "REGISTERED"]).sort(),
  ({ designs }) =>
    designs.filter((d) =>
      ["REGISTERED", "CERTIFIED"].includes(d.status ?? "") && iso(d.expiryDate) >= date(now) &&
      iso(d.expiryDate) <= date(now + 90 * day)
    ).sort((a, b) => iso(a.expiryDate).localeCompare(iso(b.expiryDate)) || a.number.localeCompare(b.number))
      .map((d) => [d.number, d.title ?? "", iso(d.expiryDate)]),
  ({ designs }) => {
    const counts = new Map<string, Set<string>>()
    for (const d of designs) {
      for (const c of d.classifications ?? []) {
        counts.set(c.code.slice(0, 2), (counts.get(c.code.slice(0, 2)) ?? new Set()).add(d.number))
      }
    }
    return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([code, numbers]) => [code, String(numbers.size)])
  }
]

layer(Pg.layer, { timeout: "180 seconds" })("docs/mirror.md's queries", (it) => {
  it("are the five questions, each in SQL for both engines", () => {
    expect(questions.map((q) => q.heading)).toEqual([
      "Registered designs of an owner in a class, filed since 2024",
      "New designs this week",
      "Status changes",
      "Designs expiring in the next 90 days",
      "Designs by Locarno class"
    ])
    for (const { sql } of questions) expect(Object.keys(sql).sort()).toEqual(["postgres", "sqlite"])
  })

  for (const engine of engines) {
    it.effect(`${engine}: each answers what the sandbox's data says`, () =>
      Effect.gen(function*() {
        // The pool's idle timers run on the clock: it is set before the pool is made, not moved 56 years after.
        yield* TestClock.setTime(now - 10 * day)
        const deps = Layer.merge(yield* database(engine), clientLayer({ sandbox: { designs: designCount } }))
        yield* Effect.gen(function*() {
          const data = yield* synced
          const sql = yield* SqlClient.SqlClient
          for (const [i, question] of questions.entries()) {
            const query = sql.unsafe<Record<string, unknown>>(question.sql[engine] ?? "")
            // On PostgreSQL, as the doc says, the mirror's schema first.
            const rows = yield* engine === "sqlite" ? query : sql.withTransaction(
              Effect.andThen(sql.unsafe("SET LOCAL search_path TO design_search, public"), query)
            )
            const answer = rows.map((row) => Object.values(row).map(cell))
            const want = expected[i]!(data)
            expect(want.length, question.heading).toBeGreaterThan(0)
            expect(answer, question.heading).toEqual(want)
          }
        }).pipe(Effect.provide(DesignMirror.layer().pipe(Layer.provideMerge(deps))))
      }).pipe(Effect.scoped), 180_000)
  }
})
