import { assert, describe, it } from "@effect/vitest"
import { Duration, Result, Schema } from "effect"
import type * as Wire from "../../src/core/wire/wire.js"
import { ApiError } from "../../src/index.js"

type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** Whether `A` and `B` are one type: identical (`readonly` too), and each assignable to the other. */
type Same<A, B> = [A, B] extends [B, A] ? Identical<A, B> : false

const decodePayload = Schema.decodeUnknownResult(ApiError.ErrorPayload)

describe("ApiError schemas (spec 7)", () => {
  it("describe the wire shapes of core (checked when the tests typecheck)", () => {
    const same: ReadonlyArray<true> = [
      true satisfies Same<ApiError.ErrorSource, Wire.ErrorSource>,
      true satisfies Same<ApiError.ErrorObject, Wire.ErrorObject>,
      true satisfies Same<ApiError.Message, Wire.Message>
    ]
    assert.notInclude(same, false)
  })

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
    assert.deepStrictEqual(Result.getOrThrow(decodePayload(body)), body)
  })

  it("detail and code are required; errors must be an array", () => {
    for (
      const bad of [{ errors: [{ code: "X" }] }, { errors: [{ detail: "X" }] }, { errors: { code: "X", detail: "Y" } }]
    ) {
      assert.isTrue(Result.isFailure(decodePayload(bad)))
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
  it("say what happened in their message", () => {
    const error = new ApiError.ServerError({
      status: 500,
      errors: [{ id: "1", code: "500", detail: "Internal Server Error" }],
      messages: [],
      excerpt: ""
    })
    assert.strictEqual(error.message, "server error (HTTP 500): 500: Internal Server Error")
    assert.include(String(error), "ServerError")
    const empty = new ApiError.ForbiddenError({ status: 403, errors: [], messages: [], excerpt: "" })
    assert.include(empty.message, "(empty body)")
  })

  it("keep the tags and fields of the Effect 3 edition", () => {
    const limited = new ApiError.RateLimitError({
      status: 429,
      errors: [{ code: "429", detail: "Too Many Requests", source: { parameter: "q" } }],
      messages: [],
      excerpt: "",
      retryAfter: Duration.seconds(15)
    })
    assert.strictEqual(limited._tag, "RateLimitError")
    assert.strictEqual(limited.message, "rate limited (HTTP 429, retry after 15s): 429 at q: Too Many Requests")
    const refused = new ApiError.ValidationError({
      origin: "client",
      errors: [{ code: "INVALID_FIELD", detail: "expected a query", source: { pointer: "/query" } }],
      messages: [],
      excerpt: ""
    })
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
    const transport = new ApiError.TransportError({
      reason: "Timeout",
      method: "GET",
      url: "https://x/y",
      detail: "30s"
    })
    assert.strictEqual(transport.message, "GET https://x/y failed (Timeout): 30s")
  })

  it("tell how many error objects they could not read", () => {
    const error = new ApiError.BadRequestError({
      status: 400,
      errors: [{ code: "BAD", detail: "no" }],
      messages: [],
      excerpt: "",
      unreadable: 2
    })
    assert.strictEqual(error.message, "bad request (HTTP 400): BAD: no (and 2 unreadable error or message objects)")
  })
})
