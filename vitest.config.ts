import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// .ci/run names a file for a JSON report
const report = process.env["TEST_REPORT"]

export default defineConfig({
  resolve: {
    // a module kept per edition, in its Effect 3 copy (as tsconfig.json's `paths` say)
    alias: [
      { find: /^#edition\/(.*)$/, replacement: fileURLToPath(new URL("./src/$1.effect3.ts", import.meta.url)) },
      { find: /^#test-edition\/(.*)$/, replacement: fileURLToPath(new URL("./test/$1.effect3.ts", import.meta.url)) }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    // the suite under Effect 4 runs on its own vitest: effect4/vitest.config.ts; a test of what only
    // Effect 4 has is named so
    exclude: ["test/effect4/**", "test/**/*.effect4.test.ts", "**/node_modules/**"],
    testTimeout: 30_000,
    // a worker per core, as Effect 4's vitest runs: vitest 3 leaves one core idle, half the machine on two
    maxWorkers: "100%",
    // what a test prints (the library's warnings about Redis, say) is shown only when it fails
    silent: "passed-only",
    ...(report === undefined ? {} : { reporters: ["default", "json"], outputFile: { json: `${report}-effect3.json` } })
  }
})
