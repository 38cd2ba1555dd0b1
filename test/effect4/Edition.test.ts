import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect"
import effectPackage from "effect/package.json" with { type: "json" }

// A subpath the edition's install does not export would quietly resolve from the root's effect 3.
describe("the Effect 4 edition's own install", () => {
  it("runs on effect 4.1", () => {
    assert.isTrue("Result" in Effect && !("Either" in Effect))
    assert.match(effectPackage.version, /^4\.1\./)
  })
})
