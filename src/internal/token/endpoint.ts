/**
 * The token endpoint's protocol (spec 4.1, 5.3; RFC 6749 4.4 and 5.2): the request that asks for a
 * token, and what its answer means. `interpret` is pure; `requestToken` sends one request on the
 * toolkit's one request path and interprets it. Retrying, caching and sharing are `TokenService`'s.
 */
import { decodeUnknownResult, fromResult, type HttpClient, HttpClientRequest, Result } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { DateTime, Duration, Effect, Option, Redacted, Schema } from "effect"
import * as AccessToken from "../../AccessToken.js"
import { TokenError } from "../../ApiError.js"
import { cap, keptExcerpt, keptText, maskOf } from "../../core/mask/mask.js"
import type { Mask } from "../../core/mask/mask.js"
import { isRecord, tokenFailure } from "../../core/wire/answers.js"
import type { Settings } from "../../DesignSearchConfig.js"
import { parseJson, parseRetryAfter } from "../http/answers.js"
import { send } from "../http/send.js"
import type { Answer, Limits, SendError } from "../http/send.js"
import { describe, maxDescriptionLength } from "../schemaIssues.js"

/** The credentials a token is asked for with. */
type Credentials = Pick<Settings, "clientId" | "clientSecret">

/** The client-credentials grant: a form body with the credentials, sent to the token URL itself. */
export const tokenRequest = (tokenUrl: string, credentials: Credentials): HttpClientRequest.HttpClientRequest =>
  HttpClientRequest.post(tokenUrl).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyUrlParams({
      grant_type: "client_credentials",
      client_id: credentials.clientId,
      client_secret: Redacted.value(credentials.clientSecret)
    })
  )

const decodeTokenResponse = decodeUnknownResult(AccessToken.TokenResponse, { errors: "all" })
const decodeOAuthError = Schema.decodeUnknownOption(AccessToken.OAuthErrorResponse)

/** The RFC 6749 `error` and `error_description` of a body, when it has them, masked and bounded. */
const oauthFields = (text: string, mask: Mask): { readonly error?: string; readonly errorDescription?: string } =>
  Option.match(Option.flatMap(parseJson(text), decodeOAuthError), {
    onNone: () => ({}),
    onSome: (o) =>
      o.error_description === undefined
        ? { error: keptText(mask, o.error) }
        : { error: keptText(mask, o.error), errorDescription: keptText(mask, o.error_description) }
  })

/** The `access_token` of a token response's JSON, when it is a string: a secret of that answer's errors. */
const tokenOf = (json: unknown): ReadonlyArray<string> =>
  isRecord(json) && typeof json.access_token === "string" ? [json.access_token] : []

/**
 * What the token endpoint's answer to a request sent at `sentAt` means: a token (2xx with a token
 * response, its `expires_in` counted from `sentAt`, RFC 6749 5.1), refused credentials (400, 401,
 * 403), an endpoint worth asking again later (`Unavailable`: 408, 429 with its `Retry-After`, 5xx)
 * or an answer the client cannot use (`InvalidResponse`: a token
 * that is not `Bearer` or that no header can carry, among them). Texts kept from the body are
 * masked of `secrets`, and of the token the answer itself carries when it is refused.
 */
export const interpret = (
  { headers, status, text }: Answer,
  sentAt: DateTime.Utc,
  secrets: ReadonlyArray<string>
): Result<AccessToken.AccessToken, TokenError> => {
  const error = (reason: TokenError["reason"], detail: string, rfc: Partial<TokenError> = {}) =>
    new TokenError({ reason, status, ...rfc, detail })
  if (status >= 200 && status < 300) {
    const json = Option.getOrUndefined(parseJson(text))
    const told = (issue: SchemaError) => describe(issue, maskOf([...secrets, ...tokenOf(json)]))
    return Result.mapError(
      Result.map(decodeTokenResponse(json), (response) => AccessToken.fromResponse(response, sentAt)),
      (issue) => error("InvalidResponse", cap(`not a token response: ${told(issue)}`, maxDescriptionLength))
    )
  }
  const mask = maskOf(secrets)
  const rfc = oauthFields(text, mask)
  const body = keptExcerpt(mask, text) || "no body"
  switch (tokenFailure(status)) {
    case "InvalidCredentials":
      return Result.fail(error("InvalidCredentials", "the token endpoint refused the client credentials", rfc))
    case "Unavailable": {
      const sentMillis = DateTime.toEpochMillis(sentAt)
      const retryAfter = status === 429 ? parseRetryAfter(headers["retry-after"], sentMillis) : undefined
      return Result.fail(error("Unavailable", body, retryAfter === undefined ? rfc : { ...rfc, retryAfter }))
    }
    case "InvalidResponse":
      return Result.fail(error("InvalidResponse", `unexpected status ${status}: ${body}`, rfc))
  }
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

/** Asks the token endpoint at `tokenUrl` for a token once, through `client`, within `limits`. */
export const requestToken = (
  client: HttpClient.HttpClient,
  credentials: Credentials,
  tokenUrl: string,
  limits: Limits
): Effect.Effect<AccessToken.AccessToken, TokenError> =>
  Effect.flatMap(DateTime.now, (sentAt) => {
    // the secret, and `id:secret` (whose base64 is HTTP Basic's form of the credentials)
    const secrets = [
      Redacted.value(credentials.clientSecret),
      `${credentials.clientId}:${Redacted.value(credentials.clientSecret)}`
    ]
    return send(client, tokenRequest(tokenUrl, credentials), { ...limits, mask: () => maskOf(secrets) }).pipe(
      Effect.mapError((error) => sendFailure(error, tokenUrl, limits.timeout)),
      Effect.flatMap((answer) => fromResult(interpret(answer, sentAt, secrets)))
    )
  })
