/**
 * Waits that speak: the built CLI tells each wait before another try on stderr as it begins, one
 * plain line when piped, none with `--quiet`; an unreachable service is told while retries go on.
 * Effect 3 only, as the CLI is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Option } from "effect"
import { spawn } from "node:child_process"
import * as net from "node:net"
import { teller, waitLine } from "../src/cli/Waits.js"
import { Sandbox } from "../src/index.js"
import { cliPath, envFor, run, start } from "./support/cli.effect3.js"

const waitPattern = (n: number) => new RegExp(`^the service answered 503; trying again in \\d+ms \\(${n} of 3\\)$`)

/** A loopback port nothing listens on: bound, then closed. */
const closedPort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** What the CLI writes on a terminal (under `script`, which gives it a pseudo-terminal), once it has exited. */
const onTerminal = (args: string, env: Record<string, string>) =>
  Effect.async<string>((resume) => {
    const child = spawn("script", ["-qec", `${process.execPath} ${cliPath} ${args}`, "/dev/null"], {
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TERM: "xterm", ...env },
      stdio: ["ignore", "pipe", "ignore"]
    })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (out += chunk))
    child.on("close", () => resume(Effect.succeed(out)))
    return Effect.sync(() => void child.kill("SIGKILL"))
  }).pipe(Effect.timeout("20 seconds"))

describe("design-search waits", () => {
  it.scopedLive("each retry is one line on stderr as it begins, (n of 3); none with --quiet", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      yield* served.control.injectFault({ target: "search", status: 503, count: 2 })
      const told = yield* run(["search", "chair", "--json"], envFor(served))
      expect(told.code, told.stderr).toBe(0)
      const lines = told.stderr.trimEnd().split("\n")
      expect(lines).toEqual([expect.stringMatching(waitPattern(1)), expect.stringMatching(waitPattern(2))])
      yield* served.control.injectFault({ target: "search", status: 503, count: 2 })
      const quiet = yield* run(["search", "chair", "--json", "--quiet"], envFor(served))
      expect(quiet.code, quiet.stderr).toBe(0)
      expect(quiet.stderr).toBe("")
      expect(quiet.stdout).toBe(told.stdout)
      expect((yield* served.control.stats).requests.search).toBe(6)
    }))

  it.scopedLive("on a terminal a wait is drawn in place, and erased by the next line", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      yield* served.control.injectFault({ target: "search", status: 503 })
      const shown = yield* onTerminal("search chair --limit 0", envFor(served))
      const erase = "\r\u001b[2K"
      expect(shown).toContain(`${erase}the service answered 503; trying again in `)
      expect(shown).toContain(`(1 of 3)${erase}`)
      expect(shown).not.toMatch(/\(1 of 3\)\r?\n/)
    }))

  it.scopedLive("an unreachable service is told at its first failure, while the retries go on", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const port = yield* closedPort
      const env = envFor(served, { IPAUSTRALIA_BASE_URL: `http://127.0.0.1:${port}/v1` })
      const cli = yield* start(["search", "chair"], env)
      yield* cli.waitForOutput(({ stderr }) => stderr.includes("\n"))
      // The first line is out, and the run goes on: its last line is not.
      const first = cli.output().stderr
      expect(first).toMatch(
        new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port}/v1/\\S*: .*; trying again in \\d+ms \\(1 of 3\\)\\n$`)
      )
      const outcome = yield* cli.exit()
      expect(outcome.code).toBe(1)
      const lines = outcome.stderr.trimEnd().split("\n")
      expect(lines.slice(0, 3).map((l) => l.slice(-8))).toEqual(["(1 of 3)", "(2 of 3)", "(3 of 3)"])
      expect(lines.slice(3)).toEqual([expect.stringMatching(/^design-search: /)])
    }))
})

describe("waitLine", () => {
  const annotations = (entries: Record<string, unknown>) => HashMap.fromIterable(Object.entries(entries))

  it("a retry is told at once, with its count; a wait on the budget only past a second; nothing else", () => {
    const retry = annotations({ retry: 2, waitMillis: 40, error: "ServerError" })
    expect(waitLine(["the service answered 503; trying again in 40ms"], retry)).toEqual(
      Option.some("the service answered 503; trying again in 40ms (2 of 3)")
    )
    const token = annotations({ retry: 1, waitMillis: 500, error: "TokenError" })
    expect(waitLine(["the token endpoint answered 503; trying again in 500ms"], token)).toEqual(
      Option.some("the token endpoint answered 503; trying again in 500ms (1 of 4)")
    )
    const budget = (waitMillis: number) => waitLine(["waiting for the rate budget; 2s"], annotations({ waitMillis }))
    expect(budget(1000)).toEqual(Option.none())
    expect(budget(2000)).toEqual(Option.some("waiting for the rate budget; 2s"))
    expect(waitLine(["connected"], annotations({}))).toEqual(Option.none())
  })
})

describe("teller", () => {
  const annotations = (entries: Record<string, unknown>) => HashMap.fromIterable(Object.entries(entries))
  const budget = (waitMillis: number) =>
    [[`waiting for the rate budget; ${waitMillis}ms`], annotations({ waitMillis })] as const

  it("a budget wait is told only once the last one told is over; every retry is told", () => {
    const tell = teller()
    const told = (waitMillis: number, now: number) => Option.isSome(tell(...budget(waitMillis), now))
    // Eight requests at once, each waiting for a later slot: one line.
    expect([2000, 5000, 8000, 11000, 14000, 17000, 20000, 23000].map((w) => told(w, 0))).toEqual(
      [true, false, false, false, false, false, false, false]
    )
    expect(told(3000, 1999)).toBe(false)
    expect(told(3000, 2000)).toBe(true)
    expect(told(1500, 4000)).toBe(false)
    // A wait too short to tell leaves the next one free to be told.
    expect(told(500, 5000)).toBe(false)
    expect(told(2000, 5000)).toBe(true)
    const retry = annotations({ retry: 1, waitMillis: 40, error: "ServerError" })
    expect(tell(["the service answered 503; trying again in 40ms"], retry, 5001)).toEqual(
      Option.some("the service answered 503; trying again in 40ms (1 of 3)")
    )
  })
})
