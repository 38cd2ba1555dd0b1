/**
 * The token endpoint's protocol (spec 4.1, 5.3; RFC 6749 4.4 and 5.2): the call that asks for a
 * token, and what its answer means. `interpret` is pure; `requestToken` sends one call through the
 * transport seam and interprets it. Retrying, caching and sharing are `TokenService`'s.
 */
import { DateTime, Duration, Effect, Either, Option, ParseResult, Redacted, Schema } from "effect"
import * as AccessToken from "../AccessToken.js"
import { TokenError } from "../ApiError.js"
import { excerpt, parseJson } from "./answers.js"
import { bounded, cap, maxDescriptionLength } from "./schemaIssues.js"
import { maskOf } from "./secrets.js"
import type { Mask } from "./secrets.js"
import type { Call, SendError, Transport } from "./transport.js"

/** The credentials a token is asked for with. */
export interface Credentials {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
}

const headers = Object.freeze({
  accept: "application/json",
  "content-type": "application/x-www-form-urlencoded"
})

/** The client-credentials grant: a form body with the credentials, sent to the token URL itself. */
export const tokenCall = (credentials: Credentials): Call => ({
  method: "POST",
  path: "",
  headers,
  body: new URLSearchParams({
    grant_type: "client_credentials",
    client_id: credentials.clientId,
    client_secret: Redacted.value(credentials.clientSecret)
  }).toString()
})

const decodeTokenResponse = Schema.decodeUnknownEither(AccessToken.TokenResponse, { errors: "all" })
const decodeOAuthError = Schema.decodeUnknownOption(AccessToken.OAuthErrorResponse)

/**
 * Describes why a 2xx body is no token response, never echoing the token: issues at the root or
 * at `access_token` are told without the value, the others bounded and masked.
 */
const describeInvalid = (error: ParseResult.ParseError, mask: Mask): string =>
  cap(
    "not a token response: " + ParseResult.ArrayFormatter.formatErrorSync(bounded(error, mask))
      .map((issue) => {
        const path = issue.path.join(".")
        if (path === "") return "expected a JSON object with access_token, expires_in and token_type"
        if (issue._tag === "Missing") return `${path}: is missing`
        return path === "access_token"
          ? "access_token: expected a non-empty b64token (RFC 6750 section 2.1)"
          : `${path}: ${issue.message}`
      })
      .join("; "),
    maxDescriptionLength
  )

/** The RFC 6749 `error` and `error_description` of a body, when it has them, masked. */
const oauthFields = (text: string, mask: Mask): { readonly error?: string; readonly errorDescription?: string } =>
  Option.match(Option.flatMap(parseJson(text), (json) => decodeOAuthError(mask.json(json))), {
    onNone: () => ({}),
    onSome: (o) =>
      o.error_description === undefined ? { error: o.error } : { error: o.error, errorDescription: o.error_description }
  })

/**
 * What the token endpoint's answer means: a token (2xx with a token response, received at
 * `receivedAt`), refused credentials (400, 401, 403), an endpoint worth asking again later
 * (`Unavailable`: 408, 429, 5xx) or an answer the client cannot use (`InvalidResponse`: a token
 * that is not `Bearer` or that no header can carry among them). Texts kept from the body are
 * masked with `mask`.
 */
export const interpret = (
  status: number,
  _headers: Readonly<Record<string, string | undefined>>,
  text: string,
  receivedAt: DateTime.Utc,
  mask: Mask
): Either.Either<AccessToken.AccessToken, TokenError> => {
  if (status >= 200 && status < 300) {
    const decoded = decodeTokenResponse(Option.getOrUndefined(parseJson(text)))
    return Either.isRight(decoded)
      ? Either.right(AccessToken.fromResponse(decoded.right, receivedAt))
      : Either.left(
        new TokenError({
          reason: "InvalidResponse",
          status,
          detail: describeInvalid(decoded.left, mask)
        })
      )
  }
  const rfc = oauthFields(text, mask)
  const body = excerpt(mask.readable(text)) || "no body"
  if (status === 400 || status === 401 || status === 403) {
    return Either.left(
      new TokenError({
        reason: "InvalidCredentials",
        status,
        ...rfc,
        detail: "the token endpoint refused the client credentials"
      })
    )
  }
  if (status === 408 || status === 429 || status >= 500) {
    return Either.left(new TokenError({ reason: "Unavailable", status, ...rfc, detail: body }))
  }
  return Either.left(
    new TokenError({
      reason: "InvalidResponse",
      status,
      ...rfc,
      detail: `unexpected status ${status}: ${body}`
    })
  )
}

/** A call that brought back no answer, as a `TokenError`: worth another try, but a body over the cap. */
export const sendFailure = (error: SendError, tokenUrl: string, timeout: Duration.Duration): TokenError => {
  if (error._tag === "UnexpectedResponseError") {
    return new TokenError({ reason: "InvalidResponse", status: error.status, detail: error.issue })
  }
  const detail = error.reason === "Timeout"
    ? `no token response within ${Duration.format(timeout)}`
    : error.reason === "Network"
    ? `network error reaching ${tokenUrl}: ${error.detail}`
    : `the token response was cut short: ${error.detail}`
  return new TokenError({ reason: "Unavailable", detail })
}

/** Asks `transport` (below the token URL) for a token once, within its deadline. */
export const requestToken = (
  transport: Transport,
  credentials: Credentials,
  tokenUrl: string,
  timeout: Duration.Duration
): Effect.Effect<AccessToken.AccessToken, TokenError> =>
  Effect.suspend(() => transport.send(tokenCall(credentials))).pipe(
    Effect.mapError((error) => sendFailure(error, tokenUrl, timeout)),
    Effect.flatMap((answer) =>
      Effect.flatMap(DateTime.now, (receivedAt) =>
        interpret(
          answer.status,
          answer.headers,
          answer.text,
          receivedAt,
          maskOf([Redacted.value(credentials.clientSecret)])
        ))
    )
  )
