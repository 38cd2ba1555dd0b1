import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { AccessToken, Sandbox, TokenService } from "../src/index.js"
import { clientLayer, sandboxStats } from "./support/layers.js"

const decode = Schema.decodeUnknownEither(AccessToken.TokenResponse)

describe("AccessToken", () => {
  it("expires_in is a positive integer or a string of digits", () => {
    for (const good of [3600, "3600", 1, "1"]) {
      expect(decode({ access_token: "a.b.c", token_type: "Bearer", expires_in: good })._tag).toBe("Right")
    }
    for (const bad of [0, -1, 1.5, "0", "-5", "abc", "3600s", " 3600", "", null, true, Infinity, 9e15, "9999999999"]) {
      expect(decode({ access_token: "a.b.c", token_type: "Bearer", expires_in: bad })._tag).toBe("Left")
    }
  })

  it("the Authorization header is token_type, one space, access_token", () => {
    const token = AccessToken.fromResponse(
      { access_token: "eyJ.abc.def", token_type: "Bearer", expires_in: 3600 },
      DateTime.unsafeMake(0)
    )
    expect(AccessToken.authorization(token)).toBe("Bearer eyJ.abc.def")
    expect(DateTime.toEpochMillis(token.expiresAt)).toBe(3_600_000)
    expect(String(token.token)).not.toContain("eyJ")
  })

  it("peeks at JWT claims without verifying, and only at JWTs", () => {
    const payload = Buffer.from(JSON.stringify({ sub: "client", token_use: "access", exp: 99 })).toString("base64url")
    const jwt = AccessToken.fromResponse(
      { access_token: `xx.${payload}.sig`, token_type: "Bearer", expires_in: 1 },
      DateTime.unsafeMake(0)
    )
    expect(AccessToken.claims(jwt)).toEqual(Option.some({ sub: "client", token_use: "access", exp: 99 }))
    const opaque = AccessToken.fromResponse(
      { access_token: "opaque", token_type: "Bearer", expires_in: 1 },
      DateTime.unsafeMake(0)
    )
    expect(AccessToken.claims(opaque)).toEqual(Option.none())
    const garbage = AccessToken.fromResponse(
      { access_token: "a.!!!.c", token_type: "Bearer", expires_in: 1 },
      DateTime.unsafeMake(0)
    )
    expect(AccessToken.claims(garbage)).toEqual(Option.none())
  })
})

describe("token responses that are not tokens", () => {
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ["expires_in 0", { access_token: "secret-token-value", token_type: "Bearer", expires_in: 0 }],
    ["expires_in negative", { access_token: "secret-token-value", token_type: "Bearer", expires_in: -60 }],
    ["expires_in not numeric", { access_token: "secret-token-value", token_type: "Bearer", expires_in: "soon" }],
    ["an empty access_token", { access_token: "", token_type: "Bearer", expires_in: 3600 }],
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
      yield* (yield* Sandbox.SandboxControl).injectFault({
        target: "token",
        status: 400,
        body: { error: "invalid_client", error_description: "Client authentication failed" }
      })
      const error = yield* Effect.flip((yield* TokenService.TokenService).get)
      expect(error).toMatchObject({
        reason: "InvalidCredentials",
        status: 400,
        error: "invalid_client",
        errorDescription: "Client authentication failed"
      })
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
