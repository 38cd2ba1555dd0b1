import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    // what a test prints (the library's warnings about Redis, say) is shown only when it fails
    silent: "passed-only"
  }
})
