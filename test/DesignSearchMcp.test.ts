/**
 * `DesignSearchMcp` in process, through the edition's own MCP server (and in Effect 4 its test
 * client), against the sandbox with faults: the tools, their answers and sizes, paging, failures as
 * `isError` results, refused arguments, and the mirror's tools on PostgreSQL (read only).
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { connect } from "#test-edition/support/mcp"
import type { McpClient } from "#test-edition/support/mcp"
import { edition } from "#test-edition/support/seam"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as DesignMirror from "../src/DesignMirror.js"
import * as DesignSearchMcp from "../src/DesignSearchMcp.js"
import { DesignSearchConfig, Sandbox } from "../src/index.js"
import type { Designs } from "../src/index.js"
import { compact } from "../src/internal/mcp/tools.js"
import { clientLayer, withTime } from "./support/layers.js"
import { apiRequests, databaseUrl, postgresAt, syncAll } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

const TestLayer = clientLayer({ sandbox: { designs: 500, seed: 1 } })
const served = <A, E, R>(f: (mcp: McpClient) => Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.flatMap(connect(DesignSearchMcp.layer()), f))

describe("DesignSearchMcp", () => {
  it.effect("lists search_designs and get_design, read-only, each with its arguments and an example", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const tools = yield* mcp.tools
        expect(tools.map((t) => t.name)).toEqual(["search_designs", "get_design"])
        for (const tool of tools) {
          expect(tool.annotations?.readOnlyHint).toBe(true)
          expect(tool.description).toMatch(/Example: \{/)
          expect(tool.inputSchema).toMatchObject({ type: "object" })
          if (edition === 4) expect(tool.outputSchema).toMatchObject({ type: "object" })
        }
        expect(Object.keys((tools[0]!.inputSchema as { properties: object }).properties)).toEqual(
          ["query", "owner", "designer", "product", "classification", "status", "changed_since", "limit", "cursor"]
        )
      })
    ).pipe(Effect.provide(TestLayer)))

  it.effect("pages with its cursor: 100 hits of criteria cost one request, every hit once, the last page no cursor", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const seen: Array<string> = []
        let cursor: string | undefined
        let count: number | undefined
        do {
          const before = yield* apiRequests
          const { structuredContent } = yield* mcp.call("search_designs", {
            status: ["REGISTERED"],
            limit: 100,
            ...(cursor === undefined ? {} : { cursor })
          })
          expect((yield* apiRequests) - before).toBe(1)
          const answer = structuredContent as { count: number; hits: Array<{ number: string }>; cursor?: string }
          count = answer.count
          seen.push(...answer.hits.map((h) => h.number))
          cursor = answer.cursor
        } while (cursor !== undefined)
        expect(count).toBeGreaterThan(100)
        expect(new Set(seen).size).toBe(count)
      })
    ).pipe(Effect.provide(TestLayer)))

  it.effect("a query's hits are the quick search's, with their number, title, status, first owner and classes", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const { structuredContent } = yield* mcp.call("search_designs", { query: "chair", status: ["REGISTERED"] })
        const answer = structuredContent as { count: number; hits: ReadonlyArray<Record<string, string>> }
        expect(answer.hits.find((h) => h["number"] === Sandbox.fixedNumbers.chair)).toEqual({
          number: "201900001",
          title: "Chair",
          status: "REGISTERED",
          owner: "Wattle Furniture Pty Ltd",
          classes: "06-01"
        })
        expect(answer.count).toBe(answer.hits.length)
        const none = yield* mcp.call("search_designs", { owner: "nobody-of-that-name" })
        expect(none).toMatchObject({
          isError: false,
          structuredContent: { count: 0, hits: [], note: "no design matches" }
        })
      })
    ).pipe(Effect.provide(TestLayer)))

  it.effect("a failure of the service is an isError result in one line, never an empty list; the server serves on", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const control = yield* Sandbox.SandboxControl
        yield* control.injectFault({ target: "page", status: 400, count: 1 })
        const failed = yield* mcp.call("search_designs", { owner: "wattle" })
        expect(failed.isError).toBe(true)
        expect(failed.text).toMatch(/^bad request \(HTTP 400\)/)
        expect(failed.text).not.toContain("\n")
        expect(failed.structuredContent).toBeUndefined()
        yield* control.injectFault({ target: "design", status: 503, count: 20 })
        const unavailable = yield* withTime(mcp.call("get_design", { number: "201900001" }), "10 minutes")
        expect(unavailable).toMatchObject({ isError: true, text: expect.stringMatching(/503/) })
        yield* control.reset
        const again = yield* mcp.call("search_designs", { owner: "wattle" })
        expect(again.isError).toBe(false)
        expect((again.structuredContent as { count: number }).count).toBeGreaterThan(0)
        expect(yield* mcp.call("get_design", { number: "999999999" })).toMatchObject({
          isError: true,
          text: expect.stringMatching(/^not found \(HTTP 404\)/)
        })
      })
    ).pipe(Effect.provide(TestLayer)))

  it.effect("refused arguments are isError results that name the argument, and nothing is sent", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const before = yield* apiRequests
        const refused = (name: string, args: object) => Effect.map(mcp.call(name, args), (r) => [r.isError, r.text])
        expect(yield* refused("search_designs", { owner: "wattle", limit: 101 })).toEqual(
          [true, "search_designs: invalid arguments: limit: expected a whole number from 1 to 100"]
        )
        expect((yield* refused("search_designs", { status: [] }))[1]).toMatch(/at least one criterion: query, owner/)
        expect((yield* refused("search_designs", { query: "chair", owner: "wattle" }))[1]).toMatch(/query is a search/)
        expect((yield* refused("search_designs", { owner: "x", cursor: "nope" }))[1]).toMatch(/cursor: not one/)
        expect((yield* refused("search_designs", { classification: ["chairs"] }))[1]).toMatch(/classification\.0: /)
        expect((yield* refused("search_designs", { changed_since: "2026-02-30" }))[1]).toMatch(/changed_since/)
        expect((yield* refused("get_design", {}))[1]).toMatch(/^get_design: invalid arguments: number: /)
        expect(yield* apiRequests).toBe(before)
      })
    ).pipe(Effect.provide(TestLayer)))

  it.effect("answers fit a context window: 20 hits in 6,000 bytes, a design in 3,000", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const search = yield* mcp.call("search_designs", { status: ["REGISTERED"] })
        expect((search.structuredContent as { hits: Array<unknown> }).hits).toHaveLength(20)
        expect(Buffer.byteLength(search.json)).toBeLessThanOrEqual(6000)
        const design = yield* mcp.call("get_design", { number: Sandbox.fixedNumbers.chair })
        expect(Buffer.byteLength(design.json)).toBeLessThanOrEqual(3000)
        expect(JSON.parse(yield* mcp.read(`design://${Sandbox.fixedNumbers.chair}`))).toMatchObject({
          number: "201900001",
          owners: [{ name: "Wattle Furniture Pty Ltd" }]
        })
      })
    ).pipe(Effect.provide(TestLayer)))

  it.effect("however long a record's texts and lists, 20 hits stay in 6,000 bytes and a design in 3,000", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const long = (n: number) => "\"Ünïcødé\\ ".repeat(n)
        const design = (i: number) => ({
          number: String(202000100 + i),
          title: long(40),
          status: "REGISTERED" + long(3),
          owners: Array.from({ length: 40 }, () => ({ name: long(20) })),
          designers: Array.from({ length: 40 }, () => ({ name: long(20) })),
          productNames: Array.from({ length: 50 }, () => long(10)),
          classifications: Array.from({ length: 29 }, (_, c) => ({ code: `${String(c).padStart(2, "0")}-01` })),
          extra: { deep: { deeper: [long(100)] } }
        })
        const control = yield* Sandbox.SandboxControl
        const designs = Array.from({ length: 20 }, (_, i) => design(i))
        yield* control.injectFault({ target: "page", status: 200, body: { count: 40, designs } })
        const search = yield* mcp.call("search_designs", { status: ["REGISTERED"] })
        expect((search.structuredContent as { hits: Array<unknown> }).hits).toHaveLength(20)
        expect(Buffer.byteLength(search.json)).toBeLessThanOrEqual(6000)
        yield* control.injectFault({ target: "design", status: 200, body: design(0) })
        const one = yield* mcp.call("get_design", { number: "202000100" })
        expect(Buffer.byteLength(one.json)).toBeLessThanOrEqual(3000)
        expect(one.structuredContent).toMatchObject({
          number: "202000100",
          left: expect.stringMatching(/left out for size/)
        })
      })
    ).pipe(Effect.provide(TestLayer)))

  it("a design cuts a long statement of newness and says so, and says when it names no party", () => {
    const long = compact({
      number: "202000001" as Designs.DesignNumber,
      title: "Lamp",
      statementOfNewness: "n".repeat(20_000)
    })
    expect(Buffer.byteLength(JSON.stringify(long)) * 2).toBeLessThanOrEqual(3000)
    expect(long).toMatchObject({
      cut: "statementOfNewness cut at 1200 of 20000 characters; design://202000001 has it whole",
      parties: expect.stringMatching(/names no owner or designer \(withheld or absent\): do not supply names/)
    })
    expect(compact({ number: "1" as Designs.DesignNumber, owners: [{ name: "A" }] })).not.toHaveProperty("parties")
  })

  it.effect("no secret or token is in any answer: a refused secret is told without it", () =>
    served((mcp) =>
      Effect.gen(function*() {
        const { clientSecret } = yield* DesignSearchConfig.DesignSearchConfig
        const answer = yield* mcp.call("get_design", { number: "201900001" })
        expect(answer).toMatchObject({ isError: true, text: expect.stringMatching(/token|credentials|client/i) })
        expect(answer.json).not.toContain(Redacted.value(clientSecret))
      })
    ).pipe(Effect.provide(clientLayer({ config: { clientSecret: Redacted.make("wrong-secret-7f3a9c") } }))))
})

layer(Pg.layer, { timeout: "120 seconds", excludeTestServices: true })("DesignSearchMcp over a mirror", (it) => {
  it.effect("mirror_query reads one SELECT, capped, refuses writes and never changes the mirror", () =>
    Effect.gen(function*() {
      const sql = postgresAt(yield* databaseUrl)
      yield* Effect.provide(syncAll, DesignMirror.layer().pipe(Layer.provideMerge(sql), Layer.provide(TestLayer)))
      const tools = DesignSearchMcp.layerMirror({ statementTimeoutMillis: 200 }).pipe(Layer.provide(sql))
      yield* Effect.scoped(Effect.gen(function*() {
        const mcp = yield* connect(tools)
        expect((yield* mcp.tools).map((t) => t.name)).toEqual(["mirror_query", "mirror_changes", "watch_report"])
        const count = () => mcp.call("mirror_query", { sql: "SELECT CAST(count(*) AS INTEGER) AS n FROM designs" })
        expect((yield* count()).structuredContent).toEqual({ columns: ["n"], rows: [[500]] })
        const capped = yield* mcp.call("mirror_query", { sql: "SELECT number FROM designs ORDER BY number;", limit: 3 })
        expect(capped.structuredContent).toMatchObject({
          columns: ["number"],
          truncated: expect.stringMatching(/^more than 3/)
        })
        for (
          const write of [
            "DELETE FROM designs",
            "SELECT 1; DELETE FROM designs",
            "WITH gone AS (DELETE FROM designs RETURNING number) SELECT * FROM gone",
            "SELECT 1) AS q; COMMIT; DROP TABLE designs; --",
            "SELECT nextval('x')",
            "SELECT pg_sleep(5)"
          ]
        ) {
          expect(yield* mcp.call("mirror_query", { sql: write })).toMatchObject({ isError: true })
        }
        expect((yield* mcp.call("mirror_query", { sql: "UPDATE designs SET title = 'x'" })).text).toMatch(
          /^mirror_query: only one read-only SELECT/
        )
        expect((yield* count()).structuredContent).toEqual({ columns: ["n"], rows: [[500]] })
        const changes = yield* mcp.call("mirror_changes", { kind: "new", limit: 2 })
        expect(changes.structuredContent).toMatchObject({ changes: [{ kind: "new" }, { kind: "new" }] })
        expect((yield* mcp.call("mirror_changes", { since: "someday" })).text).toMatch(/since: expected/)
        const schema = yield* mcp.read("design-mirror://schema")
        expect(schema).toMatch(/^The mirror's tables \(PostgreSQL/)
        expect(schema).toMatch(/designs\(number text, .*statement_of_newness text/)
        expect(schema).toMatch(/design_owners\(number text, position integer, name text, party jsonb\)/)
      }))
      const rows = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (s) => s`SELECT CAST(count(*) AS INTEGER) AS n FROM designs`),
        sql
      )
      expect(rows).toEqual([{ n: 500 }])
    }))
})
