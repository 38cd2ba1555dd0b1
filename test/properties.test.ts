import { HttpClient, HttpClientResponse } from "#edition/internal/seam"
import { failureOption, soleFailure } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Schedule } from "effect"
import fc from "fast-check"
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

/** An answer: a status, headers and a body. */
interface Answer {
  readonly s: number
  readonly h: Record<string, string>
  readonly b: string
}
const answers = fc.record({ s: status, h: headers, b: body })

/** `layer` over a service whose token endpoint answers `token` and whose API answers `api`, and the settings. */
const overService =
  <A, E>(layer: Layer.Layer<A, E, HttpClient.HttpClient | DesignSearchConfig.DesignSearchConfig>) =>
  (token: Answer, api: Answer) =>
    layer.pipe(
      Layer.provide(Layer.succeed(
        HttpClient.HttpClient,
        HttpClient.make((request, url) => {
          const { b, h, s } = url.pathname.endsWith("/access_token") ? token : api
          return Effect.succeed(
            HttpClientResponse.fromWeb(request, new Response(nullBody.has(s) ? null : b, { status: s, headers: h }))
          )
        })
      )),
      Layer.provide(DesignSearchConfig.layer({ clientId: "id", clientSecret: secret }))
    )

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
    : failureOption(exit.cause).pipe(
      Option.match({ onNone: () => "", onSome: (e) => JSON.stringify(e) + String(e) })
    )
  const forms = secrets.flatMap((s) => [s, s.replaceAll(" ", "+"), s.replace(/\s/g, "")])
  return readings(shown).every((text) => forms.every((form) => !text.includes(form)))
}

const apiErrorTags = new Set(
  ["BadRequest", "Validation", "Authentication", "Forbidden", "NotFound", "RateLimit", "Server", "Token", "Transport"]
    .concat("UnexpectedResponse").map((name) => `${name}Error`)
)

/** Success, or exactly one failure with one of `tags`: no defect, no interruption. */
const isSuccessOrTypedError = <A>(exit: Exit.Exit<A, { readonly _tag: string }>, tags = apiErrorTags) =>
  Exit.isSuccess(exit) || Option.exists(soleFailure(exit.cause), (error) => tags.has(error._tag))

/** A property whose every case is an effect, checked for 200 cases of `arbitrary`. */
const prop = <T>(name: string, arbitrary: fc.Arbitrary<T>, check: (t: T) => Effect.Effect<void, unknown>) =>
  it(name, () => fc.assert(fc.asyncProperty(arbitrary, (t) => Effect.runPromise(check(t))), { numRuns: 200 }))

describe("properties", () => {
  const noRetry = { retrySchedule: Schedule.recurs(0) }

  prop(
    "any status, headers and body from the API give a success or a typed error",
    answers,
    (api) =>
      Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        const exits: ReadonlyArray<Exit.Exit<unknown, { readonly _tag: string }>> = [
          yield* Effect.exit(client.quickSearch({ query: "chair" })),
          yield* Effect.exit(client.getDesign("201900001"))
        ]
        for (const exit of exits) {
          expect(isSuccessOrTypedError(exit)).toBe(true)
          expect(holdsNoSecret(exit, apiSecrets)).toBe(true)
          if (api.s >= 300) expect(Exit.isFailure(exit)).toBe(true)
        }
      }).pipe(Effect.provide(overService(DesignSearchClient.layer(noRetry))({ s: 200, h: {}, b: goodToken }, api)))
  )

  prop("any answer of the token endpoint gives a token or a TokenError", answers, (token) =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.flatMap(TokenService.TokenService, (t) => t.get))
      expect(isSuccessOrTypedError(exit, new Set(["TokenError"]))).toBe(true)
      if (Exit.isFailure(exit)) expect(holdsNoSecret(exit, tokenEndpointSecrets)).toBe(true)
    }).pipe(Effect.provide(overService(TokenService.layer(noRetry))(token, { s: 500, h: {}, b: "" }))))
})
