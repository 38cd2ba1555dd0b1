/**
 * What crosses the client's boundary, both ways: answers a server shapes to harm (a `__proto__` key,
 * a payload nested past any use, a body the schema refuses, a `Retry-After` that is no wait), and
 * values a caller passes that the types allow or a missing variable makes (`undefined` options,
 * nesting past what JSON can write, configuration of the wrong kind). Each ends in a typed answer:
 * never a defect, never a value the schema did not check.
 */
import { HttpClient, HttpClientResponse } from "#edition/internal/seam"
import { isConfigError, soleFailure } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Schedule } from "effect"
import { DesignSearchClient, DesignSearchConfig } from "../src/index.js"
import { parseRetryAfter } from "../src/internal/http/answers.js"

const token = JSON.stringify({ access_token: "tok-1", token_type: "Bearer", expires_in: 3600 })

/** A service whose token endpoint answers a token and whose API answers `status` and `body`, counted. */
const serviceAnswering = (status: number, body: string) => {
  const sent = { api: 0 }
  const client = HttpClient.make((request, url) =>
    Effect.sync(() => {
      const toToken = url.pathname.endsWith("/access_token")
      if (!toToken) sent.api++
      return HttpClientResponse.fromWeb(
        request,
        new Response(toToken ? token : body, { status: toToken ? 200 : status })
      )
    })
  )
  const layer = DesignSearchClient.layer({ retrySchedule: Schedule.recurs(0) }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, client)),
    Layer.provide(Layer.orDie(DesignSearchConfig.layer({ clientId: "id", clientSecret: "secret" })))
  )
  return { sent, layer }
}

/** Runs `f` with the client over `layer`. */
const withClient = <A, E, R>(
  layer: Layer.Layer<DesignSearchClient.DesignSearchClient, never, R>,
  f: (client: DesignSearchClient.Service) => Effect.Effect<A, E>
) => Effect.provide(Effect.flatMap(DesignSearchClient.DesignSearchClient, f), layer)
const getDesign = (client: DesignSearchClient.Service) => client.getDesign("201900001")

const nested = (depth: number, leaf: unknown): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("answers at the boundary", () => {
  it.effect("a key named __proto__ in an answer sets no prototype: what the schema did not check never reaches the caller", () =>
    Effect.gen(function*() {
      // the key as written, and spelled with JSON's \u escapes
      for (const key of ["__proto__", "__pro\\u0074o__", "\\u005f_proto__"]) {
        const body = `{"number":"201900001","${key}":{"owners":"not an array","filingDate":"not a date"}}`
        const { layer } = serviceAnswering(200, body)
        const { data } = yield* withClient(layer, getDesign)
        expect(Object.getPrototypeOf(data), key).toBe(Object.prototype)
        expect(data.owners, key).toBeUndefined()
        expect(data.filingDate, key).toBeUndefined()
      }
    }))

  it.effect("a success nested past 64 levels is an UnexpectedResponseError, so logging a result never overflows", () =>
    Effect.gen(function*() {
      const body = `{"number":"201900001","extra":${"{\"a\":".repeat(6000)}1${"}".repeat(6000)}}`
      const { layer } = serviceAnswering(200, body)
      const exit = yield* Effect.exit(withClient(layer, getDesign))
      expect(Exit.isFailure(exit) && Option.getOrUndefined(soleFailure(exit.cause))).toMatchObject({
        _tag: "UnexpectedResponseError"
      })
    }))

  it.effect("an answer the schema refuses names the offending field, not the schema's type", () =>
    Effect.gen(function*() {
      const { layer } = serviceAnswering(200, JSON.stringify({ number: "201900001", filingDate: "2019-02-30" }))
      const error = yield* Effect.flip(withClient(layer, getDesign))
      expect(error._tag).toBe("UnexpectedResponseError")
      if (error._tag === "UnexpectedResponseError") expect(error.issue).toMatch(/^filingDate: /)
    }))

  it("a Retry-After that is neither whole seconds nor an HTTP date is no wait", () => {
    for (const value of ["-1", "1.5", "soon", "", "1e3"]) expect(parseRetryAfter(value, 0), value).toBeUndefined()
    expect(parseRetryAfter("120", 0)).toMatchObject({ value: { _tag: "Millis", millis: 120_000 } })
    expect(parseRetryAfter("Thu, 01 Jan 1970 00:00:10 GMT", 4_000)).toMatchObject({
      value: { _tag: "Millis", millis: 6_000 }
    })
  })
})

describe("what a caller passes", () => {
  it.effect("an optional field given as undefined is left out, as an absent one is; nothing else changes", () =>
    Effect.gen(function*() {
      const { layer, sent } = serviceAnswering(200, JSON.stringify({ count: 0, designNumbers: [] }))
      const rows = [{ op: "AND" as const, query: { owner: "acme", designer: undefined } }]
      yield* withClient(layer, (c) => c.advancedSearch({ rows, sort: undefined, changedSinceDate: undefined }))
      expect(sent.api).toBe(1)
    }))

  it.effect("criteria nested past 64 levels are a client ValidationError, never a defect; nothing is sent", () =>
    Effect.gen(function*() {
      const { layer, sent } = serviceAnswering(200, "{}")
      for (const depth of [70, 8_000, 100_000]) {
        const rows = [{ op: "AND", query: { owner: "acme", deep: nested(depth, 1) } }] as const
        const exit = yield* Effect.exit(withClient(layer, (c) => c.advancedSearch({ rows })))
        expect(Exit.isFailure(exit) && Option.getOrUndefined(soleFailure(exit.cause)), String(depth)).toMatchObject({
          _tag: "ValidationError",
          origin: "client"
        })
      }
      expect(sent.api).toBe(0)
    }))

  it.effect("configuration of the wrong kind, as an unset variable gives it, is a ConfigError naming it", () =>
    Effect.gen(function*() {
      const credentials = { clientId: "id", clientSecret: "s" }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ clientId: undefined, clientSecret: "s" }, "IPAUSTRALIA_CLIENT_ID"],
        [{ clientId: 42, clientSecret: "s" }, "IPAUSTRALIA_CLIENT_ID"],
        [{ clientId: "id", clientSecret: undefined }, "IPAUSTRALIA_CLIENT_SECRET"],
        [{ clientId: "id", clientSecret: 123 }, "IPAUSTRALIA_CLIENT_SECRET"],
        [{ clientId: "id", clientSecret: "   " }, "IPAUSTRALIA_CLIENT_SECRET"],
        [{ ...credentials, environment: 10n }, "IPAUSTRALIA_ENV"],
        [{ ...credentials, environment: Symbol("env") }, "IPAUSTRALIA_ENV"],
        [{ ...credentials, authUrl: 10n }, "IPAUSTRALIA_AUTH_URL"],
        [{ ...credentials, authUrl: Symbol("url") }, "IPAUSTRALIA_AUTH_URL"],
        [{ ...credentials, baseUrl: 443 }, "IPAUSTRALIA_BASE_URL"],
        [{ ...credentials, maxBodyBytes: Symbol("size") }, "maxBodyBytes"],
        [{ ...credentials, refreshBefore: -1000 }, "refreshBefore"],
        [{ ...credentials, expirySkew: Number.NaN }, "expirySkew"],
        [{ ...credentials, requestTimeout: -1n }, "requestTimeout"]
      ]
      for (const [options, name] of cases) {
        const error = yield* Effect.flip(DesignSearchConfig.make(options as DesignSearchConfig.Options))
        expect(isConfigError(error)).toBe(true)
        expect(error.toString(), name).toContain(name)
      }
      const none = yield* Effect.exit(DesignSearchConfig.make(null as unknown as DesignSearchConfig.Options))
      expect(Exit.isFailure(none) && Option.isSome(soleFailure(none.cause))).toBe(true)
    }))
})
