/**
 * The library examples of README.md and docs/*.md, run against the sandbox's default dataset. In
 * fenced `ts` blocks, each object literal given to `quickSearch(`, `advancedSearch(` or `sync(`, or
 * declared as a `Designs.AdvancedSearchRequest`, is a request that finds designs in
 * `Sandbox.layer()`. Every nine-digit design number the docs name is held by the default dataset,
 * but `100000000`, the README's number of a design the register does not hold. The README's design
 * watch, its register advanced, changes each design as its sample shows (test/changes.effect3.test.ts
 * runs the CLI over it). The docs' commands are test/docsCommands.effect3.test.ts's.
 */
import { TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as vm from "node:vm"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import type { Designs } from "../src/index.js"
import { blocks, texts } from "./support/docs.js"

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

describe("the README's design watch, on Sandbox.layer()", () => {
  const readme = texts.get("README.md")!
  const sample = /`design-search changes --db designs.db`[^`]*:\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
  const days = Number(/POST \/__sandbox\/advance` with `\{"days": (\d+)\}`/.exec(readme)?.[1])
  const [, code] = /`design-search sync --class (\d+) --db designs\.db`/.exec(readme) ?? []

  it.effect("advancing the register changes the designs of the class as the sample's lines say, field by field", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const page = (since?: string) =>
        Effect.map(
          client.searchPage({
            rows: [{ op: "AND", query: { classification: code! } }],
            pageNumber: 0,
            pageSize: 100,
            ...(since === undefined ? {} : { changedSinceDate: since })
          }),
          ({ data }) => data.designs
        )
      yield* TestClock.setTime(Date.UTC(2026, 11, 2, 6))
      const before = new Map<string, Designs.Design>((yield* page()).map((d) => [d.number, d]))
      yield* Effect.flatMap(Sandbox.SandboxControl, (control) => control.advance(Duration.days(days)))
      const moved = new Map<string, Designs.Design>((yield* page("2026-12-02")).map((d) => [d.number, d]))
      const lines = sample.trim().split("\n")
      expect(lines.length).toBeGreaterThan(1)
      expect([...moved.keys()].sort()).toEqual(lines.map((line) => line.split(/\s+/)[1]).sort())
      const shown = (design: Designs.Design | undefined, field: string) =>
        field === "owners"
          ? design?.owners?.map((o) => o.name).join(", ")
          : field === "status"
          ? design?.status
          : design?.[field] === undefined
          ? "-"
          : JSON.stringify(design[field]).slice(1, 11)
      const fields = lines.flatMap((line) => {
        const [, number = "", what = ""] = /^\S+ {2}(\d+) {2}(.*)$/.exec(line) ?? []
        return what.split("; ").map((part) => [number, ...(/^(\w+) (.*) → (.*)$/.exec(part) ?? []).slice(1)])
      })
      for (const [number = "", field = "", old, now] of fields) {
        expect(shown(before.get(number), field), `${number} ${field}`).toBe(old)
        expect(shown(moved.get(number), field), `${number} ${field}`).toBe(now)
      }
      expect(new Set(fields.map(([, field]) => field))).toEqual(
        new Set(["owners", "status", "lastChanged", "registrationDate"])
      )
    }).pipe(Effect.provide(DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer())))))
})
