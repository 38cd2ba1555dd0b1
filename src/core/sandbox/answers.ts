/**
 * What the sandbox answers, as plain data: its defaults, the token endpoint's refusals (RFC 6749),
 * a bearer token's, the bodies of search results and the messages beside them. Each edition sends
 * them with its own HTTP server.
 */
import * as Jwt from "../wire/jwt.js"
import type { Design, ErrorSource, Message } from "../wire/wire.js"

/** One problem of a request, as an error object says it (the id is added when it is sent). */
export interface Problem {
  readonly code: string
  readonly detail: string
  readonly source?: ErrorSource | undefined
  readonly [field: string]: unknown
}

/** A message of an answer, before its id is added. */
export interface Notice extends Problem {
  readonly severity: string
}

/**
 * The field of a search result that lists the design numbers: `designNumbers`, or `designIds` as
 * the sibling trade mark API's `trademarkIds` suggests the live service may name it.
 */
export type ResultField = "designNumbers" | "designIds"

/** The names a search result may give its list of design numbers. */
export const resultFields: ReadonlyArray<ResultField> = ["designNumbers", "designIds"]

/** The defaults of a sandbox's options; 500 designs keep a sandbox cheap to build, as tests build many. */
export const defaults = {
  clientId: "sandbox-client",
  clientSecret: "sandbox-secret",
  designs: 500,
  seed: 1,
  tokenLifetimeSeconds: 3600,
  resultCap: 10_000,
  maxRequestBytes: 1024 * 1024,
  resultField: "designNumbers" as ResultField,
  journalSize: 10_000,
  journalBytes: 4 * 1024 * 1024
} as const

/** Where a sandbox is served by default. */
export const listenDefaults = { port: 8787, host: "127.0.0.1" } as const

/** Ids that count up under `prefix`: `sbx-1`, `sbx-2`, ... */
export const counter = (prefix: string): () => string => {
  let sequence = 0
  return () => `${prefix}-${(++sequence).toString(36)}`
}

/** The path of a request URL, absolute or not, with dot segments resolved. */
export const pathOf = (url: string): string =>
  URL.canParse(url, "http://sandbox.invalid") ? new URL(url, "http://sandbox.invalid").pathname : url

/** A refusal of the token endpoint: its status and RFC 6749 error. */
export interface OAuthRefusal {
  readonly status: 400 | 401
  readonly error: string
  readonly description: string
}

/** The client a token request (its `Content-Type` and form body) authenticates, or why it is refused. */
export const tokenGrant = (
  contentType: string | undefined,
  body: string,
  client: { readonly clientId: string; readonly clientSecret: string }
): OAuthRefusal | { readonly clientId: string } => {
  if (!(contentType ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return { status: 400, error: "invalid_request", description: "expected an application/x-www-form-urlencoded body" }
  }
  const form = new URLSearchParams(body)
  const [grantType, clientId, clientSecret] = ["grant_type", "client_id", "client_secret"].map((k) => form.get(k))
  if (grantType === null || clientId === null || clientSecret === null) {
    return {
      status: 400,
      error: "invalid_request",
      description: "grant_type, client_id and client_secret are required"
    }
  }
  if (grantType !== "client_credentials") {
    return { status: 400, error: "unsupported_grant_type", description: "only client_credentials is supported" }
  }
  if (clientId !== client.clientId || clientSecret !== client.clientSecret) {
    return { status: 401, error: "invalid_client", description: "client authentication failed" }
  }
  return { clientId }
}

/** Why the bearer token of an `Authorization` header is refused at `nowMillis`, or `undefined` when it is good. */
export const bearerRefusal = (
  key: Uint8Array,
  header: string | undefined,
  nowMillis: number,
  isActive: (jti: string) => boolean
): string | undefined => {
  const match = header === undefined ? null : /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header)
  const claims = match === null ? undefined : Jwt.verify(key, match[1]!)
  return header === undefined
    ? "missing access token"
    : claims === undefined
    ? "malformed Authorization header"
    : typeof claims === "string"
    ? `invalid access token: ${claims}`
    : claims.exp * 1000 <= nowMillis
    ? "access token expired"
    : !isActive(claims.jti)
    ? "access token revoked"
    : undefined
}

/** A 200's body: `data`, and `messages` beside it when there are any. */
export const withMessages = (data: object, messages: ReadonlyArray<Message>): object =>
  messages.length === 0 ? data : { data, messages }

/** A search result naming its numbers in `field`. */
export const searchResult = (
  field: ResultField,
  count: number,
  designs: ReadonlyArray<Design>,
  extra: object = {}
): object => ({ count, [field]: designs.map((d) => d.number), ...extra })

/** The warning of a search that lists only the first `resultCap` of its `count` matches, if it does. */
export const resultLimit = (count: number, resultCap: number): Notice | undefined =>
  count <= resultCap ? undefined : {
    code: "RESULT_LIMIT",
    detail: `${count} designs match; the first ${resultCap} are listed. Narrow the search to see the rest.`,
    severity: "warning"
  }

/** The 422's problems of an advanced request naming kinds of date the index does not hold, at `pointers`. */
export const dateTypeProblems = (pointers: ReadonlyArray<string>): ReadonlyArray<Problem> =>
  pointers.map((pointer) => ({
    code: "INVALID_VALUE",
    detail: "expected a date type: FILING, REGISTRATION, PRIORITY, EXPIRY or LAST_CHANGED",
    source: { pointer }
  }))

/** The information message naming the criteria of an advanced request that the sandbox ignored, if any. */
export const ignoredCriteria = (criteria: ReadonlyArray<string>): Notice | undefined =>
  criteria.length === 0 ? undefined : {
    code: "UNKNOWN_CRITERION",
    detail: `criteria the sandbox does not know were ignored: ${criteria.join(", ")}`,
    severity: "information"
  }
