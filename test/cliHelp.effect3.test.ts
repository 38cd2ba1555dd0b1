/**
 * The built CLI's help and usage errors: each command's help fits a screen, describes every option
 * in its own words and offers only what the command takes (each option it shows is run); every
 * usage error is one line, exit 2, with the closest known name and the help to read.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { plan } from "../src/cli/Cli.js"
import { check, split } from "../src/cli/CommandLine.js"
import * as Inputs from "../src/cli/Inputs.js"
import { Sandbox } from "../src/index.js"
import { envFor, run, start } from "./support/cli.effect3.js"

const commands = ["search", "get", "export", "sync", "changes", "token", "sandbox", "record"] as const

/** The options a help lists, with the placeholder of the value each takes (none for a flag). */
const optionsOf = (help: string) =>
  [...help.matchAll(/^ {2}(--[a-z-]+)(?: ([A-Z_-]+|YYYY-MM-DD))? {2,}\S/gm)].map((m) => ({
    name: m[1] ?? "",
    placeholder: m[2]
  }))

/** A value each placeholder takes. */
const sample = (dir: string): Record<string, string> => ({
  WORDS: "wattle",
  NUMBER: Sandbox.fixedNumbers.chair,
  STATUS: "REGISTERED",
  CLASS: "06",
  "YYYY-MM-DD": "2019-01-01",
  ORDER: "-number",
  N: "1",
  ENV: "sandbox",
  FILE: path.join(dir, "out.jsonl"),
  CASSETTE: path.join(dir, "cassette.json"),
  PATH_OR_URL: path.join(dir, "mirror.db"),
  PORT: "0",
  ADDRESS: "127.0.0.1",
  ID: "id",
  SECRET: "secret",
  SECONDS: "60",
  FIELD: "designIds",
  DATE: "yesterday",
  KIND: "changed"
})

describe("design-search help", () => {
  it.scopedLive("each command's help fits a screen, describes each option in its own words, and ends with examples", () =>
    Effect.gen(function*() {
      const top = yield* run(["--help"])
      expect(top.code).toBe(0)
      for (const line of top.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100)
      for (const command of commands) expect(top.stdout).toMatch(new RegExp(`^ {2}${command} {2,}\\S`, "m"))
      for (const command of commands) {
        const help = yield* run([command, "--help"])
        expect(help.code, help.stderr).toBe(0)
        const text = help.stdout
        expect(text.trimEnd().split("\n").length, command).toBeLessThanOrEqual(60)
        for (const line of text.split("\n")) expect(line.length, `${command}: ${line}`).toBeLessThanOrEqual(100)
        expect(text).not.toMatch(/user-defined|piece of text|<[a-z]+>|\(text\)|\binteger\b/i)
        expect(text).toMatch(new RegExp(`^Usage: design-search ${command}`, "m"))
        expect(text.trimEnd()).toMatch(new RegExp(`Examples:\\n(  design-search ${command}.*\\n?)+$`))
        // Every option of the usage line has its row, and no two rows say the same.
        const usage = text.slice(text.indexOf("Usage:"), text.indexOf("\n\n", text.indexOf("Usage:")))
        const inUsage = [...usage.matchAll(/--[a-z-]+/g)].map((m) => m[0])
        const rows = optionsOf(text)
        expect(rows.map((r) => r.name).filter((n) => n !== "--help")).toEqual(inUsage)
        const descriptions = text.split("\n").filter((l) => /^ {2}--/.test(l)).map((l) =>
          l.replace(/^ {2}\S+( \S+)? +/, "")
        )
        expect(new Set(descriptions).size, command).toBe(descriptions.length)
        // Optional and repeatable options are shown optional; only --out, --db and record's --cassette are required.
        for (const name of inUsage) {
          const required = name === "--out" || name === "--db" || (command === "record" && name === "--cassette")
          expect(usage.includes(`[${name}`), `${command} ${name}`).toBe(!required)
        }
      }
      const search = (yield* run(["search", "--help"])).stdout
      expect(search).toContain("[--status STATUS]...")
      expect(search).toContain("[--class CLASS]...")
      expect(search).toMatch(/--limit N +how many hits the table shows[^\n]*\n?[^\n]*\(default 20\)/)
      expect(search).toMatch(/--quiet +print no line when a request waits/)
      expect((yield* run(["sync", "--help"])).stdout).not.toContain("--changed-since")
    }))

  it.scopedLive("every option a command's help shows is taken by that command", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "design-search-help-"))),
        (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
      )
      const values = sample(dir)
      fs.writeFileSync(values["CASSETTE"]!, JSON.stringify({ version: 1, exchanges: [] }))
      for (const command of commands) {
        const options = optionsOf((yield* run([command, "--help"])).stdout).filter((o) => o.name !== "--help")
        const args = [
          command,
          ...(command === "get" ? [Sandbox.fixedNumbers.chair] : []),
          ...options.flatMap((o) =>
            o.placeholder === undefined
              ? [o.name]
              : [o.name, o.name === "--rate" ? "0" : values[o.placeholder] ?? "?"]
          )
        ]
        expect(args, command).not.toContain("?")
        if (command === "sandbox") {
          const served = yield* start(args)
          yield* served.waitForOutput(({ stdout }) => stdout.includes("IPAUSTRALIA_BASE_URL="))
          yield* served.kill("SIGTERM")
          expect((yield* served.exit()).code).toBe(0)
        } else if (command === "record") {
          const served = yield* Sandbox.serve({ port: 0 })
          const outcome = yield* run([...args, "--", "search", "chair"], envFor(served))
          expect(outcome.code, `${args.join(" ")}\n${outcome.stderr}`).toBe(0)
        } else {
          const outcome = yield* run(args, {}, "60 seconds")
          expect(outcome.code, `${args.join(" ")}\n${outcome.stderr}`).toBe(0)
        }
      }
    }), 120_000) // a CLI process or two for each command, one after another: slow on a busy machine
})

describe("design-search usage errors", () => {
  it.scopedLive("each kind is one line, exit 2, with the closest known name and the help to read", () =>
    Effect.gen(function*() {
      for (
        const [args, line] of [
          [["serach", "chair"], "unknown command `serach`; did you mean `search`? See `design-search --help`"],
          [
            ["search", "chair", "--limt", "5"],
            "unknown option `--limt` for search; did you mean `--limit`? See `design-search search --help`"
          ],
          [
            ["search", "chair", "--env", "prod"],
            "`--env` takes one of sandbox, test, production; got `prod`. See `design-search search --help`"
          ],
          [
            ["export", "chair", "--out"],
            "`--out` needs a value (write --out=VALUE for a value that begins with --). See `design-search export --help`"
          ],
          [
            ["search", "-chair"],
            "unknown option `-chair` for search (a query that begins with - goes after --). See `design-search search --help`"
          ],
          [["get"], "`DESIGN_NUMBER` is needed. See `design-search get --help`"],
          [["export", "chair"], "`--out FILE` is needed. See `design-search export --help`"],
          [
            ["search", "red", "chair"],
            "unexpected argument `chair`: search takes one QUERY (quote words that go together). See `design-search search --help`"
          ],
          [["token", "--json=yes"], "`--json` takes no value; got `yes`. See `design-search token --help`"],
          [
            [],
            "a command is needed: one of search, get, export, sync, changes, watch, token, api, sandbox, mcp, record. See `design-search --help`"
          ],
          [
            ["record", "--cassette", "c.json"],
            "a command to record is needed after --. See `design-search record --help`"
          ],
          [
            ["record", "--cassette", "c.json", "--", "serach", "chair"],
            "unknown command `serach`; did you mean `search`? See `design-search --help`"
          ],
          [["record", "--", "search", "chair"], "`--cassette CASSETTE` is needed. See `design-search record --help`"],
          ...[["sandbox", "--port", "0"], ["record", "--cassette", "d.json", "--", "search", "chair"]].map((inner) =>
            [
              ["record", "--cassette", "c.json", "--", ...inner],
              `record runs a command that asks the service, not \`${
                inner[0]
              }\`: \`sandbox --cassette\` serves a cassette. See \`design-search record --help\``
            ] as const
          )
        ] as const
      ) {
        const outcome = yield* run(args)
        expect(outcome.code, args.join(" ")).toBe(2)
        expect(outcome.stdout).toBe("")
        expect(outcome.stderr).toBe(`design-search: ${line}\n`)
      }
    }))
})

describe("a command line checked against its command's declaration", () => {
  const searchOf = (args: ReadonlyArray<string>) =>
    check(Inputs.search, split(args, new Set(["status", "class", "limit", "env", "owner", "sort"])))

  it("a repeatable option keeps every value in order; another option given twice, the last one", () => {
    const input = Either.getOrThrow(
      searchOf(["--status", "A", "x", "--status=B", "--limit", "1", "--limit=2", "--env", "test", "--env", "sandbox"])
    )
    expect(input.status).toEqual(["A", "B"])
    expect(input.limit).toBe(2)
    expect(input.env).toEqual(Option.some("sandbox"))
    expect(input.query).toEqual(Option.some("x"))
    expect(input.classification).toEqual([])
    expect(input.owner).toEqual(Option.none())
    expect(input.json).toBe(false)
    expect(Either.getOrThrow(searchOf(["x"])).limit).toBe(20)
  })
})

describe("a command line checked whole when it is planned", () => {
  const search = "a search needs a query, or criteria: --owner, --designer, --product, --number, --class, --status"
  const both =
    "a query cannot be combined with --owner, --designer, --product or --number: give the query, or the criteria"

  it.scopedLive("a search with no query and no criteria, or both, is one line, exit 2: no banner, no configuration, no file", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "design-search-usage-"))
      const db = path.join(dir, "x.db")
      for (
        const [args, env, line] of [
          [["sync", "--db", db], {}, `${search}. See \`design-search sync --help\``],
          [["search"], {}, `${search}. See \`design-search search --help\``],
          [["search", "chair", "--owner", "x"], {}, `${both}. See \`design-search search --help\``],
          [["search", "--env", "production"], {}, `${search}. See \`design-search search --help\``],
          [
            ["export", "--out", path.join(dir, "x.jsonl")],
            { IPAUSTRALIA_ENV: "production" },
            `${search}. See \`design-search export --help\``
          ]
        ] as const
      ) {
        const outcome = yield* run(args, env)
        expect(outcome.code, args.join(" ")).toBe(2)
        expect(outcome.stdout).toBe("")
        expect(outcome.stderr).toBe(`design-search: ${line}\n`)
      }
      expect(fs.readdirSync(dir)).toEqual([])
      fs.rmSync(dir, { recursive: true, force: true })
    }))

  it.scopedLive("a bad value of a sandbox option is one line naming it, exit 2", () =>
    Effect.gen(function*() {
      for (
        const [args, line] of [
          [
            ["sandbox", "--client-secret", ""],
            "`--client-secret` takes a text, not empty, with no control character, line separator or direction mark; got ``"
          ],
          [
            ["sandbox", "--client-id", ""],
            "`--client-id` takes a text, not empty, with no control character, line separator or direction mark; got ``"
          ],
          [
            ["sandbox", "--host", "0.0.0.0"],
            "`--host` takes a loopback address (localhost, 127.0.0.1, ::1); got `0.0.0.0`"
          ]
        ] as const
      ) {
        const outcome = yield* run(args)
        expect(outcome.code, args.join(" ")).toBe(2)
        expect(outcome.stderr).toBe(`design-search: ${line}. See \`design-search sandbox --help\`\n`)
      }
    }))

  /** The usage error of `args`, or what they print (its first line), or "run". */
  const planned = (args: ReadonlyArray<string>) =>
    Either.match(plan(args, "0"), {
      onLeft: (e) => e.detail,
      onRight: (p) => (p._tag === "print" ? `print ${p.text.split("\n")[0]}` : "run")
    })

  it("an option no command has, before the command, is the mistake, with the closest of every command's options", () => {
    expect(planned(["--limt", "5", "search", "chair"])).toBe(
      "unknown option `--limt`; did you mean `--limit`? See `design-search search --help`"
    )
    expect(planned(["--foo"])).toBe("unknown option `--foo`. See `design-search --help`")
    expect(planned(["--hlep"])).toBe("unknown option `--hlep`; did you mean `--help`? See `design-search --help`")
    expect(planned(["--limt", "5", "--help"])).toMatch(/^print design-search: search IP/)
    expect(planned(["--env", "sandbox", "search", "chair"])).toBe("run")
    expect(planned(["serach", "--limt"])).toBe(
      "unknown command `serach`; did you mean `search`? See `design-search --help`"
    )
  })

  it("an option of another command says whose it is; hints only where the command takes a query", () => {
    expect(planned(["search", "chair", "--out", "x"])).toBe(
      "`--out` is an option of export and watch, not of search. See `design-search search --help`"
    )
    expect(planned(["get", "1", "--rate", "3"])).toBe(
      "`--rate` is an option of export and sync, not of get. See `design-search get --help`"
    )
    expect(planned(["get", "1", "--bogus"])).toBe("unknown option `--bogus` for get. See `design-search get --help`")
    expect(planned(["search", "chair", "--hlep"])).toBe(
      "unknown option `--hlep` for search; did you mean `--help`? See `design-search search --help`"
    )
    expect(planned(["token", "--halp"])).toBe(
      "unknown option `--halp` for token; did you mean `--help`? See `design-search token --help`"
    )
    expect(planned(["get", "201900001", "201900002"])).toBe(
      "unexpected argument `201900002`: get takes one DESIGN_NUMBER. See `design-search get --help`"
    )
  })

  it("--help or -h anywhere before -- is the help of the command named, even where an option would take it", () => {
    expect(planned(["search", "chair", "--status", "-h"])).toMatch(/^print design-search search:/)
    expect(planned(["search", "--limit", "--help"])).toMatch(/^print design-search search:/)
    expect(planned(["export", "x", "--out", "-h"])).toMatch(/^print design-search export:/)
    expect(planned(["export", "x", "--out=-h"])).toBe("run")
    expect(planned(["search", "--", "-h"])).toBe("run")
  })
})
