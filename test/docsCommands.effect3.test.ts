/**
 * The commands of README.md and docs/*.md, and the README's first example, run as their users run
 * them, on Effect 3 (the CLI's): each finds what it says it finds, and shown output is what it prints.
 * Commands. In a fenced `sh` block, each line, or each part of a line joined by `&&`, that begins
 * with `design-search ` or `node dist/cli/main.js ` (a trailing `# comment` dropped). In a fenced
 * `console` block, each line `$ <command>` of those, whose output is the lines after it up to the
 * next `$ ` line or the end of the block. Each runs in `sh` in a fresh folder (with `dist` linked
 * into it, and `design-search` on the `PATH` as `node dist/cli/main.js`), with no `IPAUSTRALIA_*`
 * variable set: on the embedded sandbox, as the docs say. It must exit 0 and find something (a
 * `search` a count above 0, a `get` its design, a `sync` or an `export` designs); where the docs show
 * its output, stderr then stdout must be that output, trailing spaces aside. A command whose shown
 * output is a usage error (one line, `design-search: ... See \`design-search ... --help\``) must exit 2
 * with that output. The `sandbox` command serves until stopped and is not run: the commands after it
 * in its block (where `export IPAUSTRALIA_...` lines point at it) run against `Sandbox.serve` with its
 * defaults, and must print what they print on the embedded sandbox. The CLI runs from `dist/`.
 * The README's first example prints the `text` block after it, and with the line that switches it to
 * the service it tells what to do when no credentials are set.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Sandbox } from "../src/index.js"
import { cliPath } from "./support/cli.effect3.js"
import { blocks, readmeBlocks, root, trimLines } from "./support/docs.js"
import type { Block } from "./support/docs.js"

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

type Outcome = { readonly code: number; readonly stdout: string; readonly stderr: string }

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
      throw new Error(`no rule for what \`${command}\` finds: add one to test/docsCommands.effect3.test.ts`)
  }
}

describe("the docs' commands, on the embedded sandbox", () => {
  it("are found in the docs: in sh and console blocks, with the output shown, and after a served sandbox", () => {
    expect(examples.map((e) => e.command)).toEqual(expect.arrayContaining([
      "node dist/cli/main.js search chair",
      "design-search sync --owner wattle --db designs.db"
    ]))
    expect(examples.filter((e) => e.output !== undefined).map((e) => e.where.split(":")[0])).toEqual([
      "README.md",
      ...Array<string>(10).fill("docs/cli.md")
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

/** Node run in this repository on `args`, with no `IPAUSTRALIA_*` variable. */
const run = (args: ReadonlyArray<string>) =>
  new Promise<Outcome>((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("IPAUSTRALIA_")))
    const child = execFile(process.execPath, args, { cwd: root, env, timeout: 60_000 }, (_, stdout, stderr) =>
      resolve({ code: child.exitCode ?? -1, stdout, stderr }))
  })

describe("the README's first example, run as written", () => {
  it("prints the output shown after it", async () => {
    const readme = blocks.filter((block) => block.file === "README.md")
    const first = readme.findIndex((block) => block.lang === "ts")
    expect(readme[first + 1]?.lang).toBe("text")
    const { code, stderr, stdout } = await run(["--import", "tsx", "examples/quick-search.ts"])
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
    expect(stdout).toBe(readmeBlocks("text")[0])
    expect(trimLines(stdout)).toBe(trimLines(readme[first + 1]!.lines.join("\n")))
  }, 60_000)

  it("tells what to do when the line that switches to the service finds no credentials", async () => {
    const [example = "", switched] = readmeBlocks("ts")
    const line = "const ClientLayer = DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))"
    expect(example).toContain(line)
    expect(switched?.trim()).toMatch(/^const ClientLayer = /)
    const outcome = await run(["--input-type=module", "--eval", example.replace(line, switched?.trim() ?? "")])
    expect(outcome.code).toBe(1)
    const [, told] = readmeBlocks("text")[1]?.split("\n") ?? []
    expect(outcome.stdout + outcome.stderr).not.toContain("FiberFailure")
    expect(outcome.stdout).toMatch(/^\[[\d:.]+\] ERROR \(#\d+\):\n/)
    expect(outcome.stdout).toContain(told)
  }, 60_000)
})
