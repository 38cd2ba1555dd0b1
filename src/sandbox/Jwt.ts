/**
 * HS256 JSON Web Tokens for the sandbox's token endpoint: shaped like the real service's access
 * tokens (claims `sub`, `token_use`, `scope`, `auth_time`, `iss`, `exp`, `iat`, `jti`,
 * `client_id`), signed with a per-sandbox key, verified on every API request.
 */
import { Either, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** The claims the sandbox puts in its tokens. */
export const Claims = Schema.Struct({
  sub: Schema.String,
  token_use: Schema.Literal("access"),
  scope: Schema.String,
  auth_time: Schema.Number,
  iss: Schema.String,
  exp: Schema.Number,
  iat: Schema.Number,
  jti: Schema.String,
  client_id: Schema.String
})

export type Claims = typeof Claims.Type

const decodeClaims = Schema.decodeUnknownEither(Schema.parseJson(Claims))

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url")

const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: "sandbox" }))

const sign = (key: Uint8Array, input: string) => createHmac("sha256", key).update(input).digest()

/** Signs `claims` into a compact JWT. */
export const encode = (key: Uint8Array, claims: Claims): string => {
  const body = `${header}.${base64url(JSON.stringify(claims))}`
  return `${body}.${sign(key, body).toString("base64url")}`
}

/** The claims of a token signed with `key`; `Left` with a reason otherwise. Expiry is the caller's check. */
export const verify = (key: Uint8Array, token: string): Either.Either<Claims, string> => {
  const parts = token.split(".")
  if (parts.length !== 3) return Either.left("malformed token")
  const [h, p, s] = parts as [string, string, string]
  const expected = sign(key, `${h}.${p}`)
  const given = Buffer.from(s, "base64url")
  if (h !== header || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return Either.left("invalid signature")
  }
  return Either.mapLeft(decodeClaims(Buffer.from(p, "base64url").toString("utf8")), () => "invalid claims")
}
