import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ApiError } from "../src/index.js"

const decodePayload = Schema.decodeUnknownEither(ApiError.ErrorPayload)

describe("ApiError schemas (spec 7)", () => {
  it("an error object keeps id, detail, code, source and extension attributes", () => {
    const body = {
      errors: [{
        id: "abc",
        detail: "Query is required",
        code: "MISSING",
        source: { pointer: "/query", parameter: "q", hint: 1 },
        help: "https://example.test/help"
      }]
    }
    const decoded = decodePayload(body)
    expect(decoded._tag).toBe("Right")
    if (decoded._tag === "Right") expect(decoded.right).toEqual(body)
  })

  it("detail and code are required; errors must be an array", () => {
    expect(decodePayload({ errors: [{ code: "X" }] })._tag).toBe("Left")
    expect(decodePayload({ errors: [{ detail: "X" }] })._tag).toBe("Left")
    expect(decodePayload({ errors: { code: "X", detail: "Y" } })._tag).toBe("Left")
  })

  it("messages keep their severity, known or not", () => {
    const decode = Schema.decodeUnknownSync(Schema.Array(ApiError.Message))
    const messages = [
      { code: "A", detail: "a", severity: "information" },
      { code: "B", detail: "b", severity: "warning" },
      { code: "C", detail: "c", severity: "critical" },
      { code: "D", detail: "d" }
    ]
    expect(decode(messages)).toEqual(messages)
  })

  it("errors say what happened in their message", () => {
    const error = new ApiError.ServerError({
      status: 500,
      errors: [{ id: "1", code: "500", detail: "Internal Server Error" }],
      messages: [],
      excerpt: ""
    })
    expect(error.message).toBe("server error (HTTP 500): 500: Internal Server Error")
    expect(String(error)).toContain("ServerError")
    const empty = new ApiError.ForbiddenError({ status: 403, errors: [], messages: [], excerpt: "" })
    expect(empty.message).toContain("(empty body)")
  })
})
