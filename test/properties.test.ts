import { HttpClient, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FastCheck as fc, Layer, Option, Schedule } from "effect"
import { DesignSearchClient, DesignSearchConfig, TokenService } from "../src/index.js"

/** Statuses a `Response` can carry, and the ones that must have no body. */
const status = fc.integer({ min: 200, max: 599 })
const nullBody = new Set([204, 205, 304])

/** The client's secret and the token it is given: each a mix of characters every encoding writes its own way. */
const secret = "pr0p-Secret/+= é&\"q"
const tokenValue = "pr0p.Tok-en~/+=="
const goodToken = JSON.stringify({ access_token: tokenValue, expires_in: 3600, token_type: "Bearer" })

const form = (s: string) => new URLSearchParams({ s }).toString().slice(2)
const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())

/** A form a secret is sent or echoed in: as is, form- or percent-encoded (hex digits in either case). */
const encodings: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  form,
  encodeURIComponent,
  (s) => lowerHex(encodeURIComponent(s)),
  (s) => lowerHex(form(s))
]

/**
 * Base64 of a text with 0 to 4 bytes before it (each alignment), in either alphabet, padded or not,
 * on one line or wrapped in lines (MIME: 76 columns, CRLF; any width, LF).
 */
const base64Encoding = fc.record({
  lead: fc.nat({ max: 4 }),
  urlSafe: fc.boolean(),
  padded: fc.boolean(),
  wrap: fc.option(
    fc.record({ width: fc.oneof(fc.constant(76), fc.integer({ min: 4, max: 76 })), eol: fc.constantFrom("\r\n", "\n") })
  )
}).map(({ lead, padded, urlSafe, wrap }) => (s: string) => {
  const text = Buffer.from("<".repeat(lead) + s, "utf8").toString(urlSafe ? "base64url" : "base64")
  const lines = padded ? text : text.replace(/=+$/, "")
  return wrap === null ? lines : lines.replace(new RegExp(`[^]{${wrap.width}}(?=[^])`, "g"), (l) => l + wrap.eol)
})

/** Where a server echoes a secret: alone, in a header line, in the form it got. */
const frames: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  (s) => `Authorization: Bearer ${s}`,
  (s) => `grant_type=client_credentials&client_id=id&client_secret=${s}`
]

/**
 * How a server may echo a secret: in one of those forms, in one of those places; or that in base64,
 * of the secret as is or form-encoded (as it was sent). A JSON body escapes what it holds.
 */
const plainEcho = fc.tuple(fc.constantFrom(...encodings), fc.constantFrom(...frames))
  .map(([encode, frame]) => (s: string) => frame(encode(s)))
const base64Echo = fc.tuple(fc.constantFrom(...encodings.slice(0, 2)), fc.constantFrom(...frames), base64Encoding)
  .map(([encode, frame, base64]) => (s: string) => base64(frame(encode(s))))
const echoOf = fc.oneof(plainEcho, base64Echo)
const echoed = fc.tuple(echoOf, fc.constantFrom(secret, tokenValue)).map(([echo, s]) => echo(s))

/** Bodies of an echoing server: the secret or the token, echoed, anywhere a text is kept. */
const echoingBody = fc.oneof(
  echoed.map((e) => `<html><pre>${e}</pre></html>`),
  echoed.map((e) => JSON.stringify({ errors: [{ code: "500", detail: e, meta: { e: [[e]], [e]: 1 } }], echo: e })),
  echoed.map((e) => JSON.stringify({ errors: [{ code: "500", detail: e }] }).replace(/\//g, "\\/")), // PHP's json_encode
  echoed.map((e) =>
    JSON.stringify({
      errors: [{ code: e, detail: "x", source: { pointer: `/${e}` } }],
      messages: [{ code: "M", detail: e }]
    })
  ),
  echoed.map((e) => JSON.stringify({ data: { count: 0, designNumbers: [] }, messages: [{ code: "W", detail: e }] })),
  echoed.map((e) => JSON.stringify({ count: e, designNumbers: [e] })),
  echoed.map((e) => JSON.stringify({ number: e, filingDate: e })),
  echoed.map((e) => JSON.stringify({ error: "invalid_client", error_description: e })),
  echoed.map((e) => JSON.stringify({ access_token: "abc", token_type: "Bearer", expires_in: e })),
  echoed.map((e) => JSON.stringify({ access_token: e, token_type: "Bearer", expires_in: e }))
)

/** A body wrapped in arrays a few, a hundred or thousands of levels deep, or a JSON value that deep. */
const nestingBody = fc.oneof(
  fc.tuple(fc.constantFrom(1, 100, 3000), fc.jsonValue()).map(([depth, v]) =>
    "[".repeat(depth) + JSON.stringify(v) + "]".repeat(depth)
  ),
  fc.tuple(fc.constantFrom("count", "designNumbers", "messages", "errors", "data"), fc.constantFrom(70, 3000)).map((
    [field, depth]
  ) => `{"${field}":${"[".repeat(depth)}${"]".repeat(depth)},"errors":[{"code":"c","detail":"d"}]}`),
  fc.constantFrom(70, 3000).map((depth) =>
    `{"access_token":"abc","token_type":"Bearer","expires_in":${"[".repeat(depth)}1${"]".repeat(depth)}}`
  )
)

const body = fc.oneof(
  fc.json(),
  fc.string(),
  fc.constant(""),
  fc.constant("<html><body>Bad Gateway</body></html>"),
  fc.jsonValue().map((v) => JSON.stringify({ data: v, messages: [] })),
  fc.jsonValue().map((v) => JSON.stringify({ errors: v })),
  fc.record({
    errors: fc.array(fc.record({ code: fc.string(), detail: fc.string(), source: fc.record({ pointer: fc.string() }) }))
  })
    .map((v) => JSON.stringify(v)),
  fc.record({ count: fc.integer(), designNumbers: fc.array(fc.string()) }).map((v) => JSON.stringify(v)),
  fc.record({ number: fc.string(), filingDate: fc.string() }).map((v) => JSON.stringify(v)),
  { arbitrary: echoingBody, weight: 3 },
  nestingBody
)

const headers = fc.record({
  "content-type": fc.constantFrom("application/json", "text/html", "text/plain", "application/problem+json"),
  "retry-after": fc.oneof(
    fc.nat().map(String),
    fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
    fc.constant("soon")
  )
}, { requiredKeys: [] })

const respond = (
  request: Parameters<Parameters<typeof HttpClient.make>[0]>[0],
  s: number,
  h: Record<string, string>,
  b: string
) => HttpClientResponse.fromWeb(request, new Response(nullBody.has(s) ? null : b, { status: s, headers: h }))

/** A service whose token endpoint answers `token` and whose API answers `api`. */
const fakeService = (
  token: { status: number; headers: Record<string, string>; body: string },
  api: { status: number; headers: Record<string, string>; body: string }
) =>
  HttpClient.make((request, url) =>
    Effect.succeed(
      url.pathname.endsWith("/access_token")
        ? respond(request, token.status, token.headers, token.body)
        : respond(request, api.status, api.headers, api.body)
    )
  )

const config = DesignSearchConfig.layer({ clientId: "id", clientSecret: secret })

/** One layer of HTML references, percent escapes (any case), JSON escapes. */
const unescaped = (text: string) =>
  text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\(["\\/])/g, "$1")
    .replace(/\\r/g, "\r")
    .replace(/\\n/g, "\n")
    .replace(/&#[xX]([0-9a-fA-F]+);?/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#([0-9]+);?/g, (_, d: string) => String.fromCodePoint(parseInt(d, 10)))
    .replace(
      /&(amp|quot|lt|gt|apos);/g,
      (_, n: string) => ({ amp: "&", quot: "\"", lt: "<", gt: ">", apos: "'" })[n] ?? n
    )
    .replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run)
      } catch {
        return run
      }
    })

/** Quoted-printable read back: soft line breaks dropped, `=XX` bytes read as UTF-8. */
const unquoted = (text: string) =>
  text.replace(/=\r?\n/g, "").replace(
    /(?:=[0-9A-F]{2})+/g,
    (run) => Buffer.from(run.replaceAll("=", ""), "hex").toString("utf8")
  )

/** Each run of base64 (either alphabet, across line breaks) read as UTF-8 from its first character. */
const unbased = (text: string) =>
  text.replace(
    /[A-Za-z0-9+/_-](?:[A-Za-z0-9+/_-]|\r?\n *)*=*/g,
    (run) => Buffer.from(run.replace(/\s/g, ""), "base64").toString("utf8")
  )

/** Line breaks and the indents after them taken out. */
const unwrapped = (text: string) => text.replace(/\r?\n */g, "")

/**
 * `text` and each reading of it that a decoder gives, layer after layer, each layer read every way
 * (escapes, quoted-printable, base64, lines unwrapped). Written apart from the toolkit's own, to
 * check it.
 */
const readings = (text: string): ReadonlyArray<string> => {
  const seen = new Set([text])
  let layer = [text]
  for (let i = 0; i < 8 && seen.size < 400; i++) {
    const next: Array<string> = []
    for (const t of layer) {
      for (const decode of [unescaped, unquoted, unbased, unwrapped]) {
        const d = decode(t)
        if (!seen.has(d)) {
          seen.add(d)
          next.push(d)
        }
      }
    }
    layer = next
  }
  return [...seen]
}

/** The API is sent the token only (never the secret): its answers are masked of the token. */
const apiSecrets = [tokenValue]
const tokenEndpointSecrets = [secret]

/**
 * No text of an outcome (a failure's fields and message, a success's messages), read through any
 * number of decodings, holds one of `secrets` (or it with its spaces as `+`, as forms write them).
 */
const holdsNoSecret = <A>(exit: Exit.Exit<A, unknown>, secrets: ReadonlyArray<string>): boolean => {
  const shown = Exit.isSuccess(exit)
    ? JSON.stringify(exit.value)
    : Cause.failureOption(exit.cause).pipe(
      Option.match({ onNone: () => "", onSome: (e) => JSON.stringify(e) + String(e) })
    )
  const forms = secrets.flatMap((s) => [s, s.replaceAll(" ", "+"), s.replace(/\s/g, "")])
  return readings(shown).every((text) => forms.every((form) => !text.includes(form)))
}

const apiErrorTags = new Set([
  "BadRequestError",
  "ValidationError",
  "AuthenticationError",
  "ForbiddenError",
  "NotFoundError",
  "RateLimitError",
  "ServerError",
  "TokenError",
  "TransportError",
  "UnexpectedResponseError"
])

/** Success, or exactly one failure with one of the toolkit's tags: no defect, no interruption. */
const isSuccessOrTypedError = <A>(exit: Exit.Exit<A, { readonly _tag: string }>) =>
  Exit.isSuccess(exit) || (exit.cause._tag === "Fail" && apiErrorTags.has(exit.cause.error._tag))

describe("properties", () => {
  it.effect.prop(
    "any status, headers and body from the API give a success or a typed error",
    { s: status, h: headers, b: body },
    ({ b, h, s }) =>
      Effect.gen(function*() {
        const layer = DesignSearchClient.layer({ retrySchedule: Schedule.stop }).pipe(
          Layer.provide(Layer.succeed(
            HttpClient.HttpClient,
            fakeService({ status: 200, headers: {}, body: goodToken }, { status: s, headers: h, body: b })
          )),
          Layer.provide(config)
        )
        const [search, design] = yield* Effect.provide(
          Effect.flatMap(DesignSearchClient.DesignSearchClient, (client) =>
            Effect.all([
              Effect.exit(client.quickSearch({ query: "chair" })),
              Effect.exit(client.getDesign("201900001"))
            ])),
          layer
        )
        expect(isSuccessOrTypedError(search)).toBe(true)
        expect(isSuccessOrTypedError(design)).toBe(true)
        expect(holdsNoSecret(search, apiSecrets)).toBe(true)
        expect(holdsNoSecret(design, apiSecrets)).toBe(true)
        if (s >= 300) {
          expect(Exit.isFailure(search)).toBe(true)
          expect(Exit.isFailure(design)).toBe(true)
        }
      }),
    { fastCheck: { numRuns: 200 } }
  )

  it.effect.prop(
    "any answer of the token endpoint gives a token or a TokenError",
    { s: status, h: headers, b: body },
    ({ b, h, s }) =>
      Effect.gen(function*() {
        const layer = TokenService.layer({ retrySchedule: Schedule.stop }).pipe(
          Layer.provide(Layer.succeed(
            HttpClient.HttpClient,
            fakeService({ status: s, headers: h, body: b }, { status: 500, headers: {}, body: "" })
          )),
          Layer.provide(config)
        )
        const exit = yield* Effect.provide(Effect.exit(Effect.flatMap(TokenService.TokenService, (t) => t.get)), layer)
        expect(Exit.isSuccess(exit) || (exit.cause._tag === "Fail" && exit.cause.error._tag === "TokenError")).toBe(
          true
        )
        if (Exit.isFailure(exit)) expect(holdsNoSecret(exit, tokenEndpointSecrets)).toBe(true)
      }),
    { fastCheck: { numRuns: 200 } }
  )
})
