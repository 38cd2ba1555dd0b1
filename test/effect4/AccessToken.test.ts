import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Option, Redacted, Result, Schema } from "effect"
import { AccessToken } from "../../src/index.js"

const decode = Schema.decodeUnknownResult(AccessToken.TokenResponse)
const at = (accessToken: string, expiresIn = 3600) =>
  AccessToken.fromResponse(
    { access_token: accessToken, token_type: "Bearer", expires_in: expiresIn },
    DateTime.makeUnsafe(0)
  )

describe("AccessToken", () => {
  it("expires_in is a positive integer or a string of digits, at most a year", () => {
    for (const good of [3600, "3600", 1, "1", 365 * 24 * 3600]) {
      const decoded = decode({ access_token: "a.b.c", token_type: "Bearer", expires_in: good })
      assert.strictEqual(Result.getOrThrow(decoded).expires_in, Number(good))
    }
    for (const bad of [0, -1, 1.5, "0", "-5", "abc", "3600s", " 3600", "", null, true, Infinity, 9e15, "9999999999"]) {
      assert.isTrue(
        Result.isFailure(decode({ access_token: "a.b.c", token_type: "Bearer", expires_in: bad })),
        `${bad}`
      )
    }
  })

  it("token_type is Bearer in any case, and access_token a b64token", () => {
    assert.isTrue(Result.isSuccess(decode({ access_token: "a.b-c_d~e+f/g==", token_type: "bearer", expires_in: 1 })))
    assert.isTrue(Result.isFailure(decode({ access_token: "a.b.c", token_type: "MAC", expires_in: 1 })))
    for (const bad of ["", "has space", "line\nbreak", "x".repeat(8193)]) {
      assert.isTrue(Result.isFailure(decode({ access_token: bad, token_type: "Bearer", expires_in: 1 })))
    }
  })

  it("a refused access_token is not echoed in the issue", () => {
    const decoded = decode({ access_token: "secret token value", token_type: "Bearer", expires_in: 3600 })
    assert.isTrue(Result.isFailure(decoded))
    if (Result.isFailure(decoded)) {
      assert.include(decoded.failure.message, "b64token")
      assert.notInclude(decoded.failure.message, "secret token value")
    }
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
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(AccessToken.Stored)({ ...stored, token: "a b" })))
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
