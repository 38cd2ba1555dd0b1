/**
 * The access token (spec 5.3, 5.4): the token response schema, the `AccessToken` value handed around
 * (the token always `Redacted`), the `Authorization` header it makes, an unverified peek at its claims.
 * @since 0.1.0
 */
import { fromJsonString, record } from "#edition/internal/domainSchemas"
import * as Edition from "#edition/internal/domainSchemas"

import { DateTime, Duration, Option, Redacted, Schema } from "effect"

/**
 * `expires_in`: a positive integer of seconds, at most a year, or a string of such digits.
 * @since 0.1.0
 * @category schemas
 */
export const ExpiresIn = Edition.ExpiresIn

/**
 * `access_token`: RFC 6750's `b64token` (what an `Authorization` header can carry) in at most 8 KiB,
 * refused here once rather than on every call; its failure never shows the value, so no token is echoed.
 * @since 0.3.0
 * @category schemas
 */
export const AccessTokenValue = Edition.AccessTokenValue

/**
 * `token_type`: `Bearer`, in any case (RFC 6750): a client must not use a type it does not know (RFC 6749 7.1).
 * @since 0.3.0
 * @category schemas
 */
export const TokenType = Edition.TokenType

/**
 * The token endpoint's success body (spec 5.3).
 * @since 0.1.0
 * @category schemas
 */
export const TokenResponse = Edition.TokenResponse

/**
 * @since 0.1.0
 * @category models
 */
export type TokenResponse = typeof TokenResponse.Type

/**
 * An RFC 6749 error body, as token endpoints answer bad credentials.
 * @since 0.1.0
 * @category schemas
 */
export const OAuthErrorResponse = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optional(Schema.String)
})

/**
 * A token ready to present: `issuedAt` when its request was sent, `expiresAt = issuedAt + expires_in`.
 * @since 0.1.0
 * @category models
 */
export interface AccessToken {
  readonly token: Redacted.Redacted<string>
  readonly tokenType: string
  readonly issuedAt: DateTime.Utc
  readonly expiresAt: DateTime.Utc
}

/**
 * A token as a store keeps it between processes or runs (the fleet's Redis, the CLI's cache file): its
 * value held to a token response's rules, whoever wrote it, its instants as epoch milliseconds.
 * @since 0.3.0
 * @category schemas
 */
export const Stored = Edition.Stored

/**
 * Builds the token from a decoded response to a request sent at `issuedAt`.
 * @since 0.1.0
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
 * @since 0.1.0
 * @category utils
 */
export const lifetime = (token: AccessToken): Duration.Duration =>
  Duration.millis(DateTime.toEpochMillis(token.expiresAt) - DateTime.toEpochMillis(token.issuedAt))

/**
 * The `Authorization` header value: `token_type`, one space, `access_token` (spec 5.4).
 * @since 0.1.0
 * @category utils
 */
export const authorization = (token: AccessToken): string => `${token.tokenType} ${Redacted.value(token.token)}`

/**
 * Two tokens are the same when their token strings are.
 * @since 0.1.0
 * @category utils
 */
export const sameToken = (a: AccessToken, b: AccessToken): boolean =>
  a === b || Redacted.value(a.token) === Redacted.value(b.token)

const decodeClaims = Schema.decodeUnknownOption(fromJsonString(record(Schema.Unknown)))

/**
 * The claims of a JWT access token, unverified: for display and diagnostics, never for trust. `None` for no JWT.
 * @since 0.1.0
 * @category utils
 */
export const claims = (token: AccessToken): Option.Option<Readonly<Record<string, unknown>>> => {
  const [, payload, ...rest] = Redacted.value(token.token).split(".")
  return payload === undefined || rest.length !== 1
    ? Option.none()
    : Option.flatMap(Edition.base64UrlText(payload), decodeClaims)
}
