import { describe, expect, it } from "@effect/vitest"
import { ConfigError, ConfigProvider, Duration, Effect, Redacted } from "effect"
import { DesignSearchConfig } from "../src/index.js"

const fromEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(DesignSearchConfig.fromEnv, ConfigProvider.fromMap(new Map(Object.entries(env))))

const credentials = { IPAUSTRALIA_CLIENT_ID: "my-client", IPAUSTRALIA_CLIENT_SECRET: "s3cr3t-value" }

describe("DesignSearchConfig", () => {
  it.effect("defaults to production and maps environments to the public hosts", () =>
    Effect.gen(function*() {
      const production = yield* fromEnv(credentials)
      expect(production.environment).toBe("production")
      expect(production.tokenUrl).toBe(
        "https://production.api.ipaustralia.gov.au/public/external-token-api/v1/access_token"
      )
      expect(production.apiBaseUrl).toBe(
        "https://production.api.ipaustralia.gov.au/public/australian-design-search-api/v1"
      )
      expect(Redacted.value(production.clientSecret)).toBe("s3cr3t-value")
      const test = yield* fromEnv({ ...credentials, IPAUSTRALIA_ENV: "test" })
      expect(test.tokenUrl).toBe("https://test.api.ipaustralia.gov.au/public/external-token-api/v1/access_token")
      expect(test.apiBaseUrl).toBe("https://test.api.ipaustralia.gov.au/public/australian-design-search-api/v1")
    }))

  it.effect("overrides the token host and the API base", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv({
        ...credentials,
        IPAUSTRALIA_AUTH_URL: "http://127.0.0.1:8787/",
        IPAUSTRALIA_BASE_URL: "http://localhost:8787/public/australian-design-search-api/v1/"
      })
      expect(settings.environment).toBe("custom")
      expect(settings.tokenUrl).toBe("http://127.0.0.1:8787/public/external-token-api/v1/access_token")
      expect(settings.apiBaseUrl).toBe("http://localhost:8787/public/australian-design-search-api/v1")
      const lookalike = yield* fromEnv({
        ...credentials,
        IPAUSTRALIA_AUTH_URL: "https://test.api.ipaustralia.gov.au.example.net",
        IPAUSTRALIA_BASE_URL: "https://api.example.net/v1"
      })
      expect(lookalike.environment).toBe("custom")
    }))

  it.effect("a missing variable is named", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ IPAUSTRALIA_CLIENT_SECRET: "x" }))
      expect(ConfigError.isConfigError(error)).toBe(true)
      expect(String(error)).toContain("IPAUSTRALIA_CLIENT_ID")
      const noSecret = yield* Effect.flip(fromEnv({ IPAUSTRALIA_CLIENT_ID: "x" }))
      expect(String(noSecret)).toContain("IPAUSTRALIA_CLIENT_SECRET is not set")
      expect(String(noSecret)).not.toContain("IPAUSTRALIA_CLIENT_ID is")
    }))

  it.effect("unset credentials say how to set them, or how to run without them", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({}))
      expect(error._op).toBe("MissingData")
      expect(String(error)).toContain("IPAUSTRALIA_CLIENT_ID and IPAUSTRALIA_CLIENT_SECRET are not set")
      expect(String(error)).toContain("Sandbox.layer()")
      const invalid = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_ENV: "staging" }))
      expect(invalid._op).toBe("InvalidData")
    }))

  it.effect("an unknown environment lists the allowed ones", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_ENV: "staging" }))
      expect(String(error)).toContain("IPAUSTRALIA_ENV")
      expect(String(error)).toContain("staging")
      expect(String(error)).toContain("test, production")
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
        expect(String(auth)).toContain("IPAUSTRALIA_AUTH_URL")
        const base = yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_BASE_URL: url }))
        expect(String(base)).toContain("IPAUSTRALIA_BASE_URL")
      }))
  }

  it("accepts plain http only for loopback hosts", () => {
    for (const host of ["localhost", "127.0.0.1", "127.5.6.7", "[::1]"]) {
      expect(DesignSearchConfig.parseServiceUrl("X", `http://${host}:1234`)._tag).toBe("Right")
    }
    for (const host of ["127.0.0.1.example.com", "localhost.example.com", "0.0.0.0", "192.168.1.1"]) {
      expect(DesignSearchConfig.parseServiceUrl("X", `http://${host}:1234`)._tag).toBe("Left")
    }
  })

  it.effect("refuses empty credentials and bad timings", () =>
    Effect.gen(function*() {
      expect(String(yield* Effect.flip(fromEnv({ ...credentials, IPAUSTRALIA_CLIENT_ID: " " })))).toContain(
        "IPAUSTRALIA_CLIENT_ID"
      )
      const negative = yield* Effect.flip(
        DesignSearchConfig.make({ clientId: "a", clientSecret: "b", requestTimeout: Duration.infinity })
      )
      expect(String(negative)).toContain("requestTimeout")
      const cap = yield* Effect.flip(DesignSearchConfig.make({ clientId: "a", clientSecret: "b", maxBodyBytes: 0 }))
      expect(String(cap)).toContain("maxBodyBytes")
      const zero = yield* Effect.flip(DesignSearchConfig.make({ clientId: "a", clientSecret: "b", tokenTimeout: 0 }))
      expect(String(zero)).toContain("tokenTimeout must be positive")
      const tooLong = yield* Effect.flip(
        DesignSearchConfig.make({ clientId: "a", clientSecret: "b", requestTimeout: Duration.days(25) })
      )
      expect(String(tooLong)).toContain("requestTimeout must be at most 24 days")
      const late = yield* Effect.flip(
        DesignSearchConfig.make({
          clientId: "a",
          clientSecret: "b",
          refreshBefore: "10 seconds",
          expirySkew: "30 seconds"
        })
      )
      expect(String(late)).toContain("refreshBefore must be at least expirySkew")
    }))

  it.effect("never shows the secret", () =>
    Effect.gen(function*() {
      const settings = yield* fromEnv(credentials)
      expect(String(settings.clientSecret)).not.toContain("s3cr3t-value")
      expect(JSON.stringify(settings)).not.toContain("s3cr3t-value")
    }))
})
