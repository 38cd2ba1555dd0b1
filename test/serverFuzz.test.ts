/**
 * Fuzzing the served sandbox over real loopback HTTP: arbitrary methods, paths, headers and bodies
 * against every route. Whatever arrives, the server answers (no hang, no dropped connection, no
 * 5xx), every error body is spec-shaped (spec 7.1; RFC 6749 on the token endpoint), every 2xx body
 * is JSON, and a well-behaved client beside the fuzzer keeps being served. Requests go out through
 * an undici `Pool` with the raw path, so nothing is normalised on the way. Seeds are fixed so that a
 * failure reproduces; the counterexample fast-check prints is the request that broke the contract.
 */
import { decodeUnknownResult, Result } from "#edition/internal/seam"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Schema } from "effect"
import fc from "fast-check"
import { createHmac } from "node:crypto"
import { PassThrough, Readable } from "node:stream"
import { Pool } from "undici"
import { ApiError, DesignSearchConfig, Sandbox } from "../src/index.js"
import { servedClient } from "./support/layers.js"
import { onSocket } from "./support/loopback.js"

/** The sandbox's default body limit (service and control routes alike). */
const limit = Sandbox.defaults.maxRequestBytes
const tokenPath = DesignSearchConfig.tokenPath
const searchPath = `${DesignSearchConfig.apiPath}/search/quick`
const designPath = `${DesignSearchConfig.apiPath}/design/`
const controlRoutes = ["/__sandbox/faults", "/__sandbox/stats", "/__sandbox/revoke-tokens", "/__sandbox/reset"] as const
/** Control routes that change the sandbox's state when they succeed. */
const mutatingRoutes: ReadonlySet<string> = new Set([
  "/__sandbox/faults",
  "/__sandbox/revoke-tokens",
  "/__sandbox/reset"
])
/** Fixed so that a failure reproduces; `FUZZ_SEED` and `FUZZ_RUNS` explore further from the shell. */
const seed = Number(process.env["FUZZ_SEED"] ?? 20_260_522)
const numRuns = (fallback: number) => Number(process.env["FUZZ_RUNS"] ?? fallback)

/** The path the server routes on: what `new URL` makes of the raw target (dot segments resolved). */
const routedPath = (path: string): string =>
  URL.canParse(path, "http://sandbox.invalid") ? new URL(path, "http://sandbox.invalid").pathname : path

// ---- What a fuzzed request is

/** How the `Authorization` header is made; resolved when sent, since the valid token changes. */
type Auth = "none" | "valid" | "valid-lowercase-scheme" | "valid-extra-spaces" | "valid-trailing-junk" | Wrong
/** Credentials no server may accept: a revoked or forged token, or none. */
type Wrong = "revoked" | "foreign-key" | "alg-none" | "tampered-claims" | "truncated" | NoToken
type NoToken = "basic" | "scheme-only" | "garbage"

/** A body, described rather than built, so that large ones are not held by fast-check. */
type Body =
  | { readonly _tag: "None" }
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }
  | { readonly _tag: "Large"; readonly bytes: number; readonly fill: "json" | "ascii" | "multibyte" }

interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly auth: Auth
  readonly headers: Readonly<Record<string, string>>
  readonly body: Body
  /** Send the body with `Content-Length` (its exact size) or chunked. */
  readonly framing: "length" | "chunked"
}

// ---- Arbitraries

/**
 * Methods Node's HTTP parser accepts, common and odd. Tokens it refuses (`FOO`, lower case) never
 * reach the sandbox's app; see "requests Node's parser refuses" below.
 */
const methodArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(..."PROPFIND PURGE MKCOL SEARCH REPORT LOCK QUERY TRACE LINK M-SEARCH".split(" "))
  }
)

const hex = (b: number) => "%" + b.toString(16).toUpperCase().padStart(2, "0")

/** Printable ASCII except `?` and `#`: what may appear raw in a request target's path. */
const pathChars = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).filter((c) =>
  c !== "?" && c !== "#"
)

const segmentArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...pathChars), maxLength: 16 }),
  fc.stringMatching(/^[A-Za-z0-9]{1,14}$/),
  fc.uint8Array({ maxLength: 12 }).map((bytes) => Array.from(bytes, hex).join("")),
  fc.string({ unit: "grapheme", maxLength: 6 }).map(encodeURIComponent),
  fc.constantFrom("..", ".", "", "%2e%2e", "%2F", "%", "%zz", "%00", "%E0%A4%A", "__sandbox", "public", "v1", "design")
)

const designSegmentArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.values(Sandbox.fixedNumbers), "000000000", "999999999") },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{0,16}$/) },
  { weight: 1, arbitrary: segmentArb },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...Object.values(Sandbox.fixedNumbers)), segmentArb).map(([n, s]) =>
      `${n}/${s}`
    )
  }
)

const queryArb = fc.oneof(
  fc.constant(""),
  fc.constant("?"),
  fc.array(fc.tuple(segmentArb, segmentArb), { maxLength: 4 }).map((pairs) =>
    "?" + pairs.map(([k, v]) => `${k}=${v}`).join("&")
  )
)

const pathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(tokenPath, searchPath), queryArb).map(([p, q]) => p + q) },
  { weight: 4, arbitrary: fc.tuple(designSegmentArb, queryArb).map(([s, q]) => designPath + s + q) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom(...controlRoutes, "/__sandbox", "/__sandbox/", "/__sandbox/explode"), queryArb)
      .map(([p, q]) => p + q)
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constantFrom("", "/__sandbox", DesignSearchConfig.apiPath, "/public", "//", "/./", "/../.."),
      fc.array(segmentArb, { minLength: 1, maxLength: 6 }),
      queryArb
    ).map(([prefix, segments, q]) => `${prefix}/${segments.join("/")}${q}`)
  },
  // Long, but within Node's 16 KiB limit on a request head (beyond it, see below).
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1000, max: 8000 }), fc.constantFrom("a", "%41", "../", "/")).map((
      [n, unit]
    ) => "/" + unit.repeat(Math.ceil(n / unit.length)))
  }
)

const authArb: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Auth>("valid") },
  { weight: 2, arbitrary: fc.constant<Auth>("none") },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Auth>(
      "valid-lowercase-scheme",
      "valid-extra-spaces",
      "valid-trailing-junk",
      "revoked",
      "foreign-key",
      "alg-none",
      "tampered-claims",
      "truncated",
      "basic",
      "scheme-only",
      "garbage"
    )
  }
)

/** Content types, each between two `|`: JSON, forms and others, odd cases, the empty one. */
const contentTypes =
  "application/json|application/json; charset=utf-8|APPLICATION/JSON|application/x-www-form-urlencoded|" +
  "application/x-www-form-urlencoded; charset=utf-8|text/plain|multipart/form-data; boundary=xyz||*/*|" +
  "application/json; charset=latin1|application/problem+json|x"
const contentTypeArb = fc.option(fc.constantFrom(...contentTypes.split("|")), { nil: undefined })

/** Header values undici will send: printable ASCII, no leading or trailing space. */
const headerValueArb = fc.string({ unit: fc.constantFrom(...pathChars, " ", "?", "#"), maxLength: 120 }).map((s) =>
  s.trim()
)
const extraHeaderNameArb = fc.stringMatching(/^x-[a-z0-9-]{1,20}$/)

const headersArb = fc.record({
  contentType: contentTypeArb,
  accept: fc.option(fc.constantFrom("application/json", "*/*", "text/html", "application/xml", ""), { nil: undefined }),
  /** None of them the sandbox's own (undici sends that one when none is set). */
  host: fc.option(fc.constantFrom("evil.example", "localhost", "[::1]:1", "127.0.0.1"), { nil: undefined }),
  /** None of them the sandbox's own: the origins of pages. */
  origin: fc.option(fc.constantFrom("http://evil.example", "null", "http://localhost", "https://127.0.0.1"), {
    nil: undefined,
    freq: 4
  }),
  extra: fc.dictionary(extraHeaderNameArb, headerValueArb, { maxKeys: 3 })
}).map(({ accept, contentType, extra, host, origin }) => ({
  ...extra,
  ...(contentType === undefined ? {} : { "content-type": contentType }),
  ...(accept === undefined ? {} : { accept }),
  ...(host === undefined ? {} : { host }),
  ...(origin === undefined ? {} : { origin })
}))

const searchWords = ["chair", "bottle", "watch", "lamp", "a", " ", "", "Pty", "0", "*", "\u0000", "ü"]

/** Mostly `arb`, sometimes `rare`: values that pass validation, with the odd one that should not. */
const mostly = <A>(arb: fc.Arbitrary<A>, rare: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: rare })
/** Absent half the time. */
const maybe = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: undefined, freq: 2 })
/** Absent seven times in eight: for what makes a body invalid on its own. */
const rarely = <A>(arb: fc.Arbitrary<A>) =>
  fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb })

/** Bodies close to a real quick search, so that plenty reach validation and the index. */
const searchBodyArb = fc.record({
  query: mostly(
    fc.constantFrom(...searchWords),
    fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null))
  ),
  changedSinceDate: maybe(
    mostly(
      fc.constantFrom("2020-01-01", "1999-12-31"),
      fc.oneof(fc.constantFrom("2020-02-30", "2020-1-1", ""), fc.string({ maxLength: 12 }))
    )
  ),
  filters: maybe(fc.record({
    statusFilter: maybe(
      fc.array(mostly(fc.constantFrom("REGISTERED", "FILED", "LAPSED"), fc.string({ maxLength: 8 })), { maxLength: 3 })
    ),
    classificationFilter: maybe(
      fc.array(
        mostly(fc.constantFrom("06-01", "0202c", "99"), fc.oneof(fc.constant("(("), fc.string({ maxLength: 8 }))),
        { maxLength: 3 }
      )
    )
  })),
  sort: maybe(fc.record({
    field: mostly(fc.constant("NUMBER"), fc.constantFrom("TITLE", "")),
    direction: mostly(fc.constantFrom("ASCENDING", "DESCENDING"), fc.constant("UP"))
  })),
  extra: rarely(fc.jsonValue({ maxDepth: 2 }))
})

/** Bodies close to a real fault, so that plenty are accepted (and undone at once, see `mutated`). */
const faultBodyArb = fc.record({
  target: mostly(fc.constantFrom("token", "search", "design", "any"), fc.string({ maxLength: 8 })),
  status: mostly(
    fc.integer({ min: 200, max: 599 }),
    fc.oneof(fc.integer({ min: -1, max: 1000 }), fc.double(), fc.string({ maxLength: 4 }))
  ),
  count: maybe(mostly(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, -1, 1.5, 2_000_000))),
  body: maybe(fc.jsonValue({ maxDepth: 2 })),
  headers: maybe(
    mostly(
      fc.dictionary(extraHeaderNameArb, fc.stringMatching(/^[a-z0-9]{0,10}$/), { maxKeys: 2 }),
      fc.jsonValue({ maxDepth: 1 })
    )
  ),
  delayMs: maybe(mostly(fc.integer({ min: 0, max: 600_000 }), fc.constantFrom(-1, 600_001, 0.5))),
  colour: rarely(fc.string({ maxLength: 4 }))
})

const formBodyArb = fc.oneof(
  fc.constant(
    `grant_type=client_credentials&client_id=${Sandbox.defaults.clientId}&client_secret=${Sandbox.defaults.clientSecret}`
  ),
  fc.record({
    grant_type: fc.constantFrom("client_credentials", "password", "", "client_credentials "),
    client_id: fc.constantFrom(Sandbox.defaults.clientId, "someone", ""),
    client_secret: fc.constantFrom(Sandbox.defaults.clientSecret, "wrong", "")
  }, { requiredKeys: [] }).map((fields) => new URLSearchParams(fields).toString()),
  fc.array(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })), { maxLength: 5 }).map((pairs) =>
    new URLSearchParams(pairs).toString()
  ),
  fc.constantFrom("%", "&&&", "=", "grant_type=client_credentials&grant_type=password", "client_id=%ZZ")
)

const brokenJsonArb = fc.tuple(
  fc.jsonValue({ maxDepth: 3 }),
  fc.nat(),
  fc.constantFrom("", "}", "{", ",", "\u0000", "\"", "NaN", "'")
)
  .map(([value, cut, junk]) => {
    const text = JSON.stringify(value)
    return text.slice(0, cut % (text.length + 1)) + junk
  })

const bodyArb: fc.Arbitrary<Body> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Body>({ _tag: "None" }) },
  { weight: 4, arbitrary: searchBodyArb.map((v): Body => ({ _tag: "Text", text: JSON.stringify(v) })) },
  { weight: 3, arbitrary: faultBodyArb.map((v): Body => ({ _tag: "Text", text: JSON.stringify(v) })) },
  { weight: 3, arbitrary: formBodyArb.map((text): Body => ({ _tag: "Text", text })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v): Body => ({ _tag: "Text", text: JSON.stringify(v) })) },
  { weight: 2, arbitrary: brokenJsonArb.map((text): Body => ({ _tag: "Text", text })) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes): Body => ({ _tag: "Bytes", bytes })) },
  {
    weight: 1,
    arbitrary: fc.record({
      bytes: fc.constantFrom(limit - 64, limit - 1, limit, limit + 1, limit + 4096, 2 * limit),
      fill: fc.constantFrom<"json" | "ascii" | "multibyte">("json", "ascii", "multibyte")
    }).map(({ bytes, fill }): Body => ({ _tag: "Large", bytes, fill }))
  }
)

const framingArb = fc.constantFrom<"length" | "chunked">("length", "length", "chunked")

/** Anything at all: every method, path, header and body combined at random. */
const wildArb: fc.Arbitrary<FuzzRequest> = fc.record({
  method: methodArb,
  path: pathArb,
  auth: authArb,
  headers: headersArb,
  body: bodyArb,
  framing: framingArb
})

/**
 * A request shaped for one route (its method mostly, its kind of body mostly), so that plenty get
 * past the method and content checks to the decoding, the index and the token logic behind them.
 */
const aimedArb = (
  method: string,
  path: fc.Arbitrary<string>,
  contentType: fc.Arbitrary<string | undefined>,
  body: fc.Arbitrary<Body>
): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    method: fc.oneof({ weight: 9, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: methodArb }),
    path,
    auth: authArb,
    headers: fc.tuple(headersArb, contentType).map(([headers, type]) =>
      type === undefined ? headers : { ...headers, "content-type": type }
    ),
    body: fc.oneof({ weight: 4, arbitrary: body }, { weight: 1, arbitrary: bodyArb }),
    framing: framingArb
  })

const jsonType = fc.oneof(
  { weight: 4, arbitrary: fc.constant<string | undefined>("application/json") },
  { weight: 1, arbitrary: contentTypeArb }
)
const text = (arb: fc.Arbitrary<unknown>) => arb.map((v): Body => ({ _tag: "Text", text: JSON.stringify(v) }))

const requestArb: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 4, arbitrary: wildArb },
  {
    weight: 2,
    arbitrary: aimedArb(
      "POST",
      fc.oneof({ weight: 4, arbitrary: fc.constant(tokenPath) }, {
        weight: 1,
        arbitrary: queryArb.map((q) => tokenPath + q)
      }),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant<string | undefined>("application/x-www-form-urlencoded") },
        { weight: 1, arbitrary: contentTypeArb }
      ),
      formBodyArb.map((t): Body => ({ _tag: "Text", text: t }))
    )
  },
  {
    weight: 3,
    arbitrary: aimedArb(
      "POST",
      fc.oneof({ weight: 4, arbitrary: fc.constant(searchPath) }, {
        weight: 1,
        arbitrary: queryArb.map((q) => searchPath + q)
      }),
      jsonType,
      fc.oneof({ weight: 4, arbitrary: text(searchBodyArb) }, {
        weight: 1,
        arbitrary: brokenJsonArb.map((t): Body => ({ _tag: "Text", text: t }))
      })
    )
  },
  {
    weight: 3,
    arbitrary: aimedArb(
      "GET",
      fc.tuple(
        designSegmentArb,
        fc.oneof({ weight: 4, arbitrary: fc.constant("") }, { weight: 1, arbitrary: queryArb })
      )
        .map(([segment, q]) => designPath + segment + q),
      fc.constant(undefined),
      fc.constant<Body>({ _tag: "None" })
    )
  },
  { weight: 2, arbitrary: aimedArb("POST", fc.constant("/__sandbox/faults"), jsonType, text(faultBodyArb)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ["GET", "/__sandbox/stats"] as const,
      ["POST", "/__sandbox/revoke-tokens"] as const,
      ["POST", "/__sandbox/reset"] as const
    )
      .chain(([method, path]) =>
        aimedArb(method, fc.constant(path), fc.constant(undefined), fc.constant<Body>({ _tag: "None" }))
      )
  }
)

// ---- Sending

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url")

/** The tokens a fuzzed request may carry: the valid one is replaced whenever the sandbox is reset. */
interface Tokens {
  valid: string
  revoked: string
}

/** A token shaped exactly like the sandbox's, with good claims, signed with a key it never had. */
const foreignToken = (() => {
  const now = Math.floor(Date.now() / 1000)
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: "sandbox" }))
  const claims = base64url(JSON.stringify({
    sub: Sandbox.defaults.clientId,
    token_use: "access",
    scope: "x",
    auth_time: now,
    iss: Sandbox.inProcessUrl,
    exp: now + 3600,
    iat: now,
    jti: "sbx-1",
    client_id: Sandbox.defaults.clientId
  }))
  const signature = createHmac("sha256", "not the sandbox's key").update(`${header}.${claims}`).digest("base64url")
  return `${header}.${claims}.${signature}`
})()

const authorization = (auth: Auth, tokens: Tokens): string | undefined => {
  const [header = "", claims = "", signature = ""] = tokens.valid.split(".")
  switch (auth) {
    case "none":
      return undefined
    case "valid":
      return `Bearer ${tokens.valid}`
    case "valid-lowercase-scheme":
      return `bearer ${tokens.valid}`
    case "valid-extra-spaces":
      return `Bearer    ${tokens.valid}`
    case "valid-trailing-junk":
      return `Bearer ${tokens.valid} junk`
    case "revoked":
      return `Bearer ${tokens.revoked}`
    case "foreign-key":
      return `Bearer ${foreignToken}`
    case "alg-none":
      return `Bearer ${base64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${claims}.`
    case "tampered-claims": {
      const decoded = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as Record<string, unknown>
      return `Bearer ${header}.${base64url(JSON.stringify({ ...decoded, exp: 9_999_999_999 }))}.${signature}`
    }
    case "truncated":
      return `Bearer ${tokens.valid.slice(0, -5)}`
    case "basic":
      return `Basic ${Buffer.from(`${Sandbox.defaults.clientId}:${Sandbox.defaults.clientSecret}`).toString("base64")}`
    case "scheme-only":
      return "Bearer"
    case "garbage":
      return "Bearer !!!.###.$$$"
  }
}

const largeBody = (bytes: number, fill: "json" | "ascii" | "multibyte"): Buffer => {
  switch (fill) {
    case "ascii":
      return Buffer.alloc(bytes, "a")
    case "multibyte":
      // Two bytes a character: half as many characters as bytes, a check on counting bytes, not characters.
      return Buffer.alloc(bytes - (bytes % 2), "ÿ")
    case "json": {
      const open = Buffer.from("{\"query\":\"")
      const close = Buffer.from("\"}")
      return Buffer.concat([open, Buffer.alloc(Math.max(0, bytes - open.length - close.length), "a"), close])
    }
  }
}

const bodyBytes = (body: Body): Buffer | undefined => {
  switch (body._tag) {
    case "None":
      return undefined
    case "Text":
      return Buffer.from(body.text, "utf8")
    case "Bytes":
      return Buffer.from(body.bytes)
    case "Large":
      return largeBody(body.bytes, body.fill)
  }
}

interface Answer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: Buffer
}

/** Time a single exchange may take: far more than any honest answer needs, short enough to fail a hang. */
const exchangeTimeout = 10_000

const send = async (pool: Pool, request: FuzzRequest, tokens: Tokens): Promise<Answer> => {
  const bytes = bodyBytes(request.body)
  const auth = authorization(request.auth, tokens)
  const headers: Record<string, string> = {
    ...request.headers,
    ...(auth === undefined ? {} : { authorization: auth }),
    ...(bytes !== undefined && request.framing === "length" ? { "content-length": String(bytes.length) } : {})
  }
  const body = bytes === undefined
    ? null
    : request.framing === "length"
    ? bytes
    : Readable.from(
      Array.from({ length: Math.ceil(bytes.length / 65536) || 1 }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536))
    )
  const response = await pool.request({
    method: request.method,
    path: request.path,
    headers,
    body,
    headersTimeout: exchangeTimeout,
    bodyTimeout: exchangeTimeout
  })
  const contentType = response.headers["content-type"]
  return {
    status: response.statusCode,
    contentType: Array.isArray(contentType) ? contentType.join(",") : contentType,
    body: Buffer.from(await response.body.arrayBuffer())
  }
}

// ---- The contract

const decodeErrors = decodeUnknownResult(ApiError.ErrorPayload)
const OAuthError = Schema.Struct({ error: Schema.String, error_description: Schema.optional(Schema.String) })
const decodeOAuthError = decodeUnknownResult(OAuthError)

const parseJsonBody = (answer: Answer, what: string): unknown => {
  expect(answer.contentType ?? "", `${what}: content-type`).toMatch(/^application\/json\b/)
  const text = answer.body.toString("utf8")
  try {
    return JSON.parse(text) as unknown
  } catch {
    return expect.fail(`${what}: body is not JSON: ${text.slice(0, 200)}`)
  }
}

/** The API's own routes, where nothing is served without a good token. */
const isApiPath = (path: string) => path.startsWith(DesignSearchConfig.apiPath + "/")
/** Authorization headers a spec-conforming server may accept (the scheme is case-insensitive, RFC 9110). */
const acceptedAuth: ReadonlySet<Auth> = new Set(["valid", "valid-lowercase-scheme", "valid-extra-spaces"])

/** Control routes, where no page is served. */
const isControlPath = (path: string) => path === "/__sandbox" || path.startsWith("/__sandbox/")
/** `application/json` with any parameters, in any case: the only body the faults route reads. */
const isJsonType = (type: string | undefined) => type?.split(";")[0]?.trim().toLowerCase() === "application/json"

/**
 * What every answer must be: no 5xx (no fault is pending while fuzzing, so a 5xx is the sandbox
 * failing); no body for HEAD, 204 and 304; JSON for any other 2xx, and on the API's routes only for a
 * good token, never for a Host other than the sandbox's (every one the fuzzer sets), on the control
 * routes never for a page's Origin (every one the fuzzer sets), and on the faults route only for a
 * JSON body; otherwise a spec-shaped error body, or on the token endpoint alone an RFC 6749 error.
 */
const checkAnswer = (request: FuzzRequest, answer: Answer): void => {
  const what = `${request.method} ${request.path.slice(0, 120)} → ${answer.status}`
  const path = routedPath(request.path)
  expect(answer.status, what).toBeGreaterThanOrEqual(200)
  expect(answer.status, `${what}: ${answer.body.toString("utf8").slice(0, 200)}`).toBeLessThan(500)
  if (answer.status < 300 && isApiPath(path)) {
    expect(acceptedAuth.has(request.auth), `${what}: served with ${request.auth} credentials`).toBe(true)
  }
  if (answer.status < 300) {
    expect(request.headers["host"], `${what}: served for a foreign Host`).toBeUndefined()
  }
  if (answer.status < 300 && isControlPath(path)) {
    expect(request.headers["origin"], `${what}: control served to a page`).toBeUndefined()
  }
  if (answer.status < 300 && path === "/__sandbox/faults") {
    expect(isJsonType(request.headers["content-type"]), `${what}: a fault read from a non-JSON body`).toBe(true)
  }
  if (request.method === "HEAD" || answer.status === 204 || answer.status === 304) {
    expect(answer.body.length, `${what}: a body where none may be`).toBe(0)
    return
  }
  const body = parseJsonBody(answer, what)
  if (answer.status < 300) return
  const errors = Result.getOrUndefined(decodeErrors(body))
  if (errors !== undefined) {
    expect(errors.errors.length, `${what}: empty errors`).toBeGreaterThan(0)
    for (const error of errors.errors) {
      expect(typeof error.id, `${what}: error without id`).toBe("string")
      expect(error.code, what).not.toBe("")
      expect(error.detail, what).not.toBe("")
    }
    return
  }
  expect(
    routedPath(request.path),
    `${what}: neither an errors body nor on the token endpoint: ${JSON.stringify(body).slice(0, 200)}`
  ).toBe(tokenPath)
  const oauth = Result.getOrUndefined(decodeOAuthError(body))
  expect(oauth, `${what}: not an RFC 6749 error body: ${JSON.stringify(body).slice(0, 200)}`).toBeDefined()
  expect(oauth?.error, what).not.toBe("")
}

/** A successful call to a control route that changes state: undone before the next request. */
const mutated = (request: FuzzRequest, answer: Answer) =>
  answer.status >= 200 && answer.status < 300 && mutatingRoutes.has(routedPath(request.path))

// ---- The harness: one served sandbox, a raw pool, a real client beside them

const mintToken = (pool: Pool) =>
  Effect.promise(async () => {
    const response = await pool.request({
      method: "POST",
      path: tokenPath,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: Sandbox.defaults.clientId,
        client_secret: Sandbox.defaults.clientSecret
      }).toString()
    })
    const body = Schema.decodeUnknownSync(Schema.Struct({ access_token: Schema.String }))(await response.body.json())
    return body.access_token
  })

/** Serves a sandbox, opens a pool to it and a real client, and mints one revoked and one valid token. */
const harness = Effect.gen(function*() {
  const served = yield* Sandbox.serve({ port: 0, designs: 300 })
  const pool = yield* Effect.acquireRelease(
    Effect.sync(() => new Pool(served.url, { connections: 16, pipelining: 1 })),
    (pool) => Effect.promise(() => pool.destroy())
  )
  const client = yield* servedClient(served)
  const revoked = yield* mintToken(pool)
  yield* served.control.revokeTokens
  const tokens: Tokens = { valid: yield* mintToken(pool), revoked }
  // What the properties run needs no service.
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

  /** Puts the sandbox back after a fuzzed request changed it, with a fresh valid token. */
  const restore = Effect.gen(function*() {
    yield* served.control.reset
    tokens.valid = yield* mintToken(pool)
  })

  /** A well-behaved client is still served, and the control routes still answer. */
  const healthy = Effect.gen(function*() {
    const { data } = yield* client.quickSearch({ query: "chair" })
    expect(data.designNumbers).toContain(Sandbox.fixedNumbers.chair)
    const stats = yield* Effect.promise(async () => {
      const response = await pool.request({ method: "GET", path: "/__sandbox/stats" })
      return { status: response.statusCode, body: await response.body.json() }
    })
    expect(stats.status).toBe(200)
    expect(stats.body).toMatchObject({ tokensIssued: expect.any(Number), requests: expect.any(Object) })
  })

  return { served, pool, client, tokens, run, restore, healthy }
})

describe("the served sandbox under fuzzing", () => {
  it.live(
    "answers every arbitrary request with a spec-shaped body, and keeps serving",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const h = yield* harness
        let done = 0
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(requestArb, async (request) => {
              const answer = await send(h.pool, request, h.tokens)
              try {
                checkAnswer(request, answer)
              } finally {
                if (mutated(request, answer)) await h.run(h.restore)
              }
              if (++done % 25 === 0) await h.run(h.healthy)
            }),
            { numRuns: numRuns(300), seed, endOnFailure: true }
          )
        )
        yield* h.healthy
      })),
    60_000
  )

  it.live(
    "serves a well-behaved client while arbitrary requests arrive at the same time",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const h = yield* harness
        // State-changing control calls would reach the other requests of the batch: left to the test above.
        const harmless = requestArb.filter((r) => !mutatingRoutes.has(routedPath(r.path)))
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(harmless, { minLength: 4, maxLength: 12 }), async (batch) => {
              const [answers, design, search] = await Promise.all([
                Promise.all(batch.map((request) => send(h.pool, request, h.tokens))),
                h.run(h.client.getDesign(Sandbox.fixedNumbers.chair)),
                h.run(h.client.quickSearch({ query: "bottle" }))
              ])
              answers.forEach((answer, i) => checkAnswer(batch[i]!, answer))
              expect(design.data.number).toBe(Sandbox.fixedNumbers.chair)
              expect(search.data.designNumbers).toContain(Sandbox.fixedNumbers.bottle)
            }),
            { numRuns: Math.ceil(numRuns(300) / 7), seed, endOnFailure: true }
          )
        )
        yield* h.healthy
      })),
    60_000
  )

  it.live(
    "a body that never ends, an aborted upload and a garbage connection hold up no one else",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const h = yield* harness
        // An upload that stalls half way: the server waits for it, but not at the others' expense.
        const stalled = new PassThrough()
        stalled.write(Buffer.alloc(64 * 1024, "a"))
        const stalledAnswer = h.pool.request({
          method: "POST",
          path: searchPath,
          headers: { authorization: `Bearer ${h.tokens.valid}`, "content-type": "application/json" },
          body: stalled
        }).then((r) => r.body.arrayBuffer().then(() => r.statusCode), (e: unknown) => e)
        // An upload the client gives up on part way.
        const abort = new AbortController()
        const aborting = new PassThrough()
        aborting.write("{\"query\":\"ch")
        const aborted = h.pool.request({
          method: "POST",
          path: searchPath,
          headers: {
            authorization: `Bearer ${h.tokens.valid}`,
            "content-type": "application/json",
            "content-length": "100"
          },
          body: aborting,
          signal: abort.signal
        }).then(() => "answered", () => "aborted")
        // A connection that speaks no HTTP at all: answered (with whatever Node says) and closed.
        const garbage = yield* onSocket(h.served.port, "\u0000\u0001 NOT HTTP\r\n\r\n")
        expect(garbage).toMatch(/^HTTP\/1\.1 400/)

        yield* h.healthy
        abort.abort()
        expect(yield* Effect.promise(() => aborted)).toBe("aborted")
        yield* h.healthy
        stalled.end("\"}")
        // The stalled body, once finished, is no JSON: a 400 with a spec-shaped body, like any other.
        expect(yield* Effect.promise(() => stalledAnswer)).toBe(400)
        yield* h.healthy
      })).pipe(Effect.timeout(Duration.seconds(20))),
    30_000
  )
})

/**
 * Defects the fuzzing found, each as its smallest reproduction, kept out of the properties above.
 * Marked `fails` so that the suite stays green while they stand: once one is fixed its test starts
 * failing; drop its `.fails` then, and widen the arbitraries above as its comment says.
 */
describe("requests Node's parser refuses, bodies over the limit, faults that cannot be served", () => {
  const expectSpecShaped = (raw: string) => {
    const [head = "", body = ""] = raw.split("\r\n\r\n")
    expect(head).toMatch(/^HTTP\/1\.1 4\d\d/)
    expect(head.toLowerCase()).toContain("content-type: application/json")
    expect(Result.isSuccess(decodeErrors(JSON.parse(body) as unknown))).toBe(true)
  }

  // Node's HTTP parser refuses these before the app sees them; the server's `clientError` handler
  // still answers with a spec-shaped error.
  it.live("a method token Node does not know (FOO) gets a spec-shaped 400", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 300 })
      expectSpecShaped(yield* onSocket(served.port, `FOO ${searchPath} HTTP/1.1\r\nHost: x\r\n\r\n`))
    })))

  it.live("a request head over 16 KiB (a 20,000-character path) gets a spec-shaped 431", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 300 })
      expectSpecShaped(yield* onSocket(served.port, `GET /${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`))
    })))

  // Past the limit the body is drained, not stored, so the 413 still reaches the client.
  it.live("a chunked body over the limit to the token endpoint gets a spec-shaped 413", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 300 })
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => new Pool(served.url)),
        (p) => Effect.promise(() => p.destroy())
      )
      const answer = yield* Effect.promise(() =>
        send(pool, {
          method: "POST",
          path: tokenPath,
          auth: "none",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: { _tag: "Large", bytes: 2 * limit, fill: "ascii" },
          framing: "chunked"
        }, { valid: "", revoked: "" }).then((a) => a, (e: unknown) => String(e))
      )
      expect(typeof answer === "string" ? answer : answer.status).toBe(413)
    })))

  /**
   * A fault is either refused (a spec-shaped 4xx) or, once accepted, served as a well-formed
   * response with the status asked for.
   */
  const faultIsServedOrRefused = (fault: Record<string, unknown>) =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 300 })
      const pool = yield* Effect.acquireRelease(Effect.sync(() => new Pool(served.url)), (p) =>
        Effect.promise(() => p.destroy()))
      const post = (path: string, body: string, contentType: string) =>
        Effect.promise(() =>
          send(pool, {
            method: "POST",
            path,
            auth: "none",
            headers: { "content-type": contentType },
            body: { _tag: "Text", text: body },
            framing: "length"
          }, { valid: "", revoked: "" }).then((a) =>
            a, (e: unknown) => String(e))
        )
      const injected = yield* post(
        "/__sandbox/faults",
        JSON.stringify({ target: "token", ...fault }),
        "application/json"
      )
      if (typeof injected === "string") return expect.fail(`injection got no answer: ${injected}`)
      if (injected.status !== 201) {
        expect(Result.isSuccess(decodeErrors(JSON.parse(injected.body.toString("utf8")) as unknown))).toBe(true)
        return
      }
      const answer = yield* post(tokenPath, "grant_type=client_credentials", "application/x-www-form-urlencoded")
      expect(typeof answer === "string" ? answer : answer.status).toBe(fault["status"])
    })

  // Header names and values are checked against HTTP's grammar when the fault is injected.
  it.live("a fault with a header name HTTP forbids is refused or served as asked", () =>
    Effect.scoped(faultIsServedOrRefused({ status: 503, headers: { "bad header": "x" } })))

  // A 204 or 304 answer has no body.
  it.live("a 204 fault with a body is refused or served as asked", () =>
    Effect.scoped(faultIsServedOrRefused({ status: 204, body: "hello" })))

  // The framing headers are the server's own.
  it.live("a fault with a Transfer-Encoding header is refused or served as asked", () =>
    Effect.scoped(faultIsServedOrRefused({ status: 503, headers: { "transfer-encoding": "gzip" } })))
})
