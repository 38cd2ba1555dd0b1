/**
 * Answers a hostile or careless server may send, over loopback through both transports (the undici
 * adapter under `FetchHttpClient.layer`, the HttpClient adapter under `FetchHttpClient`): bodies
 * nested thousands of levels deep, wrong-shape values of megabytes, servers that echo the request
 * (the client secret, the bearer token) into their answers, error arrays with malformed entries.
 * Each gives a typed error, bounded, with no secret in it.
 */
import { FetchHttpClient } from "#edition/internal/seam"
import { edition, failureOption, NodeHttpClient } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Redacted, Schedule } from "effect"
import type { Scope } from "effect"
import type { IncomingMessage } from "node:http"
import { createServer } from "node:http"
import { DesignSearchClient, DesignSearchConfig, TokenService } from "../src/index.js"
import { listening } from "./support/loopback.js"

/** A secret with characters that each encoding writes differently. */
const secret = "s3cr3t/+= é&x\"y"
const tokenValue = "tok.Echo-Me_9f2c~d+e/f=="

/** What a request brought: for a responder to echo. */
interface Seen {
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

interface Reply {
  readonly status: number
  readonly body: string
  readonly headers?: Record<string, string>
}

type Responder = (seen: Seen) => Reply

const json = (status: number, value: unknown): Reply => ({
  status,
  body: JSON.stringify(value),
  headers: { "content-type": "application/json" }
})
const goodToken: Responder = () => json(200, { access_token: tokenValue, expires_in: 3600, token_type: "Bearer" })
const nested = (depth: number, inner: string) => "[".repeat(depth) + inner + "]".repeat(depth)

/** A service on loopback: its origin, and the requests each endpoint has had. */
interface Service {
  readonly origin: string
  readonly requests: { token: number; api: number }
}

/** A service on loopback whose token endpoint answers `token` and whose API answers `api`. */
const service = (token: Responder, api: Responder): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.suspend(() => {
    const requests = { token: 0, api: 0 }
    return listening(createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const seen = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }
        const toToken = (req.url ?? "").startsWith(DesignSearchConfig.tokenPath)
        requests[toToken ? "token" : "api"]++
        const reply = toToken ? token(seen) : api(seen)
        res.writeHead(reply.status, reply.headers).end(reply.body)
      })
    })).pipe(Effect.map((port) => ({ origin: `http://127.0.0.1:${port}`, requests })))
  })

const transports = [
  { name: "NodeHttpClient.layerUndici", layer: NodeHttpClient.layerUndici },
  { name: "FetchHttpClient.layer", layer: FetchHttpClient.layer }
] as const

const configOf = (origin: string) =>
  Layer.orDie(DesignSearchConfig.layer({
    clientId: "echo-client",
    clientSecret: secret,
    authUrl: origin,
    baseUrl: origin + DesignSearchConfig.apiPath
  }))

/** A client (no retries) of the service at `origin` over `transport`. */
const clientOf = (origin: string, transport: (typeof transports)[number]["layer"]) =>
  Layer.effect(DesignSearchClient.DesignSearchClient, DesignSearchClient.make({ retrySchedule: Schedule.recurs(0) }))
    .pipe(
      Layer.provideMerge(TokenService.layer({ retrySchedule: Schedule.recurs(0) })),
      Layer.provideMerge(transport),
      Layer.provideMerge(configOf(origin))
    )

/** JSON as other languages' encoders write it: PHP escapes `/`, .NET `+` and `&`, Python every non-ASCII character. */
const encoders = {
  php: (text: string) => text.replace(/\//g, "\\/"),
  dotnet: (text: string) => text.replace(/\+/g, "\\u002B").replace(/&/g, "\\u0026"),
  python: (text: string) =>
    text.replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"))
} as const

/** Every form a secret may be echoed in: as sent, encoded for a URL or a form, escaped by any JSON encoder. */
const formsOf = (s: string) =>
  [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)].flatMap((form) => {
    const json = JSON.stringify(form).slice(1, -1)
    return [form, json, ...Object.values(encoders).map((encode) => encode(json))]
  })
const secrets = [...formsOf(secret), ...formsOf(tokenValue)]

const base64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
/** The secret and the token in base64 (either alphabet, padded or not). */
const base64Forms = (s: string) => {
  const b64 = base64(s)
  return [b64, b64.replace(/=+$/, ""), Buffer.from(s, "utf8").toString("base64url")]
}
const encodedSecrets = [...base64Forms(secret), ...base64Forms(tokenValue)]

/** Fails the test if any text of `error` (its fields at any depth, its message) holds a secret. */
const expectNoSecret = (error: unknown) => {
  const shown = [JSON.stringify(error), String(error), error instanceof Error ? error.message : ""]
  for (const text of shown) {
    for (const form of [...secrets, ...encodedSecrets]) expect(text).not.toContain(form)
    // Any base64 text left, read from each of its first four characters, holds neither.
    for (const run of text.replace(/\\[rn]|\s/g, "").match(/[A-Za-z0-9+/_=-]{16,}/g) ?? []) {
      for (let offset = 0; offset < 4; offset++) {
        const read = Buffer.from(run.slice(offset), "base64").toString("latin1")
        for (const s of [secret, tokenValue]) expect(read).not.toContain(Buffer.from(s, "utf8").toString("latin1"))
      }
    }
  }
}

/** The failure of `effect`, which must fail with a typed error (no defect). */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
    const failure = failureOption(exit.cause)
    if (failure._tag === "None") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
    return failure.value
  })

/** How a string `expires_in` is told: Effect 3 quotes the value (`shown`, redacted), Effect 4 names the pattern only. */
const badExpiresIn = (shown: string) =>
  ({ 3: `expires_in: Expected number, actual "${shown}"`, 4: "expires_in: expected a string of digits" })[edition]

const search = Effect.flatMap(DesignSearchClient.DesignSearchClient, (c) => c.quickSearch({ query: "chair" }))
const token = Effect.flatMap(TokenService.TokenService, (t) => t.get)

for (const transport of transports) {
  describe(`deep and huge bodies, over ${transport.name}: a typed error with a bounded description`, () => {
    const cases: ReadonlyArray<readonly [string, Responder, Responder, string, string]> = [
      [
        "a 200 whose count is nested 3,000 levels",
        goodToken,
        () => ({ status: 200, body: `{"count":${nested(3000, "1")},"designNumbers":[]}` }),
        "UnexpectedResponseError",
        "count"
      ],
      [
        "a token response whose expires_in is nested 3,000 levels",
        () => ({
          status: 200,
          body: `{"access_token":"abc","token_type":"Bearer","expires_in":${nested(3000, "1")}}`
        }),
        goodToken,
        "TokenError",
        "expires_in"
      ],
      [
        "a 200 whose count is a 10 MB string",
        goodToken,
        () => json(200, { count: "x".repeat(10_000_000), designNumbers: [] }),
        "UnexpectedResponseError",
        "count"
      ]
    ]
    for (const [name, tokenResponder, apiResponder, tag, names] of cases) {
      it.live(name, () =>
        Effect.gen(function*() {
          const { origin, requests } = yield* service(tokenResponder, apiResponder)
          const error = yield* failureOf(Effect.provide(search, clientOf(origin, transport.layer)))
          expect(error._tag).toBe(tag)
          expect(requests).toEqual(tag === "TokenError" ? { token: 1, api: 0 } : { token: 1, api: 1 })
          const told = error._tag === "UnexpectedResponseError"
            ? error.issue
            : error._tag === "TokenError"
            ? error.detail
            : ""
          expect(told).toContain(names)
          expect(told.length).toBeLessThanOrEqual(1000)
          expect(error.message.length).toBeLessThanOrEqual(2000)
          expect(JSON.stringify(error).length).toBeLessThanOrEqual(4000)
        }).pipe(Effect.scoped))
    }

    it.live("texts of megabytes in every field an error keeps are cut to 1,000 characters, by one rule", () =>
      Effect.gen(function*() {
        const huge = (c: string) => c.repeat(10_000_000)
        // nine fields of 800,000 characters in each of two entries: 14 MB, under the body cap
        const big = (c: string) => c.repeat(800_000)
        const entry = (c: string) => ({
          id: big(c),
          code: big(c),
          detail: big(c),
          title: big(c),
          source: { pointer: big(c), parameter: big(c), header: big(c) },
          [big(c)]: big(c)
        })
        const cases: ReadonlyArray<readonly [Responder, Responder, string]> = [
          [goodToken, () => json(400, { errors: [entry("d")], messages: [entry("m")] }), "BadRequestError"],
          [goodToken, () => json(400, { errors: [{ code: "C", detail: huge("d") }] }), "BadRequestError"],
          [goodToken, () => json(500, { error: huge("g") }), "ServerError"],
          [goodToken, () => json(422, { errors: [{ code: "C", detail: huge("v") }] }), "ValidationError"],
          [
            () => json(400, { error: huge("e").slice(0, 5_000_000), error_description: huge("f").slice(0, 5_000_000) }),
            goodToken,
            "TokenError"
          ],
          [() => json(503, { error: huge("e"), error_description: huge("f") }), goodToken, "TokenError"]
        ]
        for (const [tokenResponder, apiResponder, tag] of cases) {
          const { origin } = yield* service(tokenResponder, apiResponder)
          const error = yield* failureOf(Effect.provide(search, clientOf(origin, transport.layer)))
          expect(error._tag).toBe(tag)
          const longest = (value: unknown): number =>
            typeof value === "string"
              ? value.length
              : typeof value === "object" && value !== null
              ? Math.max(0, ...Object.entries(value).map(([k, v]) => Math.max(k.length, longest(v))))
              : 0
          expect(longest(error)).toBeLessThanOrEqual(1000)
          expect(error.message.length).toBeLessThanOrEqual(4000)
          expect(JSON.stringify(error).length).toBeLessThanOrEqual(20_000)
        }
      }).pipe(Effect.scoped))

    it.live("a 200 whose messages are nested 3,000 levels, or malformed: a success, with a warning counting them", () =>
      Effect.gen(function*() {
        const data = `"data":{"count":0,"designNumbers":[]}`
        for (
          const [messages, kept] of [
            [nested(3000, ""), 0],
            [`[{"code":"W","detail":"kept"},{"code":1},null,${nested(100, "")}]`, 1],
            [`"not a list"`, 0]
          ] as const
        ) {
          const { origin } = yield* service(
            goodToken,
            () => ({ status: 200, body: `{${data},"messages":${messages}}` })
          )
          const answer = yield* Effect.provide(search, clientOf(origin, transport.layer))
          expect(answer.data.count).toBe(0)
          expect(answer.messages.slice(0, kept).map((m) => m.detail)).toEqual(kept === 0 ? [] : ["kept"])
          expect(answer.messages[kept]).toMatchObject({ code: "UNREADABLE_MESSAGES", severity: "warning" })
          expect(answer.messages).toHaveLength(kept + 1)
        }
      }).pipe(Effect.scoped))

    it.live("a 500 with an error object nested 3,000 levels beside a good one: the good one is kept", () =>
      Effect.gen(function*() {
        const { origin, requests } = yield* service(goodToken, () => ({
          status: 500,
          body: `{"errors":[{"code":"500","detail":"kept"},{"code":"x","detail":"y","meta":${nested(3000, "")}}]}`
        }))
        const error = yield* failureOf(Effect.provide(search, clientOf(origin, transport.layer)))
        expect(error).toMatchObject({ _tag: "ServerError", errors: [{ code: "500", detail: "kept" }], unreadable: 1 })
        expect(requests).toEqual({ token: 1, api: 1 })
        expect(JSON.stringify(error).length).toBeLessThan(4000)
      }).pipe(Effect.scoped))
  })

  describe(`servers that echo the request, over ${transport.name}: no error holds the secret or the token`, () => {
    /** Name, the two responders, what the outcome must be, and the requests it costs (as without the echo). */
    const echoes: ReadonlyArray<
      readonly [string, Responder, Responder, (error: unknown) => void, { token: number; api: number }]
    > = [
      [
        "a token endpoint's 503 page that reflects the form it got",
        (seen) => ({
          status: 503,
          body: `<html><pre>${seen.body}</pre></html>`,
          headers: { "content-type": "text/html" }
        }),
        goodToken,
        (e) =>
          expect(e).toMatchObject({
            _tag: "TokenError",
            reason: "Unavailable",
            detail: expect.stringContaining("[redacted]")
          }),
        { token: 1, api: 0 }
      ],
      [
        "an error_description that repeats the secret",
        () => json(401, { error: "invalid_client", error_description: `secret ${secret} is wrong` }),
        goodToken,
        (e) =>
          expect(e).toMatchObject({ reason: "InvalidCredentials", errorDescription: "secret [redacted] is wrong" }),
        { token: 1, api: 0 }
      ],
      [
        "a token response whose expires_in is the form it got",
        (seen) => json(200, { access_token: "abc", token_type: "Bearer", expires_in: seen.body }),
        goodToken,
        (e) => expect(e).toMatchObject({ reason: "InvalidResponse", detail: expect.stringContaining("expires_in") }),
        { token: 1, api: 0 }
      ],
      [
        "a 500 that lists the request's headers, in an error, an extension and the body",
        goodToken,
        (seen) =>
          json(500, {
            errors: [{
              code: "500",
              detail: `Authorization: ${seen.headers.authorization}`,
              meta: { headers: [[{ [tokenValue]: encodeURIComponent(String(seen.headers.authorization)) }]] }
            }],
            echo: seen.headers
          }),
        (e) =>
          expect(e).toMatchObject({
            _tag: "ServerError",
            errors: [{ code: "500", detail: "Authorization: Bearer [redacted]" }]
          }),
        { token: 1, api: 1 }
      ],
      [
        "a 200 with a message that quotes the token",
        goodToken,
        (seen) =>
          json(200, {
            data: { count: 0, designNumbers: [] },
            messages: [{ code: "W", detail: String(seen.headers.authorization) }]
          }),
        () => undefined,
        { token: 1, api: 1 }
      ],
      [
        "a 200 of the wrong shape whose bad value is the token",
        goodToken,
        (seen) => json(200, { count: seen.headers.authorization, designNumbers: [] }),
        (e) =>
          expect(e).toMatchObject({ _tag: "UnexpectedResponseError", issue: expect.stringContaining("[redacted]") }),
        { token: 1, api: 1 }
      ],
      [
        "a 422 that points at the token and quotes it, with messages",
        goodToken,
        (seen) =>
          json(422, {
            errors: [{ code: "INVALID", detail: "bad", source: { pointer: `/${tokenValue}` } }],
            messages: [{ code: "M", detail: JSON.stringify(seen.headers) }]
          }),
        (e) => expect(e).toMatchObject({ _tag: "ValidationError", errors: [{ source: { pointer: "/[redacted]" } }] }),
        { token: 1, api: 1 }
      ],
      ...Object.entries(encoders).flatMap(([name, encode]) => [
        [
          `a 503 page reflecting the form, as ${name} writes it`,
          (seen: Seen) => ({ status: 503, body: `<pre>${encode(JSON.stringify(seen.body))}</pre>` }),
          goodToken,
          (e: unknown) => expect(e).toMatchObject({ _tag: "TokenError", reason: "Unavailable" }),
          { token: 1, api: 0 }
        ] as const
      ]),
      ...Object.entries(encoders).flatMap(([name, encode]) => [
        [
          `an error_description repeating the secret, as ${name} writes JSON`,
          () => ({
            status: 401,
            body: encode(JSON.stringify({ error: "invalid_client", error_description: `secret ${secret} is wrong` }))
          }),
          goodToken,
          (e: unknown) =>
            expect(e).toMatchObject({ reason: "InvalidCredentials", errorDescription: "secret [redacted] is wrong" }),
          { token: 1, api: 0 }
        ] as const,
        [
          `a 500 echoing the Authorization header, as ${name} writes JSON`,
          goodToken,
          (seen: Seen) => ({
            status: 500,
            body: encode(
              JSON.stringify({ errors: [{ code: "500", detail: `headers: ${seen.headers.authorization}` }] })
            )
          }),
          (e: unknown) =>
            expect(e).toMatchObject({ _tag: "ServerError", errors: [{ detail: "headers: Bearer [redacted]" }] }),
          { token: 1, api: 1 }
        ] as const
      ]),
      [
        "a token response whose expires_in repeats the access token it carries",
        () => json(200, { access_token: tokenValue, token_type: "Bearer", expires_in: tokenValue }),
        goodToken,
        (e) =>
          expect(e).toMatchObject({
            reason: "InvalidResponse",
            detail: expect.stringContaining(badExpiresIn("[redacted]"))
          }),
        { token: 1, api: 0 }
      ],
      [
        "a token endpoint's 500 whose JSON echoes the form it got in base64",
        (seen) => json(500, { error: "upstream", requestBody: base64(seen.body) }),
        goodToken,
        (e) => expect(e).toMatchObject({ reason: "Unavailable", detail: expect.stringContaining("[redacted]") }),
        { token: 1, api: 0 }
      ],
      [
        "an error_description holding the HTTP Basic header of the credentials",
        () =>
          json(401, {
            error: "invalid_client",
            error_description: `bad Authorization: Basic ${base64(`echo-client:${secret}`)}`
          }),
        goodToken,
        (e) =>
          expect(e).toMatchObject({
            reason: "InvalidCredentials",
            errorDescription: "bad Authorization: Basic [redacted]"
          }),
        { token: 1, api: 0 }
      ],
      [
        "an error_description holding the secret in base64, URL-safe and unpadded",
        () =>
          json(401, {
            error: "invalid_client",
            error_description: `unknown secret ${Buffer.from(secret, "utf8").toString("base64url")}`
          }),
        goodToken,
        (e) => expect(e).toMatchObject({ errorDescription: "unknown secret [redacted]" }),
        { token: 1, api: 0 }
      ],
      [
        "a token response whose expires_in holds its own access token in base64",
        () => json(200, { access_token: tokenValue, token_type: "Bearer", expires_in: `bad ${base64(tokenValue)}` }),
        goodToken,
        (e) =>
          expect(e).toMatchObject({
            reason: "InvalidResponse",
            detail: expect.stringContaining(badExpiresIn("bad [redacted]"))
          }),
        { token: 1, api: 0 }
      ],
      [
        "a 500 that echoes the Authorization header in base64, in an error and the body",
        goodToken,
        (seen) =>
          json(500, {
            errors: [{ code: "500", detail: `header ${base64(String(seen.headers.authorization))}` }],
            echo: base64(String(seen.headers.authorization))
          }),
        (e) => expect(e).toMatchObject({ _tag: "ServerError", errors: [{ detail: "header [redacted]" }] }),
        { token: 1, api: 1 }
      ],
      [
        "a 401 for every token, quoting it",
        goodToken,
        (seen) => json(401, { errors: [{ code: "401", detail: `refused ${seen.headers.authorization}` }] }),
        (e) =>
          expect(e).toMatchObject({ _tag: "AuthenticationError", errors: [{ detail: "refused Bearer [redacted]" }] }),
        { token: 2, api: 2 }
      ]
    ]
    for (const [name, tokenResponder, apiResponder, check, costs] of echoes) {
      it.live(name, () =>
        Effect.gen(function*() {
          const { origin, requests } = yield* service(tokenResponder, apiResponder)
          const exit = yield* Effect.exit(Effect.provide(search, clientOf(origin, transport.layer)))
          expect(requests).toEqual(costs)
          if (Exit.isSuccess(exit)) {
            expect(exit.value.messages).toHaveLength(1)
            expect(exit.value.messages[0]?.detail).toBe("Bearer [redacted]")
            expectNoSecret(exit.value.messages)
            return
          }
          const error = failureOption(exit.cause)
          if (error._tag === "None") throw new Error(`expected a typed failure: ${Cause.pretty(exit.cause)}`)
          check(error.value)
          expectNoSecret(error.value)
        }).pipe(Effect.scoped))
    }
  })
}

describe("an errors array with malformed entries keeps every well-formed one", () => {
  it.live("400: two good entries kept in order, three malformed ones counted", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* service(goodToken, () =>
        json(400, {
          errors: [
            { code: "INVALID_PARAMETER", detail: "first", source: { parameter: "q" } },
            { code: 400 },
            "text",
            { code: "INVALID_PARAMETER", detail: "second", extra: true },
            null
          ],
          messages: [{ code: "M", detail: "kept" }, { detail: 1 }]
        }))
      const error = yield* failureOf(Effect.provide(search, clientOf(origin, FetchHttpClient.layer)))
      expect(requests).toEqual({ token: 1, api: 1 })
      expect(error).toMatchObject({
        _tag: "BadRequestError",
        errors: [{ detail: "first" }, { detail: "second", extra: true }],
        messages: [{ detail: "kept" }],
        unreadable: 4
      })
      expect(error.message).toContain("first")
      expect(error.message).toContain("4 unreadable")
    }).pipe(Effect.scoped))

  it.live("a body whose errors are all well-formed says nothing of unreadable ones", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* service(goodToken, () => json(400, { errors: [{ code: "A", detail: "b" }] }))
      const error = yield* failureOf(Effect.provide(search, clientOf(origin, FetchHttpClient.layer)))
      expect(requests).toEqual({ token: 1, api: 1 })
      expect(error).not.toHaveProperty("unreadable")
      expect(error.message).not.toContain("unreadable")
    }).pipe(Effect.scoped))
})

describe("the token itself", () => {
  it.live("a token of 8 KiB, the most a header is held to carry, is taken and sent", () =>
    Effect.gen(function*() {
      const long = "a".repeat(8192)
      const { origin, requests } = yield* service(
        () => json(200, { access_token: long, expires_in: 3600, token_type: "Bearer" }),
        goodToken
      )
      const layer = TokenService.layer().pipe(Layer.provide(FetchHttpClient.layer), Layer.provide(configOf(origin)))
      const got = yield* Effect.provide(token, layer)
      expect(Redacted.value(got.token)).toBe(long)
      expect(requests).toEqual({ token: 1, api: 0 })
    }).pipe(Effect.scoped))

  it.live("a token of another type, or one no header can carry, is InvalidResponse after one request", () =>
    Effect.gen(function*() {
      for (
        const body of [
          { access_token: tokenValue, expires_in: 3600, token_type: "mac" },
          { access_token: "abc\r\nX-Injected: 1", expires_in: 3600, token_type: "Bearer" },
          { access_token: "a".repeat(8193), expires_in: 3600, token_type: "Bearer" },
          { access_token: "a".repeat(10_000_000), expires_in: 3600, token_type: "Bearer" }
        ]
      ) {
        const { origin, requests } = yield* service(() => json(200, body), goodToken)
        // the default retries: a failure they would retry shows as more than one request
        const layer = TokenService.layer().pipe(
          Layer.provide(FetchHttpClient.layer),
          Layer.provide(configOf(origin))
        )
        const error = yield* failureOf(Effect.provide(token, layer))
        expect(error).toMatchObject({ _tag: "TokenError", reason: "InvalidResponse" })
        expect(JSON.stringify(error).length).toBeLessThan(2000)
        expect(requests).toEqual({ token: 1, api: 0 })
      }
    }).pipe(Effect.scoped))
})
