/**
 * The token endpoint's protocol in the Effect 4 edition (`internal/token/endpoint.ts`): what each
 * answer means (`interpret`), the client-credentials request, what a request that brought back no
 * answer becomes (`sendFailure`), and one `requestToken` through an `HttpClient` of the test's own.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Fiber, Redacted, Result } from "effect"
import { Headers, HttpClient, HttpClientResponse } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as ApiError from "../../src/ApiError.js"
import { interpret, requestToken, sendFailure, tokenRequest } from "../../src/internal/token/endpoint.js"

const sentAt = DateTime.makeUnsafe(1_700_000_000_000)
const tokenValue = "tok-4f3a9c-very-secret"
const tokenUrl = "https://auth.example/oauth2/token"
const token = { access_token: tokenValue, expires_in: 3600, token_type: "Bearer" }

const interpreted = (status: number, text: string, headers: Headers.Input = {}) =>
  interpret({ status, text, headers: Headers.fromInput(headers) }, sentAt, [])

/** The error of an answer that must be one. */
const errorOf = (status: number, text: string, headers: Headers.Input = {}): ApiError.TokenError => {
  const result = interpreted(status, text, headers)
  assert.isTrue(Result.isFailure(result), "expected a TokenError, got a token")
  return Result.isFailure(result) ? result.failure : new ApiError.TokenError({ reason: "Unavailable", detail: "" })
}

describe("interpret", () => {
  it.each(
    [
      [200, { ...token }, 3600, "Bearer"],
      [200, { ...token, expires_in: "1800", token_type: "bearer" }, 1800, "bearer"],
      [201, { ...token, access_token: "a.B-c_d~e+f/g==", expires_in: 1, token_type: "BEARER", scope: "x" }, 1, "BEARER"]
    ] as const
  )(
    "a %i token response: a token issued when its request was sent, expiring expires_in later",
    (status, body, seconds, type) => {
      const result = interpreted(status, JSON.stringify(body))
      assert.isTrue(Result.isSuccess(result))
      if (Result.isFailure(result)) return
      assert.strictEqual(Redacted.value(result.success.token), body.access_token)
      assert.strictEqual(result.success.tokenType, type)
      assert.strictEqual(DateTime.toEpochMillis(result.success.issuedAt), DateTime.toEpochMillis(sentAt))
      assert.strictEqual(
        DateTime.toEpochMillis(result.success.expiresAt),
        DateTime.toEpochMillis(sentAt) + seconds * 1000
      )
    }
  )

  it.each(
    [
      ["HTML", "<html><body>Welcome</body></html>", ""],
      ["a JSON array holding the token", JSON.stringify([tokenValue]), ""],
      ["expires_in 0", JSON.stringify({ ...token, expires_in: 0 }), "expires_in"],
      ["token_type MAC", JSON.stringify({ ...token, token_type: "MAC" }), "expected Bearer"],
      [
        "an access_token that would split the header",
        JSON.stringify({ ...token, access_token: tokenValue + "\r\nX: 1" }),
        "b64token"
      ],
      ["an access_token with a space", JSON.stringify({ ...token, access_token: "987654321012 x" }), "b64token"],
      ["an access_token that is no string", JSON.stringify({ ...token, access_token: 987654321012 }), "access_token"]
    ] as const
  )("a 200 with %s is InvalidResponse, never telling the token", (_, text, told) => {
    const error = errorOf(200, text)
    expect(error).toMatchObject({ reason: "InvalidResponse", status: 200 })
    assert.match(error.detail, /^not a token response: /)
    assert.include(error.detail, told)
    for (const shown of [error.detail, error.message, String(error), JSON.stringify(error)]) {
      assert.notInclude(shown, tokenValue)
      assert.notInclude(shown, "987654321012")
    }
  })

  it.each([400, 401, 403])("%i is InvalidCredentials, with the RFC 6749 fields of its body", (status) => {
    const body = JSON.stringify({ error: "invalid_client", error_description: "Client authentication failed" })
    expect(errorOf(status, body)).toMatchObject({
      reason: "InvalidCredentials",
      status,
      error: "invalid_client",
      errorDescription: "Client authentication failed",
      detail: "the token endpoint refused the client credentials"
    })
    const html = errorOf(status, "<html>Unauthorized</html>")
    expect(html).toMatchObject({ reason: "InvalidCredentials", status })
    assert.isUndefined(html.error)
  })

  it.each(
    [[408, "", "no body"], [429, "slow down", "slow down"], [
      500,
      "<html>Internal\nError</html>",
      "<html>Internal Error</html>"
    ]] as const
  )(
    "%i is Unavailable, its body the detail",
    (status, text, detail) => expect(errorOf(status, text)).toMatchObject({ reason: "Unavailable", status, detail })
  )

  it("a 429's Retry-After, in seconds or as a date, is its retryAfter; no other status has one", () => {
    assert.deepStrictEqual(errorOf(429, "", { "retry-after": "20" }).retryAfter, Duration.seconds(20))
    const date = new Date(DateTime.toEpochMillis(sentAt) + 7000).toUTCString()
    assert.deepStrictEqual(errorOf(429, "", { "retry-after": date }).retryAfter, Duration.seconds(7))
    assert.isUndefined(errorOf(429, "").retryAfter)
    assert.isUndefined(errorOf(503, "", { "retry-after": "20" }).retryAfter)
  })

  it.each(
    [[302, "", "unexpected status 302: no body"], [418, "I'm a teapot", "unexpected status 418: I'm a teapot"]] as const
  )(
    "%i is InvalidResponse: unexpected status",
    (status, text, detail) => expect(errorOf(status, text)).toMatchObject({ reason: "InvalidResponse", status, detail })
  )
})

/** The form fields of a request's body, in order. */
const fieldsOf = (request: HttpClientRequest.HttpClientRequest): ReadonlyArray<readonly [string, string]> => [
  ...new URLSearchParams(request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : "")
]

describe("tokenRequest", () => {
  it("a form POST to the token URL itself, with exactly the three client-credentials fields, encoded", () => {
    const secret = "p&ss=w+rd with spaces%20&grant_type=password"
    const call = tokenRequest(tokenUrl, { clientId: "client id+1", clientSecret: Redacted.make(secret) })
    assert.deepStrictEqual([call.method, call.url, call.headers["accept"]], ["POST", tokenUrl, "application/json"])
    assert.strictEqual(call.body._tag === "Uint8Array" && call.body.contentType, "application/x-www-form-urlencoded")
    assert.deepStrictEqual(fieldsOf(call), [
      ["grant_type", "client_credentials"],
      ["client_id", "client id+1"],
      ["client_secret", secret]
    ])
  })
})

describe("sendFailure", () => {
  const timeout = Duration.seconds(10)
  it.each(
    [
      ["Timeout", "no complete response within 10s", "no token response within 10s"],
      ["Network", "ECONNREFUSED 127.0.0.1:443", `network error reaching ${tokenUrl}: ECONNREFUSED 127.0.0.1:443`],
      ["Body", "the connection closed", "the token response was cut short: the connection closed"]
    ] as const
  )("a %s TransportError is Unavailable, worth another try, with no status", (reason, detail, told) => {
    const error = sendFailure(
      new ApiError.TransportError({ reason, method: "POST", url: tokenUrl, detail }),
      tokenUrl,
      timeout
    )
    expect(error).toMatchObject({ _tag: "TokenError", reason: "Unavailable", detail: told })
    assert.isUndefined(error.status)
  })

  it("a body over the cap is InvalidResponse with the answer's status, not worth another try", () => {
    const issue = "response body of 2000000 bytes exceeds the cap of 1048576 bytes"
    const error = sendFailure(
      new ApiError.UnexpectedResponseError({ status: 200, excerpt: "", issue }),
      tokenUrl,
      timeout
    )
    expect(error).toMatchObject({ reason: "InvalidResponse", status: 200, detail: issue })
  })
})

describe("requestToken", () => {
  const limits = { timeout: Duration.seconds(10), maxBodyBytes: 1_048_576 }
  const credentials = { clientId: "c", clientSecret: Redacted.make("s") }

  it.effect("sends tokenRequest, and dates the token by the clock when the request was sent", () =>
    Effect.gen(function*() {
      const sent: Array<HttpClientRequest.HttpClientRequest> = []
      const answering = HttpClient.make((request) =>
        Effect.sync(() => sent.push(request)).pipe(
          Effect.andThen(TestClock.adjust("3 seconds")),
          Effect.as(HttpClientResponse.fromWeb(request, new Response(JSON.stringify({ ...token, expires_in: "60" }))))
        )
      )
      const got = yield* requestToken(answering, credentials, tokenUrl, limits)
      assert.deepStrictEqual(sent.map((r) => [r.method, r.url, fieldsOf(r)]), [
        ["POST", tokenUrl, fieldsOf(tokenRequest(tokenUrl, credentials))]
      ])
      // received 3 s after it was sent: the token's life started when it was sent (RFC 6749 5.1)
      assert.strictEqual(DateTime.toEpochMillis(got.issuedAt), 0)
      assert.strictEqual(DateTime.toEpochMillis(got.expiresAt), 60_000)
    }))

  it.effect("a request that never answers is Unavailable once the timeout has passed on the clock", () =>
    Effect.gen(function*() {
      const stalled = HttpClient.make(() => Effect.never)
      const fiber = yield* Effect.forkChild(Effect.flip(requestToken(stalled, credentials, tokenUrl, limits)))
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(fiber)).toMatchObject({ reason: "Unavailable", detail: "no token response within 10s" })
    }))
})
