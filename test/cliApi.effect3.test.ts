/**
 * `design-search api`, the built CLI run as a child process: the answer's JSON on stdout (one line
 * when piped, indented on a terminal), non-2xx answers told on stderr with their exit codes, a
 * request refused before it is sent, and `--include` with no token in it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Sandbox } from "../src/index.js"
import { cliPath, envFor, freshFolder, run } from "./support/cli.effect3.js"

const { chair } = Sandbox.fixedNumbers
const secret = "cli-api-secret-8d2e"
const serve = (options: Sandbox.ServeOptions = {}) => Sandbox.serve({ port: 0, clientSecret: secret, ...options })
const nothingSent = { token: 0, search: 0, design: 0, advanced: 0, page: 0 }

describe("design-search api", () => {
  it.scopedLive("prints the answer's JSON on one line when piped, from the embedded sandbox by default", () =>
    Effect.gen(function*() {
      const outcome = yield* run(["api", "GET", `/design/${chair}`])
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stdout.trimEnd().split("\n")).toHaveLength(1)
      expect(JSON.parse(outcome.stdout)).toMatchObject({ number: chair, title: "Chair" })
      expect(outcome.stderr).toContain("embedded sandbox")
    }))

  it.scopedLive("sends --data as the body, and reads it from a file with @FILE", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const dir = yield* freshFolder
      const file = path.join(dir, "query.json")
      fs.writeFileSync(file, `{"query":"chair","filters":{"statusFilter":["REGISTERED"]}}`)
      const inline = yield* run(["api", "post", "/search/quick", "--data", `{"query":"chair"}`], envFor(served))
      const fromFile = yield* run(["api", "POST", "/search/quick", "--data", `@${file}`], envFor(served))
      expect(inline.code, inline.stderr).toBe(0)
      expect(JSON.parse(inline.stdout).designNumbers).toContain(chair)
      expect(fromFile.code, fromFile.stderr).toBe(0)
      const sent = yield* served.control.requests({ target: "search" })
      expect(sent.entries.map((e) => e.body)).toEqual([
        { query: "chair" },
        { query: "chair", filters: { statusFilter: ["REGISTERED"] } }
      ])
    }))

  it.scopedLive("indents the JSON on a terminal unless --json", () =>
    Effect.gen(function*() {
      const home = yield* freshFolder
      const onTerminal = (args: string) =>
        spawnSync("script", ["-qec", `${process.execPath} ${cliPath} ${args}`, "/dev/null"], {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", XDG_CACHE_HOME: home },
          encoding: "utf8",
          timeout: 20_000
        }).stdout.replace(/\r\n/g, "\n")
      const indented = onTerminal(`api GET /design/${chair}`)
      expect(indented).toContain(`{\n  "number": "${chair}",\n  "title": "Chair",`)
      const compact = onTerminal(`api GET /design/${chair} --json`)
      expect(compact).toContain(`{"number":"${chair}","title":"Chair",`)
    }))

  it.scopedLive("a 404 is told on stderr in one line, exit 1; a server's 400 and 422 are exit 1 too", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const missing = yield* run(["api", "GET", "/design/999999999"], envFor(served))
      expect([missing.code, missing.stdout]).toEqual([1, ""])
      expect(missing.stderr.trimEnd().split("\n").at(-1)).toMatch(/^design-search: not found \(HTTP 404\)/)
      for (const status of [400, 422]) {
        yield* served.control.injectFault({ target: "search", status })
        const refused = yield* run(["api", "POST", "/search/quick", "--data", "{}"], envFor(served))
        expect([refused.code, refused.stdout]).toEqual([1, ""])
        expect(refused.stderr).toContain(`HTTP ${status}`)
      }
    }))

  it.scopedLive("a request refused before it is sent is exit 2, and nothing reaches the service", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = envFor(served)
      const refusals = yield* Effect.all([
        run(["api", "POST", "/search/quick", "--data", `{"query":`], env),
        run(["api", "POST", "/search/quick", "--data", `@${path.join(os.tmpdir(), "no-such-query.json")}`], env),
        run(["api", "GET", "/design/1", "--data", "{}"], env),
        run(["api", "FETCH", "/design/1"], env),
        run(["api", "GET", "design/1"], env)
      ])
      for (const outcome of refusals) {
        expect([outcome.code, outcome.stdout], outcome.stderr).toEqual([2, ""])
        expect(outcome.stderr.trimEnd().split("\n").length).toBeLessThanOrEqual(2)
      }
      expect(refusals[0]?.stderr).toContain("--data is not JSON")
      expect((yield* served.control.stats).requests).toEqual(nothingSent)
    }))

  it.scopedLive("bad credentials are exit 3", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const outcome = yield* run(
        ["api", "GET", `/design/${chair}`],
        envFor(served, { IPAUSTRALIA_CLIENT_SECRET: "wrong" })
      )
      expect([outcome.code, outcome.stdout]).toEqual([3, ""])
    }))

  it.scopedLive("--include prints the status and headers first, with no form of the token in them", () =>
    Effect.gen(function*() {
      const served = yield* serve()
      const env = { ...envFor(served), XDG_CACHE_HOME: yield* freshFolder }
      const shown = yield* run(["token", "--show", "--json"], env)
      const token = (JSON.parse(shown.stdout) as { accessToken: string }).accessToken
      yield* served.control.injectFault({
        target: "design",
        status: 200,
        body: { number: chair, echo: token },
        headers: { "x-echo": `Bearer ${token}` }
      })
      const outcome = yield* run(["api", "GET", `/design/${chair}`, "--include"], env)
      expect(outcome.code, outcome.stderr).toBe(0)
      const [head = "", body = ""] = outcome.stdout.split("\n\n")
      expect(head.split("\n")[0]).toBe("HTTP 200")
      expect(head).toContain("x-echo: Bearer [redacted]")
      expect(JSON.parse(body)).toEqual({ number: chair, echo: "[redacted]" })
      expect(outcome.stdout + outcome.stderr).not.toContain(token)
      expect((yield* served.control.stats).tokensIssued).toBe(1)
    }))
})
