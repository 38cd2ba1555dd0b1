/**
 * The README's Effect 4 code. The lines between the markers below are the README's Effect 4 sandbox
 * test, with the package's subpath in place of the path of its source; the README's Effect 4 program
 * is test/consumer/effect4/program.ts below its opening comment (scripts/consumer-check.sh runs it in
 * a fresh Effect 4.1 project). The last tests fail when either differs.
 */
import * as fs from "node:fs"
// README: begin
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { DesignSearchClient, Sandbox } from "../../src/index.js"

const TestLayer = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer({ designs: 500, seed: 1 })))

describe("the application against the sandbox, on Effect 4", () => {
  it.effect("retries a gateway hiccup", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "design", status: 503, count: 2 })
      const client = yield* DesignSearchClient.DesignSearchClient
      const fiber = yield* Effect.forkChild(client.getDesign(Sandbox.fixedNumbers.chair))
      yield* TestClock.adjust("10 seconds") // the retries' backoff
      const { data } = yield* Fiber.join(fiber)
      expect(data.title).toBe("Chair")
      expect((yield* control.stats).requests.design).toBe(3)
    }).pipe(Effect.provide(TestLayer)))
})
// README: end

const readmeText = fs.readFileSync(new URL("../../README.md", import.meta.url), "utf8")
const ownText = fs.readFileSync(new URL(import.meta.url), "utf8")

/** The README's fenced TypeScript blocks, in order. */
const readmeBlocks = (): ReadonlyArray<string> =>
  Array.from(readmeText.matchAll(/^```ts\n([\s\S]*?)^```$/gm), (match) => match[1] ?? "")

describe("README, Effect 4", () => {
  it("shows this file's sandbox test as it is", () => {
    const begin = ownText.indexOf("// README: begin\n")
    const end = ownText.indexOf("// README: end\n")
    expect(begin).toBeGreaterThan(0)
    expect(end).toBeGreaterThan(begin)
    const tested = ownText.slice(begin + "// README: begin\n".length, end)
      .replace(`from "../../src/index.js"`, `from "effect-design-search/effect4"`)
    expect(readmeBlocks()).toContain(tested)
  })

  it("shows test/consumer/effect4/program.ts as its Effect 4 program", () => {
    const program = fs.readFileSync(new URL("../consumer/effect4/program.ts", import.meta.url), "utf8")
    expect(readmeBlocks()).toContain(program.slice(program.indexOf("*/\n") + "*/\n".length))
  })
})
