/**
 * The examples of README.md and docs/*.md, run against the sandbox's default dataset: each finds
 * what it says it finds, and shown output is what the command prints.
 *
 * Commands. In a fenced `sh` block, each line, or each part of a line joined by `&&`, that begins
 * with `design-search ` or `node dist/cli/main.js ` (a trailing `# comment` dropped). In a fenced
 * `console` block, each line `$ <command>` of those, whose output is the lines after it up to the
 * next `$ ` line or the end of the block. Each runs in `sh` in a fresh folder (with `dist` linked
 * into it, and `design-search` on the `PATH` as `node dist/cli/main.js`), with no `IPAUSTRALIA_*`
 * variable set: on the embedded sandbox, as the docs say. It must exit 0 and find something (a
 * `search` a count above 0, a `get` its design, a `sync` or an `export` designs); where the docs show
 * its output, stderr then stdout must be that output, trailing spaces aside. A command whose shown
 * output is a usage error (one line, `design-search: ... See \`design-search ... --help\``) must exit 2
 * with that output. The `sandbox` command
 * serves until stopped and is not run: the commands after it in its block (where `export
 * IPAUSTRALIA_...` lines point at it) run against `Sandbox.serve` with its defaults, and must print
 * what they print on the embedded sandbox. The CLI runs from `dist/`: `npm run build` first.
 *
 * Library examples. In fenced `ts` blocks, each object literal given to `quickSearch(`,
 * `advancedSearch(` or `sync(`, or declared as a `Designs.AdvancedSearchRequest`, is a request that
 * finds designs in `Sandbox.layer()`. The `text` block after the README's first example (which
 * test/readme.test.ts checks is examples/quick-search.ts) is what that example prints. Every
 * nine-digit design number the docs name is held by the default dataset, but `100000000`, the
 * README's number of a design the register does not hold.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as vm from "node:vm"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import type { Designs } from "../src/index.js"
import { cliPath } from "./support/cli.js"

const root = path.resolve(path.dirname(cliPath), "../..")
const docFiles = [
  "README.md",
  ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).sort()
    .map((f) => `docs/${f}`)
]
const texts = new Map(docFiles.map((file) => [file, fs.readFileSync(path.join(root, file), "utf8")]))

/** A fenced block of a document: its language, first line (1-based) and lines. */
interface Block {
  readonly file: string
  readonly lang: string
  readonly line: number
  readonly lines: ReadonlyArray<string>
}

const blocksOf = (file: string, text: string): ReadonlyArray<Block> => {
  const blocks: Array<Block> = []
  let open: { lang: string; line: number; lines: Array<string> } | undefined
  text.split("\n").forEach((line, i) => {
    const fence = /^```(\S*)\s*$/.exec(line)
    if (fence === null) open?.lines.push(line)
    else if (open === undefined) open = { lang: fence[1] ?? "", line: i + 2, lines: [] }
    else {
      blocks.push({ file, ...open })
      open = undefined
    }
  })
  return blocks
}
const blocks = docFiles.flatMap((file) => blocksOf(file, texts.get(file)!))

/** A command of the docs, where it is, the output they show, and whether it runs on a served sandbox. */
interface Example {
  readonly where: string
  readonly command: string
  readonly output: string | undefined
  readonly served: boolean
}

const cliCommand = /^(?:design-search|node dist\/cli\/main\.js) (.*)$/
const subcommandOf = (command: string) => cliCommand.exec(command)?.[1]?.split(/\s+/)[0] ?? ""

const examplesOf = (block: Block): ReadonlyArray<Example> => {
  const examples: Array<Example> = []
  let served = false
  block.lines.forEach((line, i) => {
    const where = `${block.file}:${block.line + i}`
    if (block.lang === "sh") {
      if (/^export IPAUSTRALIA_/.test(line)) served = true
      for (const part of line.replace(/\s+#.*$/, "").split("&&").map((p) => p.trim())) {
        if (!cliCommand.test(part)) continue
        if (subcommandOf(part) === "sandbox") served = true
        else examples.push({ where, command: part, output: undefined, served })
      }
    } else if (block.lang === "console" && line.startsWith("$ ") && cliCommand.test(line.slice(2))) {
      const rest = block.lines.slice(i + 1)
      const next = rest.findIndex((l) => l.startsWith("$ "))
      const output = (next === -1 ? rest : rest.slice(0, next)).join("\n")
      examples.push({ where, command: line.slice(2), output, served: false })
    }
  })
  return examples
}
const examples = blocks.flatMap(examplesOf)

interface Outcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** `command` in `sh`, in a fresh folder where `dist` and `design-search` are the built CLI, with `env`. */
const runCommand = (command: string, env: Record<string, string> = {}): Promise<Outcome> => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "design-search-docs-"))
  fs.symlinkSync(path.join(root, "dist"), path.join(folder, "dist"))
  fs.mkdirSync(path.join(folder, "bin"))
  fs.writeFileSync(
    path.join(folder, "bin", "design-search"),
    `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`,
    { mode: 0o755 }
  )
  const childEnv = {
    PATH: `${path.join(folder, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: folder,
    XDG_CACHE_HOME: path.join(folder, "cache"),
    ...env
  }
  return new Promise((resolve) =>
    execFile("/bin/sh", ["-c", command], { cwd: folder, env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
      fs.rmSync(folder, { recursive: true, force: true })
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    })
  )
}

/** How many designs a command's output says it found, by subcommand; a subcommand with no rule fails. */
const found = (command: string, outcome: Outcome): number => {
  const count = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0)
  switch (subcommandOf(command)) {
    case "search":
      return command.includes("--json")
        ? (JSON.parse(outcome.stdout) as { count: number }).count
        : count(outcome.stdout, /^(\d+) designs? match/m)
    case "get":
      return outcome.stdout.includes(command.split(/\s+/).find((word) => /^\d{9}$/.test(word)) ?? "?") ? 1 : 0
    case "sync":
      return count(outcome.stderr, /^synced (\d+) designs?/m)
    case "export":
      return count(outcome.stderr, /^exported (\d+) designs?/m)
    case "record":
      return found(`design-search ${command.slice(command.indexOf(" -- ") + 4)}`, outcome)
    default:
      throw new Error(`no rule for what \`${command}\` finds: add one to test/docsExamples.test.ts`)
  }
}

const trimLines = (text: string) => text.split("\n").map((line) => line.trimEnd()).join("\n").trim()

describe("the docs' commands, on the embedded sandbox", () => {
  it("are found in the docs: in sh and console blocks, with the output shown, and after a served sandbox", () => {
    expect(examples.map((e) => e.command)).toEqual(expect.arrayContaining([
      "node dist/cli/main.js search chair",
      "design-search sync --owner wattle --db designs.db"
    ]))
    expect(examples.filter((e) => e.output !== undefined).map((e) => e.where.split(":")[0])).toEqual([
      "README.md",
      "docs/cli.md",
      "docs/cli.md",
      "docs/cli.md",
      "docs/cli.md",
      "docs/cli.md",
      "docs/cli.md",
      "docs/cli.md"
    ])
    expect(examples.filter((e) => e.served).map((e) => e.command)).toEqual(["node dist/cli/main.js search chair"])
  })

  for (const example of examples.filter((e) => !e.served)) {
    it(`${example.where}: ${example.command}`, async () => {
      const outcome = await runCommand(example.command)
      const misuse = /^design-search: .*See `design-search [^`]*--help`$/.test(example.output ?? "")
      expect(outcome.code, outcome.stderr).toBe(misuse ? 2 : 0)
      if (!misuse) expect(found(example.command, outcome), outcome.stdout + outcome.stderr).toBeGreaterThan(0)
      if (example.output !== undefined) {
        expect(trimLines(outcome.stderr + outcome.stdout)).toBe(trimLines(example.output))
      }
    }, 60_000)
  }

  for (const example of examples.filter((e) => e.served)) {
    it.live(
      `${example.where}: ${example.command}, on a served sandbox as on the embedded one`,
      () =>
        Effect.gen(function*() {
          const served = yield* Sandbox.serve({ port: 0 })
          const env = {
            IPAUSTRALIA_CLIENT_ID: served.sandbox.clientId,
            IPAUSTRALIA_CLIENT_SECRET: served.sandbox.clientSecret,
            IPAUSTRALIA_AUTH_URL: served.url,
            IPAUSTRALIA_BASE_URL: served.baseUrl
          }
          const [over, embedded] = yield* Effect.promise(() =>
            Promise.all([runCommand(example.command, env), runCommand(example.command)])
          )
          expect(over.code, over.stderr).toBe(0)
          expect(found(example.command, over), over.stdout + over.stderr).toBeGreaterThan(0)
          expect(over.stdout).toBe(embedded.stdout)
        }).pipe(Effect.scoped),
      60_000
    )
  }
})

const inSandbox = <A, E>(effect: Effect.Effect<A, E, DesignSearchClient.DesignSearchClient>) =>
  effect.pipe(Effect.provide(DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))))

/** The object literal that opens at `text[start]`, up to its matching brace, as a value. */
const literalAt = (text: string, start: number): unknown => {
  let depth = 0
  for (let i = start; i < text.length; i++) {
    depth += text[i] === "{" ? 1 : text[i] === "}" ? -1 : 0
    if (depth === 0) return vm.runInNewContext(`(${text.slice(start, i + 1)})`)
  }
  throw new Error(`no end to the object literal at ${start}`)
}

/** The requests of the docs' TypeScript: where each is, and the request. */
const requests = blocks.filter((block) => block.lang === "ts").flatMap((block) => {
  const code = block.lines.join("\n")
  return Array.from(
    code.matchAll(/(?:quickSearch\(|advancedSearch\(|sync\(|: Designs\.AdvancedSearchRequest = )(?=\{)/g),
    (match) => ({
      where: `${block.file}:${block.line + code.slice(0, match.index).split("\n").length - 1}`,
      request: literalAt(code, match.index + match[0].length) as
        | Designs.QuickSearchRequest
        | Designs.AdvancedSearchRequest
    })
  )
})

describe("the docs' library examples, on Sandbox.layer()", () => {
  it("are found in the docs", () => {
    expect(new Set(requests.map((r) => r.where.split(":")[0]))).toEqual(
      new Set(["README.md", "docs/library.md", "docs/mirror.md"])
    )
  })

  for (const { request, where } of requests) {
    it.effect(`${where}: the request finds designs`, () =>
      inSandbox(Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        const { data } = "rows" in request ? yield* client.advancedSearch(request) : yield* client.quickSearch(request)
        expect(data.count).toBeGreaterThan(0)
        expect(data.designNumbers.length).toBeGreaterThan(0)
      })))
  }

  it("README's first example prints the output shown after it", async () => {
    const readme = blocks.filter((block) => block.file === "README.md")
    const first = readme.findIndex((block) => block.lang === "ts")
    expect(readme[first + 1]?.lang).toBe("text")
    const outcome = await new Promise<Outcome>((resolve) =>
      execFile(
        process.execPath,
        ["--import", "tsx", "examples/quick-search.ts"],
        { cwd: root, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : -1, stdout, stderr })
      )
    )
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(trimLines(outcome.stdout)).toBe(trimLines(readme[first + 1]!.lines.join("\n")))
  }, 60_000)

  it.effect("every design number the docs name is held by the default dataset", () =>
    inSandbox(Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const numbers = [...new Set([...texts.values()].flatMap((text) => text.match(/\b\d{9}\b/g) ?? []))]
        .filter((number) => number !== "100000000")
      expect(numbers).toEqual(expect.arrayContaining(Object.values(Sandbox.fixedNumbers)))
      for (const number of numbers) {
        const { data } = yield* client.getDesign(number)
        expect(data.number).toBe(number)
      }
    })))
})
