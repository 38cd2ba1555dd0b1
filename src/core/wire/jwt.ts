/**
 * HS256 JSON Web Tokens for the sandbox's token endpoint: shaped like the real service's access
 * tokens (claims `sub`, `token_use`, `scope`, `auth_time`, `iss`, `exp`, `iat`, `jti`,
 * `client_id`), signed with a per-sandbox key, verified on every API request.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** What an API request needs of a token's claims: when it expires, and its id (to revoke it). */
export interface Claims {
  readonly exp: number
  readonly jti: string
}

const claimsOf = (json: string): Claims | undefined => {
  try {
    const c: unknown = JSON.parse(json)
    return typeof c === "object" && c !== null && "exp" in c && typeof c.exp === "number" && "jti" in c &&
        typeof c.jti === "string"
      ? { exp: c.exp, jti: c.jti }
      : undefined
  } catch {
    return undefined
  }
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url")

const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: "sandbox" }))

const sign = (key: Uint8Array, input: string) => createHmac("sha256", key).update(input).digest()

/** Signs an access token for `clientId`, numbered `jti`, issued at `now` for `lifetime` (both in seconds). */
export const issue = (
  key: Uint8Array,
  { clientId, issuer, jti, lifetime, now }: {
    readonly clientId: string
    readonly issuer: string
    readonly jti: string
    readonly lifetime: number
    readonly now: number
  }
): string => {
  const claims = {
    sub: clientId,
    token_use: "access",
    scope: "https://api.ipaustralia.gov.au/australian-design-search-api",
    auth_time: now,
    iss: issuer,
    exp: now + lifetime,
    iat: now,
    jti,
    client_id: clientId
  }
  const body = `${header}.${base64url(JSON.stringify(claims))}`
  return `${body}.${sign(key, body).toString("base64url")}`
}

/** The expiry and id of a token signed with `key`; otherwise why it is refused. Expiry is the caller's check. */
export const verify = (key: Uint8Array, token: string): Claims | string => {
  const parts = token.split(".")
  if (parts.length !== 3) return "malformed token"
  const [h, p, s] = parts as [string, string, string]
  const expected = sign(key, `${h}.${p}`)
  const given = Buffer.from(s, "base64url")
  if (h !== header || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return "invalid signature"
  }
  return claimsOf(Buffer.from(p, "base64url").toString("utf8")) ?? "invalid claims"
}
