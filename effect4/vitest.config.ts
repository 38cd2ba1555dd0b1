import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vitest/config"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const anchor = here("./package.json")
const root = here("..")
const ownInstall = /^(effect|@effect\/[^/]+|vitest)(\/|$)/

// Bare imports of effect made by the repository's own files (the sources, the tests) resolve as if
// written in this folder, whose node_modules hold effect 4: Node's own lookup would find the root's
// effect 3.
const effect4Resolution: Plugin = {
  name: "effect4-resolution",
  enforce: "pre",
  resolveId(source, importer) {
    if (importer === undefined || !importer.startsWith(root) || importer.includes("/node_modules/")) return null
    if (!ownInstall.test(source)) return null
    return this.resolve(source, anchor, { skipSelf: true })
  }
}

// .ci/run names a file for a JSON report
const report = process.env["TEST_REPORT"]

export default defineConfig({
  root,
  plugins: [effect4Resolution],
  resolve: {
    // a module kept per edition, in its Effect 4 copy (as this folder's tsconfig.json's `paths` say)
    alias: [
      { find: /^#edition\/(.*)$/, replacement: `${here("../src/")}$1.effect4.ts` },
      { find: /^#test-edition\/(.*)$/, replacement: `${here("../test/")}$1.effect4.ts` }
    ]
  },
  test: {
    // the one suite, less what only Effect 3 has (the CLI, the SQLite mirror), named so
    include: ["test/**/*.test.ts"],
    exclude: ["test/**/*.effect3.test.ts", "test/consumer/**", "**/node_modules/**"],
    testTimeout: 30_000,
    silent: "passed-only",
    ...(report === undefined ? {} : { reporters: ["default", "json"], outputFile: { json: `${report}-effect4.json` } })
  }
})
