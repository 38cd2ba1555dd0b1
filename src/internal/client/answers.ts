/**
 * What an API answer means: a 2xx body unwrapped into `ApiResponse` (payload and messages) and
 * decoded by the operation's schema, or the tagged error of `ApiError` for its status and body,
 * every server-supplied text in it masked once, here. See docs/errors.md.
 */
import { Clock, Duration, Effect, Either, Option, Schema } from "effect"
import type { ParseResult } from "effect"
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
import { keptExcerpt, keptJson, keptText } from "../../core/mask.js"
import type { Mask } from "../../core/mask.js"
import { describe } from "../schemaIssues.js"
import type { Answer } from "./http.js"

/**
 * Deletes every key named `__proto__`, which decoding would otherwise turn into a prototype. It
 * walks with a stack of its own: `JSON.parse`'s reviver recurses, and overflows on a deep body.
 */
const withoutProto = (json: unknown): unknown => {
  const stack = [json]
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (typeof value !== "object" || value === null) continue
    if (Object.hasOwn(value, "__proto__")) delete (value as Record<string, unknown>)["__proto__"]
    for (const child of Object.values(value)) stack.push(child)
  }
  return json
}

/**
 * Parses JSON without throwing; a key named `__proto__`, at any depth, is left out. Such a key is
 * written with its letters or with `\u` escapes, so a text with neither needs no walk.
 */
export const parseJson = (text: string): Option.Option<unknown> =>
  Option.map(
    Either.getRight(Either.try(() => JSON.parse(text) as unknown)),
    (json) => text.includes("__proto__") || text.includes("\\u") ? withoutProto(json) : json
  )

export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const decodeErrorObject = Schema.decodeUnknownOption(ErrorObject)
const decodeMessage = Schema.decodeUnknownOption(Message)

/**
 * How deep an error or message object may nest. Deeper, it is no error object the toolkit keeps:
 * a user who logs the error (`JSON.stringify`, Effect's formatters) would overflow the stack.
 */
const maxNesting = 64

/**
 * Where `value` nests deeper than `maxNesting` levels: the field it is under (`""` at the top), or
 * `undefined` when it does not. Looks with a stack of its own, and stops early.
 */
const tooDeepAt = (value: unknown): string | undefined => {
  const stack: Array<readonly [unknown, number, string]> = [[value, 0, ""]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth, field] = next
    if (typeof v !== "object" || v === null) continue
    if (depth >= maxNesting) return field
    // only objects go on the stack, and no entry is made of each child: a listing holds thousands
    const keys = depth === 0 ? Object.keys(v) : []
    Object.values(v).forEach((child, i) => {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1, keys[i] ?? field])
    })
  }
  return undefined
}

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

/**
 * Splits a 2xx body into payload and messages: `{ "data": …, "messages": […] }` or the payload
 * itself (with any top-level `messages` taken out of it).
 */
const unwrap = (json: unknown): { readonly data: unknown; readonly messages: unknown } => {
  if (!isRecord(json)) return { data: json, messages: [] }
  if ("data" in json) return { data: json.data, messages: json.messages ?? [] }
  const { messages = [], ...data } = json
  return { data, messages }
}

/** A decoder of a 2xx payload, as parsed from JSON. */
export type Decode<A> = (u: unknown) => Either.Either<A, ParseResult.ParseError>

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
): Either.Either<ApiResponse<A>, UnexpectedResponseError> => {
  const json = parseJson(text)
  if (Option.isNone(json)) {
    return Either.left(unexpected(status, text, text === "" ? "empty body" : "body is not JSON", mask()))
  }
  const { data, messages } = unwrap(json.value)
  const decoded = decode(data)
  if (Either.isLeft(decoded)) return Either.left(unexpected(status, text, describe(decoded.left, mask()), mask()))
  // what the schema keeps unread (unknown fields) must not nest past what logging it can print
  const deep = tooDeepAt(data)
  if (deep !== undefined) {
    return Either.left(unexpected(status, text, `${deep}: nests deeper than ${maxNesting} levels`, mask()))
  }
  // Messages are rare (spec 7.3.1): an empty array needs no decoding, and no mask.
  return Either.right({
    data: decoded.right,
    messages: Array.isArray(messages) && messages.length === 0 ? [] : successMessages(messages, mask())
  })
}

/**
 * The error object of a body with no `errors` but a text `error` or `message`: what the sibling
 * trade mark API's 404 (`{"error": "Trade Mark [...] not found"}`) and gateways (`{"message": ...}`)
 * send. Its code is the status, as spec 7.2 gives a 500.
 */
const gatewayError = (status: number, json: Readonly<Record<string, unknown>>, mask: Mask) => {
  const text = typeof json.error === "string" ? json.error : typeof json.message === "string" ? json.message : undefined
  return { kept: text === undefined ? [] : [{ code: String(status), detail: keptText(mask, text) }], dropped: 0 }
}

/** `Retry-After` in seconds or as an HTTP date, relative to `nowMillis`. */
export const parseRetryAfter = (value: string | undefined, nowMillis: number): Duration.Duration | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Duration.seconds(Number(trimmed))
  // an HTTP date names its day or month in letters; `-1` or `1.5` is no date
  if (!/[A-Za-z]/.test(trimmed)) return undefined
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Duration.millis(Math.max(0, at - nowMillis))
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
  switch (status) {
    case 400:
      return new BadRequestError(fields)
    case 401:
      return new AuthenticationError(fields)
    case 403:
      return new ForbiddenError(fields)
    case 404:
      return new NotFoundError(fields)
    case 422:
      return new ValidationError({ ...fields, origin: "server" })
    case 429: {
      const retryAfter = parseRetryAfter(headers["retry-after"], nowMillis)
      return new RateLimitError(retryAfter === undefined ? fields : { ...fields, retryAfter })
    }
  }
  if (status >= 500 && status <= 599) return new ServerError(fields)
  return new UnexpectedResponseError({ status, excerpt: fields.excerpt, issue: `unexpected HTTP status ${status}` })
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
    ? decodeSuccess(decode, answer.status, answer.text, mask)
    : Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.fail(errorFromResponse(answer.status, answer.headers, answer.text, now, mask()))
    )
