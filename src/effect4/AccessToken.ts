/**
 * The access token (spec 5.3, 5.4): the token response schema, the `AccessToken` value the toolkit
 * hands around (the token itself always `Redacted`), the `Authorization` header it makes, and an
 * unverified peek at its JWT claims, for Effect 4 (the Effect 3 edition's `AccessToken`).
 *
 * @since 0.4.0
 */
import { DateTime, Duration, Option, Redacted, Result, Schema } from "effect"
import { Base64Url } from "effect/encoding"

/** Longest token life accepted: a year (timers and dates stay in range). */
const maxExpiresIn = 365 * 24 * 3600

/**
 * `expires_in`: a positive integer of seconds, at most a year, or a string of such digits.
 *
 * @since 0.4.0
 * @category schemas
 */
export const ExpiresIn = Schema.Union([
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxExpiresIn })),
  Schema.String.check(Schema.isPattern(/^[0-9]{1,10}$/, { message: "expected a string of digits" })).pipe(
    Schema.decodeTo(Schema.NumberFromString),
    Schema.check(Schema.isBetween({ minimum: 1, maximum: maxExpiresIn }))
  )
])

/**
 * `access_token`: RFC 6750's `b64token`, the characters an `Authorization` header can carry after
 * its scheme, in at most 8 KiB, the header servers commonly accept. A token with a space, CR or LF,
 * or a longer one, would be refused on every call rather than once, here.
 *
 * @since 0.4.0
 * @category schemas
 */
export const AccessTokenValue = Schema.String.check(
  Schema.makeFilter((s) => s.length <= 8192 && /^[A-Za-z0-9\-._~+/]+=*$/.test(s), {
    // told for any value, so that no value of a token is echoed
    message: "expected a non-empty b64token (RFC 6750 section 2.1) of at most 8192 characters"
  })
)

/**
 * `token_type`: `Bearer`, in any case (RFC 6750). RFC 6749 section 7.1: a client must not use a
 * token whose type it does not understand.
 *
 * @since 0.4.0
 * @category schemas
 */
export const TokenType = Schema.String.check(
  Schema.makeFilter((type) => type.toLowerCase() === "bearer", { message: "expected Bearer" })
)

/**
 * The token endpoint's success body (spec 5.3).
 *
 * @since 0.4.0
 * @category schemas
 */
export const TokenResponse = Schema.Struct({
  access_token: AccessTokenValue,
  expires_in: ExpiresIn,
  token_type: TokenType
}).annotate({ message: "expected a JSON object with access_token, expires_in and token_type" })

/**
 * @since 0.4.0
 * @category models
 */
export type TokenResponse = typeof TokenResponse.Type

/**
 * An RFC 6749 error body, as token endpoints answer bad credentials.
 *
 * @since 0.4.0
 * @category schemas
 */
export const OAuthErrorResponse = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optional(Schema.String)
})

/**
 * A token ready to present. `issuedAt` is the local instant its request was sent and
 * `expiresAt = issuedAt + expires_in`: a slow answer does not lengthen its life.
 *
 * @since 0.4.0
 * @category models
 */
export interface AccessToken {
  readonly token: Redacted.Redacted<string>
  readonly tokenType: string
  readonly issuedAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
}

/**
 * A token as a store keeps it between processes or runs (the fleet's Redis, the CLI's cache file):
 * its value held to the rules of a token response, whoever wrote it, and its instants as epoch
 * milliseconds.
 *
 * @since 0.4.0
 * @category schemas
 */
export const Stored = Schema.Struct({
  token: Schema.RedactedFromValue(AccessTokenValue),
  tokenType: TokenType,
  issuedAt: Schema.DateTimeUtcFromMillis,
  expiresAt: Schema.DateTimeUtcFromMillis
})

/**
 * Builds the token from a decoded response to a request sent at `issuedAt`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const fromResponse = (response: TokenResponse, issuedAt: DateTime.Utc): AccessToken => ({
  token: Redacted.make(response.access_token),
  tokenType: response.token_type,
  issuedAt,
  expiresAt: DateTime.addDuration(issuedAt, Duration.seconds(response.expires_in))
})

/**
 * The lifetime the server granted.
 *
 * @since 0.4.0
 * @category utils
 */
export const lifetime = (token: AccessToken): Duration.Duration =>
  Duration.millis(DateTime.toEpochMillis(token.expiresAt) - DateTime.toEpochMillis(token.issuedAt))

/**
 * The `Authorization` header value: `token_type`, one space, `access_token` (spec 5.4).
 *
 * @since 0.4.0
 * @category utils
 */
export const authorization = (token: AccessToken): string => `${token.tokenType} ${Redacted.value(token.token)}`

/**
 * Two tokens are the same when their token strings are.
 *
 * @since 0.4.0
 * @category utils
 */
export const sameToken = (a: AccessToken, b: AccessToken): boolean =>
  a === b || Redacted.value(a.token) === Redacted.value(b.token)

const Claims = Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))
const decodeClaims = Schema.decodeUnknownOption(Claims)

/**
 * The claims of a JWT access token, read without verifying its signature: for display and
 * diagnostics only, never for trust decisions. `None` when the token is not a JWT.
 *
 * @since 0.4.0
 * @category utils
 */
export const claims = (token: AccessToken): Option.Option<Readonly<Record<string, unknown>>> => {
  const [, payload, ...rest] = Redacted.value(token.token).split(".")
  return payload === undefined || rest.length !== 1
    ? Option.none()
    : Option.flatMap(Result.getSuccess(Base64Url.decodeString(payload)), decodeClaims)
}
