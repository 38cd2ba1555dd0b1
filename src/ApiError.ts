/**
 * Section 7 of the spec: the `errors` and `messages` payloads, the success envelope (`ApiResponse`), and one
 * tagged error per way a call can fail. Every error is a value in the error channel; none carries a secret.
 * @since 0.1.0
 */

import { DurationSchema, literals, openStruct, union } from "#edition/internal/domainSchemas"
import { Duration, Schema } from "effect"
import { describeErrors as describe } from "./core/wire/errorText.js"

/**
 * `source` of an error object: where in the request the error comes from. Here and in every error
 * object, extension attributes (spec 7.1.3) are kept.
 * @since 0.1.0
 * @category schemas
 */
export const ErrorSource = openStruct({
  /** JSON Pointer (RFC 6901) into the request document: set on 422 errors. */
  pointer: Schema.optional(Schema.String),
  /** Name of the offending query or path parameter: set on 400 errors. */
  parameter: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorSource = typeof ErrorSource.Type

const errorObjectFields = {
  id: Schema.optional(Schema.String),
  detail: Schema.String,
  code: Schema.String,
  source: Schema.optional(ErrorSource)
}

/**
 * One error object (spec 7.1).
 * @since 0.1.0
 * @category schemas
 */
export const ErrorObject = openStruct(errorObjectFields)

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorObject = typeof ErrorObject.Type

/**
 * Message severities the spec names; any other string is kept as sent.
 * @since 0.1.0
 * @category schemas
 */
export const Severity = union(literals("information", "warning"), Schema.String)

/**
 * A warning or information message (spec 7.3): an error object with an optional `severity`.
 * @since 0.1.0
 * @category schemas
 */
export const Message = openStruct({ ...errorObjectFields, severity: Schema.optional(Severity) })

/**
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * The body of an error response: `errors`, and `messages` on 400 and 422.
 * @since 0.1.0
 * @category schemas
 */
export const ErrorPayload = Schema.Struct({
  errors: Schema.Array(ErrorObject),
  messages: Schema.optional(Schema.Array(Message))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorPayload = typeof ErrorPayload.Type

/**
 * What an operation returns: the payload, and the server's messages beside it (spec 7.3.7), empty if none.
 * @since 0.1.0
 * @category models
 */
export interface ApiResponse<A> {
  readonly data: A
  readonly messages: ReadonlyArray<Message>
}

/** Fields every error built from an HTTP response carries. */
const responseFields = {
  status: Schema.Number,
  /** The `errors` array, or empty when the body followed no known format. */
  errors: Schema.Array(ErrorObject),
  /** The `messages` array sent beside the errors (400 and 422). */
  messages: Schema.Array(Message),
  /** The start of the response body as text, secrets masked, control characters folded, capped. */
  excerpt: Schema.String,
  /** How many entries of `errors` and `messages` fit no error object (and are left out); absent when none. */
  unreadable: Schema.optional(Schema.Number)
}

/**
 * 400: the request was not well-formed; one error per offending parameter.
 * @since 0.1.0
 * @category errors
 */
export class BadRequestError extends Schema.TaggedError<BadRequestError>()("BadRequestError", responseFields) {
  override get message(): string {
    return `bad request (HTTP ${this.status}): ${describe(this.errors, this.excerpt, this.unreadable)}`
  }
}

/**
 * 422 from the server, or a request that failed its own schema before anything was sent (`origin:
 * "client"`, no `status`). Each error points at the field (`source.pointer`) or the parameter.
 * @since 0.1.0
 * @category errors
 */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  ...responseFields,
  /** The HTTP status of the server's answer; absent when the client refused the request (`origin: "client"`). */
  status: Schema.optional(Schema.Number),
  /** Who refused the request: the client, before sending it, or the server (422). */
  origin: literals("client", "server")
}) {
  override get message(): string {
    return `invalid request${this.origin === "client" ? " (not sent)" : ` (HTTP ${this.status})`}: ${
      describe(this.errors, this.excerpt, this.unreadable)
    }`
  }
}

/**
 * 401 even with a freshly fetched token.
 * @since 0.1.0
 * @category errors
 */
export class AuthenticationError extends Schema.TaggedError<AuthenticationError>()(
  "AuthenticationError",
  responseFields
) {
  override get message(): string {
    return `not authenticated (HTTP ${this.status}): ${describe(this.errors, this.excerpt, this.unreadable)}`
  }
}

/**
 * 403: the token is valid but the client is not entitled (for example, not subscribed to this API).
 * @since 0.1.0
 * @category errors
 */
export class ForbiddenError extends Schema.TaggedError<ForbiddenError>()("ForbiddenError", responseFields) {
  override get message(): string {
    return `forbidden (HTTP ${this.status}): ${describe(this.errors, this.excerpt, this.unreadable)}`
  }
}

/**
 * 404: no such resource.
 * @since 0.1.0
 * @category errors
 */
export class NotFoundError extends Schema.TaggedError<NotFoundError>()("NotFoundError", responseFields) {
  override get message(): string {
    return `not found (HTTP ${this.status}): ${describe(this.errors, this.excerpt, this.unreadable)}`
  }
}

/**
 * 429 once retries are spent. `retryAfter` is the server's `Retry-After`, when it sent one.
 * @since 0.1.0
 * @category errors
 */
export class RateLimitError extends Schema.TaggedError<RateLimitError>()("RateLimitError", {
  ...responseFields,
  retryAfter: Schema.optional(DurationSchema)
}) {
  override get message(): string {
    const after = this.retryAfter === undefined ? "" : `, retry after ${Duration.format(this.retryAfter)}`
    return `rate limited (HTTP ${this.status}${after}): ${describe(this.errors, this.excerpt, this.unreadable)}`
  }
}

/**
 * 5xx once retries are spent. A 500 carries `code: "500"` (spec 7.2).
 * @since 0.1.0
 * @category errors
 */
export class ServerError extends Schema.TaggedError<ServerError>()("ServerError", responseFields) {
  override get message(): string {
    return `server error (HTTP ${this.status}): ${describe(this.errors, this.excerpt, this.unreadable)}`
  }
}

/**
 * Why a token could not be had.
 * @since 0.1.0
 * @category schemas
 */
export const TokenErrorReason = literals("InvalidCredentials", "Unavailable", "InvalidResponse")

/**
 * The token endpoint refused the credentials, stayed unavailable through the retries, or answered no
 * token response. `error` and `errorDescription`: the RFC 6749 fields, when sent.
 * @since 0.1.0
 * @category errors
 */
export class TokenError extends Schema.TaggedError<TokenError>()("TokenError", {
  reason: TokenErrorReason,
  /** HTTP status of the last answer; absent when none came (network failure, timeout). */
  status: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  errorDescription: Schema.optional(Schema.String),
  detail: Schema.String,
  /** A 429's `Retry-After`, when the token endpoint sent one. */
  retryAfter: Schema.optional(DurationSchema)
}) {
  override get message(): string {
    const rfc = this.error === undefined
      ? ""
      : ` (${this.error}${this.errorDescription === undefined ? "" : `: ${this.errorDescription}`})`
    const status = this.status === undefined ? "" : ` HTTP ${this.status}`
    return `token request failed, ${this.reason}${status}${rfc}: ${this.detail}`
  }
}

/**
 * The request did not get a complete response: network failure, timeout, an aborted body.
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  reason: literals("Network", "Timeout", "Body"),
  method: Schema.String,
  /** The request URL without its query string. */
  url: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.method} ${this.url} failed (${this.reason}): ${this.detail}`
  }
}

/**
 * A status the operation does not expect, or a body that fits no schema.
 * @since 0.1.0
 * @category errors
 */
export class UnexpectedResponseError extends Schema.TaggedError<UnexpectedResponseError>()(
  "UnexpectedResponseError",
  {
    status: Schema.Number,
    excerpt: Schema.String,
    /** What did not fit: the schema issue, or why the status is unexpected. */
    issue: Schema.String
  }
) {
  override get message(): string {
    return `unexpected response (HTTP ${this.status}): ${this.issue}${
      this.excerpt === "" ? "" : ` — body: ${this.excerpt}`
    }`
  }
}

/**
 * Every error an API operation of this toolkit can fail with.
 * @since 0.1.0
 * @category errors
 */
export type DesignSearchError =
  | BadRequestError
  | ValidationError
  | AuthenticationError
  | ForbiddenError
  | NotFoundError
  | RateLimitError
  | ServerError
  | TokenError
  | TransportError
  | UnexpectedResponseError
