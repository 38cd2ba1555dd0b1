import { Result } from "#edition/internal/seam"
import type { ConfigErrorType } from "#edition/internal/seam"
import { edition, isConfigError, withEnv } from "#test-edition/support/seam"
import { assert, describe, it } from "@effect/vitest"
import type { Layer } from "effect"
import { Duration, Effect, Redacted } from "effect"
import { DesignSearchConfig } from "../src/index.js"

const fromEnv = (env: Record<string, string>) => DesignSearchConfig.fromEnv.pipe(withEnv(env))

const credentials = { IPAUSTRALIA_CLIENT_ID: "my-client", IPAUSTRALIA_CLIENT_SECRET: "s3cr3t-value" }

/** What kind of `ConfigError` it is: its `_op` in Effect 3, its cause's `_tag` in Effect 4. */
const kind = (error: object) =>
  edition === 3 ? (error as { readonly _op: string })._op : (error as { readonly cause: { _tag: string } }).cause._tag

describe("DesignSearchConfig", () => {
  it.effect("defaults to production and maps environments to the public hosts", () =>
    Effect.gen(function*() {
      const production = yield* fromEnv(credentials)
      assert.strictEqual(production.environment, "production")
      const host = "https://production.api.ipaustralia.gov.au/public"
      assert.strictEqual(production.tokenUrl, `${host}/external-token-api/v1/access_token`)
      assert.strictEqual(production.apiBaseUrl, `${host}/australian-design-search-api/v1`)
      assert.strictEqual(Redacted.value(production.clientSecret), "s3cr3t-value")
      assert.deepStrictEqual(
        [production.refreshBefore, production.expirySkew, production.requestTimeout, production.tokenTimeout],
        [Duration.minutes(1), Duration.seconds(30), Duration.seconds(30), Duration.seconds(15)]
      )
      assert.strictEqual(production.maxBodyBytes, 16 * 1024 * 1024)
      const test = yield* fromEnv({ ...credentials, IPAUSTRALIA_ENV: "test" })
      assert.strictEqual(test.tokenUrl, "https://test.api.ipaustralia.gov.au/public/external-token-api/v1/access_token")
      assert.strictEqual(test.apiBaseUrl, "https://test.api.ipaustralia.gov.au/public/australian-design-search-api/v1")
    }))

  it.effect("overrides the token host and the API base", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv({
        ...credentials,
        IPAUSTRALIA_AUTH_URL: "http://127.0.0.1:8787/",
        IPAUSTRALIA_BASE_URL: "http://localhost:8787/public/australian-design-search-api/v1/"
      })
      assert.strictEqual(settings.environment, "custom")
      assert.strictEqual(settings.tokenUrl, "http://127.0.0.1:8787/public/external-token-api/v1/access_token")
      assert.strictEqual(settings.apiBaseUrl, "http://localhost:8787/public/australian-design-search-api/v1")
      const lookalike = yield* fromEnv({
        ...credentials,
        IPAUSTRALIA_AUTH_URL: "https://test.api.ipaustralia.gov.au.example.net",
        IPAUSTRALIA_BASE_URL: "https://api.example.net/v1"
      })
      assert.strictEqual(lookalike.environment, "custom")
    }))

  it.effect("a missing variable is named, with how to set it or run without it", () =>
    Effect.gen(function*() {
      const noId = yield* Effect.flip(fromEnv({ IPAUSTRALIA_CLIENT_SECRET: "x" }))
      assert.isTrue(isConfigError(noId))
      assert.include(String(noId), "IPAUSTRALIA_CLIENT_ID is not set")
      const noSecret = yield* Effect.flip(fromEnv({ IPAUSTRALIA_CLIENT_ID: "x" }))
      assert.include(String(noSecret), "IPAUSTRALIA_CLIENT_SECRET is not set")
      assert.notInclude(String(noSecret), "IPAUSTRALIA_CLIENT_ID is")
      const none = yield* Effect.flip(fromEnv({}))
      assert.strictEqual(kind(none), edition === 3 ? "MissingData" : "SourceError")
      assert.include(String(none), "IPAUSTRALIA_CLIENT_ID and IPAUSTRALIA_CLIENT_SECRET are not set")
      assert.include(String(none), "Sandbox.layer()")
    }))

  it.effect("an unknown environment lists the allowed ones", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_ENV: "staging" }))
      assert.strictEqual(kind(error), edition === 3 ? "InvalidData" : "SchemaError")
      assert.include(String(error), "IPAUSTRALIA_ENV")
      assert.include(String(error), "unknown environment \"staging\": expected one of test, production")
    }))

  const refusedUrls = [
    ["plain http to a remote host", "http://api.example.com"],
    ["plain http to a private address", "http://10.0.0.5:8080"],
    ["another scheme", "ftp://127.0.0.1"],
    ["a relative URL", "/public"],
    ["credentials in the URL", "https://user:pass@api.example.com"],
    ["a query string", "https://api.example.com/?x=1"],
    ["a fragment", "https://api.example.com/#x"]
  ] as const
  for (const [name, url] of refusedUrls) {
    it.effect(`refuses ${name} in every configured URL`, () =>
      Effect.gen(function*() {
        const auth = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_AUTH_URL: url }))
        assert.include(String(auth), "IPAUSTRALIA_AUTH_URL")
        const base = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_BASE_URL: url }))
        assert.include(String(base), "IPAUSTRALIA_BASE_URL")
      }))
  }

  it("accepts plain http only for loopback hosts", () => {
    for (const host of ["localhost", "127.0.0.1", "127.5.6.7", "[::1]"]) {
      assert.isTrue(Result.isSuccess(DesignSearchConfig.parseServiceUrl("X", `http://${host}:1234`)), host)
    }
    for (const host of ["127.0.0.1.example.com", "localhost.example.com", "0.0.0.0", "192.168.1.1"]) {
      assert.isTrue(Result.isFailure(DesignSearchConfig.parseServiceUrl("X", `http://${host}:1234`)), host)
    }
  })

  it.effect("refuses empty credentials and bad timings, naming the option", () =>
    Effect.gen(function*() {
      const blank = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_CLIENT_ID: " " }))
      assert.include(String(blank), "IPAUSTRALIA_CLIENT_ID")
      const options = { clientId: "a", clientSecret: "b" }
      const refused = (extra: Partial<DesignSearchConfig.Options>) =>
        Effect.map(Effect.flip(DesignSearchConfig.make({ ...options, ...extra })), String)
      assert.include(yield* refused({ requestTimeout: Duration.infinity }), "requestTimeout must be a finite")
      for (const negative of [-5, "-1 seconds", [-1, 0], Number.NaN] as const) {
        assert.include(yield* refused({ expirySkew: negative }), "expirySkew must be a finite, non-negative duration")
      }
      assert.include(yield* refused({ maxBodyBytes: 0 }), "maxBodyBytes must be a positive integer, got 0")
      assert.include(yield* refused({ tokenTimeout: 0 }), "tokenTimeout must be positive")
      assert.include(yield* refused({ requestTimeout: Duration.days(25) }), "requestTimeout must be at most 24 days")
      const late = yield* refused({ refreshBefore: "10 seconds", expirySkew: "30 seconds" })
      assert.include(late, "refreshBefore must be at least expirySkew")
    }))

  it.effect("layer and layerConfig provide the settings, or fail with the ConfigError", () =>
    Effect.gen(function*() {
      const settings = (layer: Layer.Layer<DesignSearchConfig.DesignSearchConfig, ConfigErrorType>) =>
        Effect.provide(DesignSearchConfig.DesignSearchConfig, layer)
      const given = yield* settings(
        DesignSearchConfig.layer({ clientId: "a", clientSecret: "b", environment: "test", tokenTimeout: "2 seconds" })
      )
      assert.strictEqual(given.environment, "test")
      assert.deepStrictEqual(given.tokenTimeout, Duration.seconds(2))
      const read = yield* settings(DesignSearchConfig.layerConfig).pipe(withEnv(credentials))
      assert.strictEqual(read.clientId, "my-client")
      const failed = yield* Effect.flip(settings(DesignSearchConfig.layer({ clientId: "", clientSecret: "b" })))
      assert.include(String(failed), "client id must be a non-empty string")
    }))

  it.effect("never shows the secret", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv(credentials)
      assert.notInclude(String(settings.clientSecret), "s3cr3t-value")
      assert.notInclude(JSON.stringify(settings), "s3cr3t-value")
      const error = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_ENV: "staging" }))
      assert.notInclude(`${String(error)} ${JSON.stringify(error)}`, "s3cr3t-value")
    }))
})
