import { decodeUnknownResult, Result } from "#edition/internal/seam"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Schema } from "effect"
import { ApiError } from "../src/index.js"

const decodePayload = decodeUnknownResult(ApiError.ErrorPayload)

describe("ApiError schemas (spec 7)", () => {
  it("an error object keeps id, detail, code, source and extension attributes", () => {
    const source = { pointer: "/query", parameter: "q", hint: 1 }
    const body = { errors: [{ id: "abc", detail: "Query is required", code: "MISSING", source, help: "https://x" }] }
    const decoded = decodePayload(body)
    assert.isTrue(Result.isSuccess(decoded))
    assert.deepStrictEqual(Result.getOrUndefined(decoded), body)
  })

  it("detail and code are required; errors must be an array", () => {
    for (const errors of [[{ code: "X" }], [{ detail: "X" }], { code: "X", detail: "Y" }]) {
      assert.isTrue(Result.isFailure(decodePayload({ errors })))
    }
  })

  it("messages keep their severity, known or not", () => {
    const messages = [
      { code: "A", detail: "a", severity: "information" },
      { code: "B", detail: "b", severity: "warning" },
      { code: "C", detail: "c", severity: "critical" },
      { code: "D", detail: "d" }
    ]
    assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.Array(ApiError.Message))(messages), messages)
  })
})

describe("ApiError errors", () => {
  const none = { messages: [], excerpt: "" }
  it("say what happened in their message", () => {
    const errors = [{ id: "1", code: "500", detail: "Internal Server Error" }]
    const error = new ApiError.ServerError({ status: 500, errors, ...none })
    assert.strictEqual(error.message, "server error (HTTP 500): 500: Internal Server Error")
    assert.include(String(error), "ServerError")
    const empty = new ApiError.ForbiddenError({ status: 403, errors: [], ...none })
    assert.include(empty.message, "(empty body)")
  })

  it("keep their tags and fields in either edition", () => {
    const errors = [{ code: "429", detail: "Too Many Requests", source: { parameter: "q" } }]
    const limited = new ApiError.RateLimitError({ status: 429, errors, ...none, retryAfter: Duration.seconds(15) })
    assert.strictEqual(limited._tag, "RateLimitError")
    assert.strictEqual(limited.message, "rate limited (HTTP 429, retry after 15s): 429 at q: Too Many Requests")
    const invalid = { code: "INVALID_FIELD", detail: "expected a query", source: { pointer: "/query" } }
    const refused = new ApiError.ValidationError({ origin: "client", errors: [invalid], ...none })
    assert.strictEqual(refused.message, "invalid request (not sent): INVALID_FIELD at /query: expected a query")
    const token = new ApiError.TokenError({
      reason: "InvalidCredentials",
      status: 400,
      error: "invalid_client",
      errorDescription: "Client authentication failed",
      detail: "refused"
    })
    assert.strictEqual(
      token.message,
      "token request failed, InvalidCredentials HTTP 400 (invalid_client: Client authentication failed): refused"
    )
    const timeout = { reason: "Timeout", method: "GET", url: "https://x/y", detail: "30s" } as const
    assert.strictEqual(new ApiError.TransportError(timeout).message, "GET https://x/y failed (Timeout): 30s")
  })

  it("tell how many error objects they could not read", () => {
    const errors = [{ code: "BAD", detail: "no" }]
    const error = new ApiError.BadRequestError({ status: 400, errors, ...none, unreadable: 2 })
    assert.strictEqual(error.message, "bad request (HTTP 400): BAD: no (and 2 unreadable error or message objects)")
  })
})
