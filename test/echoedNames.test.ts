/**
 * Secrets echoed where HTTP changes their case, and statuses out of HTTP's range: a header whose
 * name holds the client secret or the token (which HTTP lower-cases) is kept by no cassette and no
 * journal, whatever the case; only 408, 429 and 500–599 are worth asking the token endpoint again.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { masked, maskOf } from "../src/core/mask/mask.js"
import { keptHeaders } from "../src/core/sandbox/cassette.js"
import { entryOf } from "../src/core/sandbox/journal.js"
import { statusErrorTag, tokenFailure } from "../src/core/wire/answers.js"

const secret = "Sandbox-Secret-9aF3kQ"
const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJBYkNkRWYifQ.SiGnAtUrE-PaRt"
/** A text holding `s`, its letters in any case. */
const holding = (s: string) =>
  fc.tuple(
    fc.string({ maxLength: 8 }),
    fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }),
    fc.string({ maxLength: 8 })
  )
    .map(([before, upper, after]) =>
      `x-${before}${[...s].map((c, i) => upper[i] ? c.toUpperCase() : c.toLowerCase()).join("")}${after}`
    )

describe("a secret in a header's name, in any case", () => {
  it("is never kept in a cassette's answer: the header is dropped", () => {
    const mask = maskOf([secret, token])
    fc.assert(fc.property(fc.oneof(holding(secret), holding(token)), (name) => {
      const kept = keptHeaders({ [name.toLowerCase()]: "1", [name]: "2", "x-plain": "3" }, mask)
      expect(kept).toEqual({ "x-plain": "3" })
    }))
  })

  it("is never kept in the journal: the name is redacted", () => {
    fc.assert(fc.property(holding(secret), (name) => {
      const entry = entryOf([secret], { method: "GET", url: "/design/1", headers: { [name.toLowerCase()]: "v" } }, {
        time: 0,
        path: "/design/1",
        target: undefined,
        body: undefined
      })
      expect(Object.keys(entry.headers)).toEqual([masked])
      expect(JSON.stringify(entry).toLowerCase()).not.toContain(secret.toLowerCase())
    }))
  })

  it("a name that holds no secret is kept as it is", () => {
    expect(keptHeaders({ "x-request-id": "abc", "content-type": "application/json" }, maskOf([secret]))).toEqual({
      "x-request-id": "abc",
      "content-type": "application/json"
    })
  })
})

describe("statuses", () => {
  it("only 408, 429 and 500–599 are transient at the token endpoint, and only 500–599 is a ServerError", () => {
    fc.assert(fc.property(fc.integer({ min: 100, max: 999 }), (status) => {
      const fivexx = status >= 500 && status <= 599
      expect(tokenFailure(status) === "Unavailable").toBe(status === 408 || status === 429 || fivexx)
      expect(statusErrorTag(status) === "ServerError").toBe(fivexx)
    }))
    expect(tokenFailure(600)).toBe("InvalidResponse")
  })
})
