/**
 * The README's code, as written: its sandbox test of each edition is `test/readme/sandbox.effect3.ts`
 * or `sandbox.effect4.ts` between the markers, the package's name in place of the path of its source
 * (each suite runs its own, imported below); its first example `examples/quick-search.ts` and its
 * Effect 4 program `test/consumer/effect4/program.ts`, below their opening comments.
 */
import "#test-edition/readme/sandbox"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { readmeBlocks, texts } from "./support/docs.js"

const readmeText = texts.get("README.md")!

/** The code of a file of the repository below its opening comment. */
const belowComment = (file: string) => {
  const text = fs.readFileSync(new URL(`../${file}`, import.meta.url), "utf8")
  return text.slice(text.indexOf("*/\n") + "*/\n".length)
}

describe("README", () => {
  for (const [edition, name] of [[3, "effect-design-search"], [4, "effect-design-search/effect4"]] as const) {
    it(`shows the Effect ${edition} sandbox test of test/readme/sandbox.effect${edition}.ts as it is`, () => {
      const own = fs.readFileSync(new URL(`./readme/sandbox.effect${edition}.ts`, import.meta.url), "utf8")
      const begin = own.indexOf("// README: begin\n")
      const end = own.indexOf("// README: end\n")
      expect(begin).toBeGreaterThan(0)
      expect(end).toBeGreaterThan(begin)
      const tested = own.slice(begin + "// README: begin\n".length, end)
        .replace(`from "../../src/index.js"`, `from "${name}"`)
      expect(readmeBlocks("ts")).toContain(tested)
    })
  }

  it("shows examples/quick-search.ts as its first example", () => {
    expect(readmeBlocks("ts")[0]).toBe(belowComment("examples/quick-search.ts"))
  })

  it("shows test/consumer/effect4/program.ts as its Effect 4 program", () => {
    expect(readmeBlocks("ts")).toContain(belowComment("test/consumer/effect4/program.ts"))
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
