/**
 * What an answer of the service says, read as plain data: its JSON (without `__proto__` keys), how
 * deep it nests, the 2xx envelope, `Retry-After`, and the kind of error each status is. Each edition
 * turns these into its own typed errors.
 */

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
 * Parses JSON without throwing (`undefined` when `text` is none); a key named `__proto__`, at any
 * depth, is left out. Such a key is written with its letters or with `\u` escapes, so a text with
 * neither needs no walk.
 */
export const parseJson = (text: string): { readonly json: unknown } | undefined => {
  try {
    const json: unknown = JSON.parse(text)
    return { json: text.includes("__proto__") || text.includes("\\u") ? withoutProto(json) : json }
  } catch {
    return undefined
  }
}

export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * How deep an error or message object may nest. Deeper, it is no error object the toolkit keeps:
 * a user who logs the error (`JSON.stringify`, Effect's formatters) would overflow the stack.
 */
export const maxNesting = 64

/**
 * Where `value` nests deeper than `limit` levels (default `maxNesting`): the field it is under (`""`
 * at the top), or `undefined` when it does not. Looks with a stack of its own, and stops early.
 */
export const tooDeepAt = (value: unknown, limit: number = maxNesting): string | undefined => {
  const stack: Array<readonly [unknown, number, string]> = [[value, 0, ""]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth, field] = next
    if (typeof v !== "object" || v === null) continue
    if (depth >= limit) return field
    // only objects go on the stack, and no entry is made of each child: a listing holds thousands
    const keys = depth === 0 ? Object.keys(v) : []
    Object.values(v).forEach((child, i) => {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1, keys[i] ?? field])
    })
  }
  return undefined
}

/**
 * Splits a 2xx body into payload and messages: `{ "data": …, "messages": […] }` or the payload
 * itself (with any top-level `messages` taken out of it).
 */
export const unwrap = (json: unknown): { readonly data: unknown; readonly messages: unknown } => {
  if (!isRecord(json)) return { data: json, messages: [] }
  if ("data" in json) return { data: json.data, messages: json.messages ?? [] }
  const { messages = [], ...data } = json
  return { data, messages }
}

/**
 * The text of a body with no `errors` but a text `error` or `message`: what the sibling trade mark
 * API's 404 (`{"error": "Trade Mark [...] not found"}`) and gateways (`{"message": ...}`) send.
 */
export const gatewayText = (json: Readonly<Record<string, unknown>>): string | undefined =>
  typeof json.error === "string" ? json.error : typeof json.message === "string" ? json.message : undefined

/** `Retry-After` in seconds or as an HTTP date, relative to `nowMillis`, in milliseconds. */
export const retryAfterMillis = (value: string | undefined, nowMillis: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  // an HTTP date names its day or month in letters; `-1` or `1.5` is no date
  if (!/[A-Za-z]/.test(trimmed)) return undefined
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMillis)
}

/** The error an API answer of a non-2xx status is, by its tag. */
export type StatusErrorTag =
  | "BadRequestError"
  | "AuthenticationError"
  | "ForbiddenError"
  | "NotFoundError"
  | "ValidationError"
  | "RateLimitError"
  | "ServerError"
  | "UnexpectedResponseError"

const statusErrors: Readonly<Record<number, StatusErrorTag>> = {
  400: "BadRequestError",
  401: "AuthenticationError",
  403: "ForbiddenError",
  404: "NotFoundError",
  422: "ValidationError",
  429: "RateLimitError"
}

/** The error of a non-2xx API answer of `status`: a 5xx is a `ServerError`, a status not named here unexpected. */
export const statusErrorTag = (status: number): StatusErrorTag =>
  statusErrors[status] ?? (status >= 500 && status <= 599 ? "ServerError" : "UnexpectedResponseError")

/**
 * The reason of a token endpoint's failure of `status`: the credentials refused (400, 401, 403),
 * an endpoint worth asking again later (408, 429, 5xx), or an answer it should not give.
 */
export const tokenFailure = (status: number): "InvalidCredentials" | "Unavailable" | "InvalidResponse" =>
  status === 400 || status === 401 || status === 403
    ? "InvalidCredentials"
    : status === 408 || status === 429 || (status >= 500 && status <= 599)
    ? "Unavailable"
    : "InvalidResponse"
