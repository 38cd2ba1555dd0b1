/**
 * What an API answer means: a 2xx body unwrapped into `ApiResponse` (payload and messages) and
 * decoded by the operation's schema, or the tagged error of `ApiError` for its status and body,
 * every server-supplied text in it masked once, here. See docs/errors.md.
 */
import { fromResult, Result } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { Clock, Duration, Effect, Option, Schema } from "effect"
import type { LazyArg } from "effect/Function"
import {
  AuthenticationError,
  BadRequestError,
  ErrorObject,
  ForbiddenError,
  Message,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnexpectedResponseError,
  ValidationError
} from "../../ApiError.js"
import type { ApiResponse, DesignSearchError, TokenError, TransportError } from "../../ApiError.js"
import { keptExcerpt, keptJson, keptText } from "../../core/mask/mask.js"
import type { Mask } from "../../core/mask/mask.js"
import * as Answers from "../../core/wire/answers.js"
import { isRecord, maxNesting, tooDeepAt, unwrap } from "../../core/wire/answers.js"
import { describe } from "../schemaIssues.js"
import type { Answer } from "./send.js"

/** Parses JSON without throwing; a key named `__proto__`, at any depth, is left out. */
export const parseJson = (text: string): Option.Option<unknown> => {
  const parsed = Answers.parseJson(text)
  return parsed === undefined ? Option.none() : Option.some(parsed.json)
}

const decodeErrorObject = Schema.decodeUnknownOption(ErrorObject)
const decodeMessage = Schema.decodeUnknownOption(Message)

/**
 * The entries of `list` that `decode` takes (and that nest within bounds), and how many it does
 * not: a `list` that is there but no array counts as one.
 */
const wellFormed = <A>(
  list: unknown,
  decode: (u: unknown) => Option.Option<A>
): { readonly kept: ReadonlyArray<A>; readonly dropped: number } => {
  if (!Array.isArray(list)) return { kept: [], dropped: list === undefined ? 0 : 1 }
  const kept: Array<A> = []
  for (const entry of list) if (tooDeepAt(entry) === undefined) Option.map(decode(entry), (a) => kept.push(a))
  return { kept, dropped: list.length - kept.length }
}

/** A decoder of a 2xx payload, as parsed from JSON. */
export type Decode<A> = (u: unknown) => Result<A, SchemaError>

const unexpected = (status: number, text: string, issue: string, mask: Mask) =>
  new UnexpectedResponseError({ status, excerpt: keptExcerpt(mask, text), issue })

/**
 * The well-formed messages of a 2xx, masked. A malformed one does not fail the call: it is left
 * out, and a warning of the toolkit's own (`UNREADABLE_MESSAGES`) says how many were.
 */
const successMessages = (messages: unknown, mask: Mask): ReadonlyArray<Message> => {
  const { dropped, kept } = wellFormed(messages, (m) => decodeMessage(keptJson(mask, m)))
  return dropped === 0 ? kept : [...kept, {
    code: "UNREADABLE_MESSAGES",
    detail: `${dropped} of the answer's messages fit no message object and were left out`,
    severity: "warning"
  }]
}

/**
 * Decodes a 2xx body with `decode`, keeping the messages (masked with `mask`); a body that does not
 * fit is an `UnexpectedResponseError`. `mask` is built only when a body needs it.
 */
export const decodeSuccess = <A>(
  decode: Decode<A>,
  status: number,
  text: string,
  mask: LazyArg<Mask>
): Result<ApiResponse<A>, UnexpectedResponseError> => {
  const json = parseJson(text)
  if (Option.isNone(json)) {
    return Result.fail(unexpected(status, text, text === "" ? "empty body" : "body is not JSON", mask()))
  }
  const { data, messages } = unwrap(json.value)
  const decoded = Result.mapError(decode(data), (error) => unexpected(status, text, describe(error, mask()), mask()))
  return Result.flatMap(decoded, (payload): Result<ApiResponse<A>, UnexpectedResponseError> => {
    // what the schema keeps unread (unknown fields) must not nest past what logging it can print
    const deep = tooDeepAt(data)
    if (deep !== undefined) {
      return Result.fail(unexpected(status, text, `${deep}: nests deeper than ${maxNesting} levels`, mask()))
    }
    // Messages are rare (spec 7.3.1): an empty array needs no decoding, and no mask.
    return Result.succeed({
      data: payload,
      messages: Array.isArray(messages) && messages.length === 0 ? [] : successMessages(messages, mask())
    })
  })
}

/** A body with no `errors` but a text `error` or `message` (gateways): its error object's code is the status (spec 7.2). */
const gatewayError = (status: number, json: Readonly<Record<string, unknown>>, mask: Mask) => {
  const text = Answers.gatewayText(json)
  return { kept: text === undefined ? [] : [{ code: String(status), detail: keptText(mask, text) }], dropped: 0 }
}

/** `Retry-After` in seconds or as an HTTP date, relative to `nowMillis`. */
export const parseRetryAfter = (value: string | undefined, nowMillis: number): Duration.Duration | undefined => {
  const millis = Answers.retryAfterMillis(value, nowMillis)
  return millis === undefined ? undefined : Duration.millis(millis)
}

/** Every error a non-2xx API response can become. */
export type StatusError = Exclude<DesignSearchError, TokenError | TransportError>

/**
 * The typed error of a non-2xx response, every text in it masked with `mask`. A body in neither
 * format still gives the error of its status, with `errors: []` and an excerpt; of `errors` and
 * `messages`, every well-formed entry is kept and the others are counted in `unreadable`.
 */
export const errorFromResponse = (
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  text: string,
  nowMillis: number,
  mask: Mask
): StatusError => {
  // Only the entries kept are masked and bounded: the rest of a body is never looked at again.
  const json = Option.getOrUndefined(parseJson(text))
  const errors = isRecord(json) && json.errors === undefined
    ? gatewayError(status, json, mask)
    : wellFormed(isRecord(json) ? json.errors : undefined, (e) => decodeErrorObject(keptJson(mask, e)))
  const messages = wellFormed(isRecord(json) ? json.messages : undefined, (m) => decodeMessage(keptJson(mask, m)))
  const unreadable = errors.dropped + messages.dropped
  const fields = {
    status,
    errors: errors.kept,
    messages: messages.kept,
    excerpt: keptExcerpt(mask, text),
    ...(unreadable > 0 ? { unreadable } : {})
  }
  switch (Answers.statusErrorTag(status)) {
    case "BadRequestError":
      return new BadRequestError(fields)
    case "AuthenticationError":
      return new AuthenticationError(fields)
    case "ForbiddenError":
      return new ForbiddenError(fields)
    case "NotFoundError":
      return new NotFoundError(fields)
    case "ValidationError":
      return new ValidationError({ ...fields, origin: "server" })
    case "RateLimitError": {
      const retryAfter = parseRetryAfter(headers["retry-after"], nowMillis)
      return new RateLimitError(retryAfter === undefined ? fields : { ...fields, retryAfter })
    }
    case "ServerError":
      return new ServerError(fields)
    case "UnexpectedResponseError":
      return new UnexpectedResponseError({ status, excerpt: fields.excerpt, issue: `unexpected HTTP status ${status}` })
  }
}

/**
 * An answer as the operation's result (2xx, decoded with `decode`) or its typed error, with the
 * secrets of `mask` masked out of every server-supplied text it keeps.
 */
export const classify = <A>(
  decode: Decode<A>,
  answer: Answer,
  mask: LazyArg<Mask>
): Effect.Effect<ApiResponse<A>, StatusError> =>
  answer.status >= 200 && answer.status < 300
    ? fromResult(decodeSuccess(decode, answer.status, answer.text, mask))
    : Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.fail(errorFromResponse(answer.status, answer.headers, answer.text, now, mask()))
    )
