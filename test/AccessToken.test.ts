import { dateTimeUnsafe, decodeUnknownResult, Result } from "#edition/internal/seam"
import { assert, describe, expect, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Option, Redacted, Schema } from "effect"
import { AccessToken, Sandbox, TokenService } from "../src/index.js"
import { clientLayer, sandboxStats } from "./support/layers.js"

const decode = decodeUnknownResult(AccessToken.TokenResponse)
const response = (expiresIn: unknown, accessToken = "a.b.c", tokenType = "Bearer") =>
  ({ access_token: accessToken, token_type: tokenType, expires_in: expiresIn }) as AccessToken.TokenResponse
const at = (accessToken: string, expiresIn = 3600) =>
  AccessToken.fromResponse(response(expiresIn, accessToken), dateTimeUnsafe(0))

describe("AccessToken", () => {
  it("expires_in is a positive integer or a string of digits, at most a year", () => {
    for (const good of [3600, "3600", 1, "1", 365 * 24 * 3600]) {
      assert.strictEqual(Result.getOrUndefined(decode(response(good)))?.expires_in, Number(good))
    }
    for (const bad of [0, -1, 1.5, "0", "-5", "abc", "3600s", " 3600", "", null, true, Infinity, 9e15, "9999999999"]) {
      assert.isTrue(Result.isFailure(decode(response(bad))), `${bad}`)
    }
  })

  it("token_type is Bearer in any case, and access_token a b64token", () => {
    assert.isTrue(Result.isSuccess(decode(response(1, "a.b-c_d~e+f/g==", "bearer"))))
    assert.isTrue(Result.isFailure(decode(response(1, "a.b.c", "MAC"))))
    for (const bad of ["", "has space", "line\nbreak", "x".repeat(8193)]) {
      assert.isTrue(Result.isFailure(decode(response(1, bad))))
    }
  })

  it("a refused access_token is not echoed in the issue", () => {
    const decoded = decode(response(3600, "secret token value"))
    const message = Result.match(decoded, { onFailure: (error) => error.message, onSuccess: () => "decoded" })
    assert.include(message, "b64token")
    assert.notInclude(message, "secret token value")
  })

  it("the Authorization header is token_type, one space, access_token; the token prints redacted", () => {
    const token = at("eyJ.abc.def")
    assert.strictEqual(AccessToken.authorization(token), "Bearer eyJ.abc.def")
    assert.strictEqual(DateTime.toEpochMillis(token.expiresAt), 3_600_000)
    assert.strictEqual(Duration.toMillis(AccessToken.lifetime(token)), 3_600_000)
    assert.notInclude(String(token.token), "eyJ")
    assert.notInclude(JSON.stringify(token), "eyJ")
    assert.isTrue(AccessToken.sameToken(token, at("eyJ.abc.def", 1)))
    assert.isFalse(AccessToken.sameToken(token, at("eyJ.abc.xyz")))
  })

  it("a stored token round-trips through its epoch milliseconds, its value held to the token rules", () => {
    const token = at("eyJ.abc.def")
    const stored = Schema.encodeSync(AccessToken.Stored)(token)
    assert.deepStrictEqual(stored, { token: "eyJ.abc.def", tokenType: "Bearer", issuedAt: 0, expiresAt: 3_600_000 })
    const back = Schema.decodeUnknownSync(AccessToken.Stored)(stored)
    assert.strictEqual(Redacted.value(back.token), "eyJ.abc.def")
    assert.strictEqual(DateTime.toEpochMillis(back.expiresAt), 3_600_000)
    assert.isTrue(Result.isFailure(decodeUnknownResult(AccessToken.Stored)({ ...stored, token: "a b" })))
  })

  it("peeks at JWT claims without verifying, and only at JWTs", () => {
    const payload = Buffer.from(JSON.stringify({ sub: "client", token_use: "access", exp: 99 })).toString("base64url")
    assert.deepStrictEqual(
      AccessToken.claims(at(`xx.${payload}.sig`)),
      Option.some({ sub: "client", token_use: "access", exp: 99 })
    )
    assert.deepStrictEqual(AccessToken.claims(at("opaque")), Option.none())
    assert.deepStrictEqual(AccessToken.claims(at("a.!!!.c")), Option.none())
    assert.deepStrictEqual(AccessToken.claims(at(`xx.${payload}.sig.more`)), Option.none())
  })
})

describe("token responses that are not tokens", () => {
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ["expires_in 0", response(0, "secret-token-value")],
    ["expires_in negative", response(-60, "secret-token-value")],
    ["expires_in not numeric", response("soon", "secret-token-value")],
    ["an empty access_token", response(3600, "")],
    ["no token_type", { access_token: "secret-token-value", expires_in: 3600 }],
    ["an array", ["secret-token-value"]],
    ["HTML", "<html>secret-token-value</html>"]
  ]
  for (const [name, body] of cases) {
    it.effect(`${name} is TokenError InvalidResponse after one request, with no token in the error`, () =>
      Effect.gen(function*() {
        yield* (yield* Sandbox.SandboxControl).injectFault({ target: "token", status: 200, body })
        const error = yield* Effect.flip((yield* TokenService.TokenService).get)
        expect(error).toMatchObject({ _tag: "TokenError", reason: "InvalidResponse", status: 200 })
        expect((yield* sandboxStats).requests.token).toBe(1)
        expect(String(error)).not.toContain("secret-token-value")
        expect(JSON.stringify(error)).not.toContain("secret-token-value")
      }).pipe(Effect.provide(clientLayer())))
  }

  it.effect("an RFC 6749 error body is kept on the TokenError", () =>
    Effect.gen(function*() {
      const body = { error: "invalid_client", error_description: "Client authentication failed" }
      yield* (yield* Sandbox.SandboxControl).injectFault({ target: "token", status: 400, body })
      const error = yield* Effect.flip((yield* TokenService.TokenService).get)
      const { error: code, error_description: errorDescription } = body
      expect(error).toMatchObject({ reason: "InvalidCredentials", status: 400, error: code, errorDescription })
      expect(error.message).toContain("invalid_client")
    }).pipe(Effect.provide(clientLayer())))

  it.effect("the client secret never appears in a token error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* TokenService.TokenService).get)
      expect(error.reason).toBe("InvalidCredentials")
      for (const shown of [String(error), JSON.stringify(error), error.message]) {
        expect(shown).not.toContain("not-the-secret-1234")
      }
    }).pipe(Effect.provide(clientLayer({ config: { clientSecret: Redacted.make("not-the-secret-1234") } }))))
})
