import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vitest/config"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))
const anchor = here("./package.json")
const edition = /[\\/](src|test|bench)[\\/]effect4[\\/]/
const ownInstall = /^(effect|@effect\/[^/]+|vitest)(\/|$)/

// Bare imports made by the edition's sources and tests resolve as if written in this folder, whose
// node_modules hold effect 4: Node's own lookup from src/effect4 would find the root's effect 3.
const effect4Resolution: Plugin = {
  name: "effect4-resolution",
  enforce: "pre",
  resolveId(source, importer) {
    if (importer === undefined || !edition.test(importer) || !ownInstall.test(source)) return null
    return this.resolve(source, anchor, { skipSelf: true })
  }
}

// .ci/run names a file for a JSON report
const report = process.env["TEST_REPORT"]

export default defineConfig({
  root: here(".."),
  plugins: [effect4Resolution],
  test: {
    include: ["test/effect4/**/*.test.ts"],
    testTimeout: 30_000,
    silent: "passed-only",
    ...(report === undefined ? {} : { reporters: ["default", "json"], outputFile: { json: `${report}-effect4.json` } })
  }
})
