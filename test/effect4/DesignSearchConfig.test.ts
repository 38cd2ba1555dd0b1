import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Redacted, Result } from "effect"
import { DesignSearchConfig } from "../../src/index.js"

const withEnv = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

const fromEnv = (env: Record<string, string>) => DesignSearchConfig.fromEnv.pipe(withEnv(env))

const credentials = { IPAUSTRALIA_CLIENT_ID: "my-client", IPAUSTRALIA_CLIENT_SECRET: "s3cr3t-value" }

describe("DesignSearchConfig", () => {
  it.effect("defaults to production and maps environments to the public hosts", () =>
    Effect.gen(function*() {
      const production = yield* fromEnv(credentials)
      assert.strictEqual(production.environment, "production")
      assert.strictEqual(
        production.tokenUrl,
        "https://production.api.ipaustralia.gov.au/public/external-token-api/v1/access_token"
      )
      assert.strictEqual(
        production.apiBaseUrl,
        "https://production.api.ipaustralia.gov.au/public/australian-design-search-api/v1"
      )
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
      assert.strictEqual(noId._tag, "ConfigError")
      assert.include(noId.message, "IPAUSTRALIA_CLIENT_ID is not set")
      const noSecret = yield* Effect.flip(fromEnv({ IPAUSTRALIA_CLIENT_ID: "x" }))
      assert.include(noSecret.message, "IPAUSTRALIA_CLIENT_SECRET is not set")
      assert.notInclude(noSecret.message, "IPAUSTRALIA_CLIENT_ID is")
      const none = yield* Effect.flip(fromEnv({}))
      assert.strictEqual(none.cause._tag, "SourceError")
      assert.include(none.message, "IPAUSTRALIA_CLIENT_ID and IPAUSTRALIA_CLIENT_SECRET are not set")
      assert.include(none.message, "Sandbox.layer()")
    }))

  it.effect("an unknown environment lists the allowed ones", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_ENV: "staging" }))
      assert.strictEqual(error.cause._tag, "SchemaError")
      assert.include(error.message, "IPAUSTRALIA_ENV")
      assert.include(error.message, "unknown environment \"staging\": expected one of test, production")
    }))

  for (
    const [name, url] of [
      ["plain http to a remote host", "http://api.example.com"],
      ["plain http to a private address", "http://10.0.0.5:8080"],
      ["another scheme", "ftp://127.0.0.1"],
      ["a relative URL", "/public"],
      ["credentials in the URL", "https://user:pass@api.example.com"],
      ["a query string", "https://api.example.com/?x=1"],
      ["a fragment", "https://api.example.com/#x"]
    ] as const
  ) {
    it.effect(`refuses ${name} in every configured URL`, () =>
      Effect.gen(function*() {
        const auth = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_AUTH_URL: url }))
        assert.include(auth.message, "IPAUSTRALIA_AUTH_URL")
        const base = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_BASE_URL: url }))
        assert.include(base.message, "IPAUSTRALIA_BASE_URL")
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
      assert.include(blank.message, "IPAUSTRALIA_CLIENT_ID")
      const options = { clientId: "a", clientSecret: "b" }
      const refused = (extra: Partial<DesignSearchConfig.Options>) =>
        Effect.map(Effect.flip(DesignSearchConfig.make({ ...options, ...extra })), (error) => error.message)
      assert.include(yield* refused({ requestTimeout: Duration.infinity }), "requestTimeout must be a finite")
      for (const negative of [-5, "-1 seconds", [-1, 0], Number.NaN] as const) {
        assert.include(yield* refused({ expirySkew: negative }), "expirySkew must be a finite, non-negative duration")
      }
      assert.include(yield* refused({ maxBodyBytes: 0 }), "maxBodyBytes must be a positive integer, got 0")
      assert.include(yield* refused({ tokenTimeout: 0 }), "tokenTimeout must be positive")
      assert.include(yield* refused({ requestTimeout: Duration.days(25) }), "requestTimeout must be at most 24 days")
      assert.include(
        yield* refused({ refreshBefore: "10 seconds", expirySkew: "30 seconds" }),
        "refreshBefore must be at least expirySkew"
      )
    }))

  it.effect("layer and layerConfig provide the settings, or fail with the ConfigError", () =>
    Effect.gen(function*() {
      const given = yield* Effect.provide(
        DesignSearchConfig.DesignSearchConfig,
        DesignSearchConfig.layer({ clientId: "a", clientSecret: "b", environment: "test", tokenTimeout: "2 seconds" })
      )
      assert.strictEqual(given.environment, "test")
      assert.deepStrictEqual(given.tokenTimeout, Duration.seconds(2))
      const read = yield* Effect.provide(
        DesignSearchConfig.DesignSearchConfig,
        DesignSearchConfig.layerConfig
      ).pipe(withEnv(credentials))
      assert.strictEqual(read.clientId, "my-client")
      const failed = yield* Effect.flip(
        Effect.provide(
          DesignSearchConfig.DesignSearchConfig,
          DesignSearchConfig.layer({ clientId: "", clientSecret: "b" })
        )
      )
      assert.include(failed.message, "client id must be a non-empty string")
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
