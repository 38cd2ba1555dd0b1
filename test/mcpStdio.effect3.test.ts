/**
 * `design-search mcp` as agents use it: the official MCP client (`@modelcontextprotocol/sdk`) over
 * stdio against the built CLI, on the embedded sandbox, on a served one with faults, and with a
 * SQLite mirror: the tools and their schemas, every call, paging, failures and refusals as
 * `isError` results, a refused write, and the server serving on after each.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Sandbox } from "../src/index.js"
import { cliPath, envFor, run } from "./support/cli.effect3.js"

type Result = {
  readonly isError?: boolean
  readonly content: Array<{ type: string; text?: string }>
  readonly structuredContent?: unknown
}
const secret = "mcp-test-secret-8d2e"

/** The official client on `design-search mcp args`, closed with the scope; what the server wrote on stderr. */
const connect = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "mcp", ...args],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DESIGN_SEARCH_NO_TOKEN_CACHE: "1", ...env },
      stderr: "pipe"
    })
    const stderr: Array<string> = []
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()))
    const client = new Client({ name: "test", version: "1.0.0" })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => client.close()))
    const call = (name: string, args: object) =>
      Effect.promise(() =>
        client.callTool({ name, arguments: args as Record<string, unknown> }) as Promise<Result>
      )
    return { client, call, stderr: () => stderr.join("") }
  })

const text = (r: Result) => r.content.map((c) => c.text ?? "").join("")

const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "design-search-mcp-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("design-search mcp", () => {
  it.scopedLive("serves the tools with their schemas on the embedded sandbox, and says so in its instructions only", () =>
    Effect.gen(function*() {
      const { call, client, stderr } = yield* connect([])
      expect(client.getInstructions()).toMatch(/EMBEDDED SANDBOX .* SIMULATED designs/)
      expect(client.getServerVersion()?.name).toBe("design-search")
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toEqual(["search_designs", "get_design"])
      for (const tool of tools) {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
        expect(tool.inputSchema.type).toBe("object")
        expect(tool.outputSchema?.type).toBe("object")
      }
      // The client checks each answer against the tool's output schema.
      const first = yield* call("search_designs", { owner: "wattle", limit: 5 })
      const page = first.structuredContent as { count: number; hits: Array<{ number: string }>; cursor: string }
      expect(page.hits).toHaveLength(5)
      expect(text(first).split("\n")).toEqual([
        `${page.count} designs match`,
        ...page.hits.map((h) =>
          expect.stringMatching(new RegExp(`^${h.number} \\| .+ \\| .+ \\| .+ \\| \\d{2}-\\d{2}`))
        ),
        `more: cursor ${page.cursor}`
      ])
      const next = (yield* call("search_designs", { owner: "wattle", cursor: page.cursor }))
        .structuredContent as typeof page
      expect(next.hits.map((h) => h.number)).not.toContain(page.hits[0]!.number)
      const design = yield* call("get_design", { number: Sandbox.fixedNumbers.chair })
      expect(design.structuredContent).toMatchObject({ title: "Chair", owners: ["Wattle Furniture Pty Ltd"] })
      const record = yield* Effect.promise(() => client.readResource({ uri: `design://${Sandbox.fixedNumbers.chair}` }))
      expect(record.contents[0]).toMatchObject({
        uri: "design://201900001",
        text: expect.stringContaining("Olivia Chen")
      })
      const refused = yield* call("search_designs", { owner: "wattle", limit: 1000 })
      expect(refused).toMatchObject({ isError: true })
      expect(text(refused)).toBe("search_designs: invalid arguments: limit: expected a whole number from 1 to 100")
      const missing = yield* call("get_design", { number: "000000001" })
      expect(missing.isError).toBe(true)
      expect(text(missing)).toMatch(/^not found \(HTTP 404\)/)
      expect((yield* call("get_design", { number: Sandbox.fixedNumbers.chair })).isError).toBe(false)
      expect(stderr()).toMatch(/using the embedded sandbox/)
    }))

  it.scopedLive("a failing service is an isError result in the CLI's words, with no secret, and the server serves on", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, clientSecret: secret })
      const { call, client } = yield* connect([], envFor(served, { IPAUSTRALIA_ENV: "test" }))
      expect(client.getInstructions()).toMatch(/^Data: IP Australia's Design Search API/)
      yield* served.control.injectFault({ target: "page", status: 403, count: 1 })
      yield* served.control.injectFault({ target: "advanced", status: 403, count: 1 })
      const forbidden = yield* call("search_designs", { owner: "wattle" })
      expect(forbidden.isError).toBe(true)
      expect(text(forbidden)).toMatch(/^forbidden \(HTTP 403\).*; the credentials are valid but not entitled/)
      yield* served.control.revokeTokens
      yield* served.control.injectFault({ target: "token", status: 401, count: 5 })
      const refused = yield* call("get_design", { number: Sandbox.fixedNumbers.chair })
      expect(refused.isError).toBe(true)
      expect(JSON.stringify(refused)).not.toContain(secret)
      yield* served.control.reset
      expect((yield* call("search_designs", { owner: "wattle" })).isError).toBe(false)
    }))

  it.scopedLive("with --db, mirror_query reads a SQLite mirror read-only and refuses a write; mirror_changes tells its syncs", () =>
    Effect.gen(function*() {
      const db = path.join(yield* tempDir, "designs.db")
      expect((yield* run(["sync", "--owner", "wattle", "--db", db])).code).toBe(0)
      const { call, client } = yield* connect(["--db", db])
      expect(client.getInstructions()).toMatch(/mirror_query runs read-only SQL/)
      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name)).toEqual([
        "search_designs",
        "get_design",
        "mirror_query",
        "mirror_changes",
        "watch_report"
      ])
      const count = () => call("mirror_query", { sql: "SELECT count(*) AS n FROM designs" })
      expect((yield* count()).structuredContent).toEqual({ columns: ["n"], rows: [[18]] })
      for (
        const sql of ["DELETE FROM designs", "SELECT 1; DELETE FROM designs", "SELECT 1) AS q; DELETE FROM designs; --"]
      ) {
        expect(yield* call("mirror_query", { sql })).toMatchObject({ isError: true })
      }
      expect((yield* count()).structuredContent).toEqual({ columns: ["n"], rows: [[18]] })
      const changes = (yield* call("mirror_changes", {})).structuredContent as { changes: Array<{ kind: string }> }
      expect(changes.changes).toHaveLength(18)
      expect(changes.changes.every((c) => c.kind === "new")).toBe(true)
      const schema = yield* Effect.promise(() => client.readResource({ uri: "design-mirror://schema" }))
      expect(JSON.stringify(schema.contents)).toMatch(
        /design_owners\(number TEXT, position INTEGER, name TEXT, party TEXT\)/
      )
    }))

  it.scopedLive("with --db, watch_report reads a watch's events as watch report writes them", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 300 })
      const env = envFor(served)
      const db = path.join(yield* tempDir, "designs.db")
      const watch = (...args: Array<string>) => run(["watch", ...args, "--db", db], env, "60 seconds")
      expect((yield* watch("add", "live", "--status", "FILED", "--status", "REGISTERED")).code).toBe(0)
      expect((yield* watch("run")).code).toBe(0)
      yield* served.control.advance("120 days")
      expect((yield* watch("run")).code).toBe(0)
      const written = (yield* watch("report", "live", "--format", "json")).stdout.trim().split("\n")
      const { call } = yield* connect(["--db", db], env)
      const answer = (yield* call("watch_report", { name: "live" })).structuredContent as {
        events: Array<{ number: string; event: string }>
      }
      expect(answer.events.length).toBeGreaterThan(0)
      expect(answer.events.map((e) => `${e.event} ${e.number}`)).toEqual(
        written.map((l) => JSON.parse(l) as { number: string; event: string }).map((e) => `${e.event} ${e.number}`)
      )
      expect(yield* call("watch_report", { name: "live", since: "soon" })).toMatchObject({ isError: true })
      // a watch the mirror has not is a failure, never an empty list of events
      const unknown = yield* call("watch_report", { name: "nope" })
      expect(unknown).toMatchObject({ isError: true })
      expect(unknown.content[0]?.text).toMatch(/no watch named "nope"/)
    }))

  it.scopedLive("ends when its client closes stdin; a mirror it cannot open ends it before it serves", () =>
    Effect.gen(function*() {
      const outcome = yield* run(["mcp"], {}, "20 seconds")
      expect(outcome.code).toBe(0)
      expect(outcome.stdout).toBe("")
      const missing = path.join(yield* tempDir, "none.db")
      const refused = yield* run(["mcp", "--db", missing], {}, "20 seconds")
      expect([refused.code, refused.stdout]).toEqual([1, ""])
      expect(refused.stderr).toContain(
        `design-search: the mirror's database failed: not a mirror: ${missing} does not exist\n`
      )
      expect(fs.existsSync(missing)).toBe(false)
    }))
})

describe("design-search mcp, fed lines no client should send", () => {
  it.scopedLive("answers each with its JSON-RPC error, writes nothing else on stdout, and serves on", () =>
    Effect.gen(function*() {
      const { spawn } = yield* Effect.promise(() => import("node:child_process"))
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [cliPath, "mcp"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } })
        ),
        (c) => Effect.sync(() => void c.kill("SIGKILL"))
      )
      const lines = [
        "{not json",
        "",
        `{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
        `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
        `{"jsonrpc":"2.0","id":2,"method":"no/such"}`,
        `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_designs"}}`,
        `{"jsonrpc":"2.0","id":7,"method":"ping"}`
      ]
      const stdout = yield* Effect.async<string>((resume) => {
        let out = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk
          if (out.includes(`"id":7`)) resume(Effect.succeed(out))
        })
        child.stdin.write(lines.join("\n") + "\n")
      }).pipe(Effect.timeout("20 seconds"))
      const answers = stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } })
      expect(answers.map((a) => [a.id, a.error?.code])).toEqual([
        [null, -32700],
        ["abc", -32600],
        [1.5, -32600],
        [2, -32601],
        [3, undefined],
        [7, undefined]
      ])
      expect(JSON.stringify(answers[4])).toMatch(/"isError":true.*criterion|criterion.*"isError":true/)
    }))
})
