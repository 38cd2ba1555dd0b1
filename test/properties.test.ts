import { HttpClient, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Layer, Schedule } from "effect"
import { DesignSearchClient, DesignSearchConfig, TokenService } from "../src/index.js"

/** Statuses a `Response` can carry, and the ones that must have no body. */
const status = fc.integer({ min: 200, max: 599 })
const nullBody = new Set([204, 205, 304])

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
  fc.record({ number: fc.string(), filingDate: fc.string() }).map((v) => JSON.stringify(v))
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

const goodToken = JSON.stringify({ access_token: "a.b.c", expires_in: 3600, token_type: "Bearer" })

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

const config = DesignSearchConfig.layer({ clientId: "id", clientSecret: "secret" })

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
      }),
    { fastCheck: { numRuns: 200 } }
  )
})
