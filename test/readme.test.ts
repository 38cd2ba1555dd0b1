/**
 * The README's code, run as written. The lines between the markers below are the README's sandbox
 * test, with the package's name in place of the path of its source; the README's first example is
 * `examples/quick-search.ts`, below its opening comment. The last tests fail when either differs.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
// README: begin
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { DesignSearchClient, Sandbox } from "../src/index.js"

// The client over the in-process sandbox: no sockets, no credentials.
const TestLayer = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer({ designs: 500, seed: 1 })))

describe("the application against the sandbox", () => {
  it.effect("retries a gateway hiccup", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "design", status: 503, count: 2 })
      const client = yield* DesignSearchClient.DesignSearchClient
      const fiber = yield* Effect.fork(client.getDesign(Sandbox.fixedNumbers.chair))
      yield* TestClock.adjust("10 seconds") // the retries' backoff
      const { data } = yield* Fiber.join(fiber)
      expect(data.title).toBe("Chair")
      expect((yield* control.stats).requests.design).toBe(3)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("sends registered designs only; a failed search for bottles is retried", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      // A fault that matches requests: the next quick search for "bottle" gets a 503.
      yield* control.injectFault({ target: "search", status: 503, match: { body: { query: "bottle" } } })
      const client = yield* DesignSearchClient.DesignSearchClient
      const fiber = yield* Effect.fork(
        client.quickSearch({ query: "bottle", filters: { statusFilter: ["REGISTERED"] } })
      )
      yield* TestClock.adjust("10 seconds") // the retry's backoff
      yield* Fiber.join(fiber)
      // The journal: what the application sent, and which fault answered (none, the second time).
      const sent = yield* control.expectRequest({ target: "search", body: { "filters.statusFilter[0]": "REGISTERED" } })
      expect(sent.fault).toBeUndefined()
    }).pipe(Effect.provide(TestLayer)))
})
// README: end

const readmeText = fs.readFileSync(new URL("../README.md", import.meta.url), "utf8")
const ownText = fs.readFileSync(new URL(import.meta.url), "utf8")

/** The README's fenced TypeScript blocks, in order. */
const readmeBlocks = (): ReadonlyArray<string> =>
  Array.from(readmeText.matchAll(/^```ts\n([\s\S]*?)^```$/gm), (match) => match[1] ?? "")

/** The README's `text` blocks (sample output), in order. */
const readmeTexts = (): ReadonlyArray<string> =>
  Array.from(readmeText.matchAll(/^```text\n([\s\S]*?)^```$/gm), (match) => match[1] ?? "")

/** Node run in this repository on `args`, with no `IPAUSTRALIA_*` variable unless `env` sets one. */
const run = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("IPAUSTRALIA_")))
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, args, { cwd: new URL("..", import.meta.url), env: { ...base, ...env } }, (
      _,
      stdout,
      stderr
    ) => resolve({ code: child.exitCode, stdout, stderr }))
  })
}

describe("README", () => {
  it("shows this file's sandbox test as it is", () => {
    const begin = ownText.indexOf("// README: begin\n")
    const end = ownText.indexOf("// README: end\n")
    expect(begin).toBeGreaterThan(0)
    expect(end).toBeGreaterThan(begin)
    const tested = ownText.slice(begin + "// README: begin\n".length, end)
      .replace(`from "../src/index.js"`, `from "effect-design-search"`)
    expect(readmeBlocks()).toContain(tested)
  })

  it("shows examples/quick-search.ts as its first example", () => {
    const example = fs.readFileSync(new URL("../examples/quick-search.ts", import.meta.url), "utf8")
    const code = example.slice(example.indexOf("*/\n") + "*/\n".length)
    expect(readmeBlocks()[0]).toBe(code)
  })

  it("prints what it shows under its first example, which runs as written", async () => {
    const { code, stderr, stdout } = await run(["--import", "tsx", "examples/quick-search.ts"])
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
    expect(stdout).toBe(readmeTexts()[0])
  })

  it("tells what to do when the line that switches to the service finds no credentials", async () => {
    const [, switched] = readmeBlocks()
    const example = readmeBlocks()[0] ?? ""
    const line = "const ClientLayer = DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))"
    expect(example).toContain(line)
    expect(switched?.trim()).toMatch(/^const ClientLayer = /)
    const code = example.replace(line, switched?.trim() ?? "")
    const outcome = await run(["--input-type=module", "--eval", code])
    expect(outcome.code).toBe(1)
    const [, told] = readmeTexts()[1]?.split("\n") ?? []
    expect(outcome.stdout + outcome.stderr).not.toContain("FiberFailure")
    expect(outcome.stdout).toMatch(/^\[[\d:.]+\] ERROR \(#\d+\):\n/)
    expect(outcome.stdout).toContain(told)
  })

  it("links to each topic of docs/, and every file it links to exists", () => {
    const links = Array.from(
      readmeText.matchAll(/\]\(((?:docs|examples)\/?[^)#]*)(?:#[^)]*)?\)/g),
      (match) => match[1] ?? ""
    )
    for (const topic of ["cli", "library", "mirror", "fleet", "reliability", "errors", "performance"]) {
      expect(links).toContain(`docs/${topic}.md`)
    }
    for (const link of links) expect(fs.existsSync(new URL(`../${link}`, import.meta.url)), link).toBe(true)
  })

  it("stays within 300 lines, its title first and the two command lines under it", () => {
    const lines = readmeText.trimEnd().split("\n")
    expect(lines.length).toBeLessThanOrEqual(300)
    expect(lines[0]).toBe("# effect-design-search")
    const commands = readmeText.match(/^```sh\n([\s\S]*?)^```$/m)?.[1]?.trim().split("\n")
    expect(commands).toEqual([
      "npm install && npm run build && node dist/cli/main.js search chair",
      "./scripts/ensure-redis-server.sh && ./scripts/ensure-postgres.sh && npm install && npm test"
    ])
  })
})
