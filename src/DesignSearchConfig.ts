/**
 * Where the design search service lives and how to reach it: environment, token URL, API base URL,
 * client credentials and timings. Built from options (`layer`) or from the `IPAUSTRALIA_*`
 * environment variables (`layerConfig`); every bad value is a `ConfigError` naming the setting.
 * @since 0.1.0
 */
import { configRedacted, configString, unsetVariables } from "#edition/internal/configReads"
import { catchAll, fromResult, invalidConfig, missingConfig } from "#edition/internal/seam"
import { Result, Service as Tag } from "#edition/internal/seam"
import type { ConfigErrorType, DurationInput } from "#edition/internal/seam"
import { Config, Duration, Effect, Layer, Redacted } from "effect"
import * as Service from "./core/wire/service.js"
import { nonNegative, positive, positiveInt } from "./internal/optionChecks.js"

/**
 * The public environments of the service.
 * @since 0.1.0
 * @category constants
 */
export const environments = Service.environments

/**
 * One of `environments`.
 * @since 0.1.0
 * @category models
 */
export type Environment = Service.Environment

/**
 * The host of each environment: it serves both the token endpoint and the APIs.
 * @since 0.1.0
 * @category constants
 */
export const hosts: Readonly<Record<Environment, string>> = Service.hosts

/**
 * Path of the token endpoint below the auth host (spec 4.1).
 * @since 0.1.0
 * @category constants
 */
export const tokenPath = Service.tokenPath

/**
 * Path of the design search API below the host.
 * @since 0.1.0
 * @category constants
 */
export const apiPath = Service.apiPath

/**
 * The resolved configuration. URLs are absolute strings; `apiBaseUrl` has no trailing slash.
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /** `test`, `production`, or `custom` when both URLs were overridden away from a public host. */
  readonly environment: Environment | "custom"
  readonly tokenUrl: string
  readonly apiBaseUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** How long before expiry a token in use is refreshed (capped at half its lifetime). */
  readonly refreshBefore: Duration.Duration
  /** A cached token is not handed out within this margin of its expiry (at most a tenth of its life). */
  readonly expirySkew: Duration.Duration
  /** Timeout of one API request, response body included. */
  readonly requestTimeout: Duration.Duration
  /** Timeout of one token request. */
  readonly tokenTimeout: Duration.Duration
  /** Largest response body read, in bytes. */
  readonly maxBodyBytes: number
}

/**
 * The configuration every client and token service of this toolkit reads.
 * @since 0.1.0
 * @category tags
 */
export class DesignSearchConfig extends Tag<DesignSearchConfig, Settings>()(
  "effect-design-search/DesignSearchConfig"
) {}

/**
 * Options of `make` and `layer`. Only the credentials are required; the environment defaults to
 * `production`. `authUrl` overrides the token host (the token path is appended), `baseUrl` the
 * whole API base. In Effect 4, a duration may also be an object such as `{ seconds: 5 }`.
 * @since 0.1.0
 * @category options
 */
export interface Options {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | string
  readonly environment?: string | undefined
  readonly authUrl?: string | undefined
  readonly baseUrl?: string | undefined
  readonly refreshBefore?: DurationInput | undefined
  readonly expirySkew?: DurationInput | undefined
  readonly requestTimeout?: DurationInput | undefined
  readonly tokenTimeout?: DurationInput | undefined
  readonly maxBodyBytes?: number | undefined
}

/**
 * Defaults of the timings and the body cap.
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  // one refresh an hour for the service's one-hour tokens: 24–25 token requests a day
  refreshBefore: Duration.minutes(1),
  expirySkew: Duration.seconds(30),
  requestTimeout: Duration.seconds(30),
  tokenTimeout: Duration.seconds(15),
  maxBodyBytes: 16 * 1024 * 1024
} as const

/**
 * True for `localhost`, `127.0.0.0/8` and `[::1]`: the only hosts allowed over plain `http:`.
 * @since 0.1.0
 * @category utils
 */
export const isLoopbackHost: (hostname: string) => boolean = Service.isLoopbackHost

/**
 * Parses a configured URL: it must be absolute, carry no credentials, and be `https:` unless its
 * host is loopback. Used for every URL the toolkit is given.
 * @since 0.1.0
 * @category utils
 */
export const parseServiceUrl = (name: string, input: string): Result<URL, ConfigErrorType> => {
  const url = Service.serviceUrl(input)
  return url instanceof URL ? Result.succeed(url) : Result.fail(invalidConfig([name], `${name} ${url.problem}`))
}

const fail = (path: ReadonlyArray<string>, message: string) => Effect.fail(invalidConfig(path, message))

const stripTrailingSlash = (url: URL): string => url.href.replace(/\/+$/, "")

/**
 * Validates options into `Settings`.
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Settings, ConfigErrorType> =>
  Effect.gen(function*() {
    if (typeof options !== "object" || options === null) return yield* fail([], "expected an object of options")
    const environmentName: unknown = options.environment ?? "production"
    if (typeof environmentName !== "string" || !(environments as ReadonlyArray<string>).includes(environmentName)) {
      return yield* fail(
        ["IPAUSTRALIA_ENV"],
        `unknown environment ${
          typeof environmentName === "string" ? JSON.stringify(environmentName) : `(a ${typeof environmentName})`
        }: expected one of ${environments.join(", ")}`
      )
    }
    const environment = environmentName as Environment
    // `process.env.X!` of a variable that is not set gives `undefined` here, whatever the types say
    const clientId: unknown = options.clientId
    if (typeof clientId !== "string" || clientId.trim() === "") {
      return yield* fail(["IPAUSTRALIA_CLIENT_ID"], "client id must be a non-empty string")
    }
    const secret: unknown = Redacted.isRedacted(options.clientSecret)
      ? Redacted.value(options.clientSecret)
      : options.clientSecret
    if (typeof secret !== "string" || secret.trim() === "") {
      return yield* fail(["IPAUSTRALIA_CLIENT_SECRET"], "client secret must be a non-empty string")
    }
    const clientSecret = Redacted.make(secret)
    const authHost = yield* fromResult(parseServiceUrl("IPAUSTRALIA_AUTH_URL", options.authUrl ?? hosts[environment]))
    const apiBase = yield* fromResult(
      parseServiceUrl("IPAUSTRALIA_BASE_URL", options.baseUrl ?? hosts[environment] + apiPath)
    )
    const maxBodyBytes = yield* positiveInt("maxBodyBytes", options.maxBodyBytes ?? defaults.maxBodyBytes)
    const refreshBefore = yield* fromResult(nonNegative("refreshBefore", options.refreshBefore, defaults.refreshBefore))
    const expirySkew = yield* fromResult(nonNegative("expirySkew", options.expirySkew, defaults.expirySkew))
    // A refresh due after the cache stops handing the token out would make busy callers wait.
    if (Duration.toMillis(refreshBefore) < Duration.toMillis(expirySkew)) {
      return yield* fail(["refreshBefore"], "refreshBefore must be at least expirySkew, or callers wait on refreshes")
    }
    const custom = options.authUrl !== undefined && options.baseUrl !== undefined &&
      !Object.values(hosts).some((host) => authHost.origin === host)
    return {
      environment: custom ? "custom" : environment,
      tokenUrl: stripTrailingSlash(authHost) + tokenPath,
      apiBaseUrl: stripTrailingSlash(apiBase),
      clientId: options.clientId,
      clientSecret,
      refreshBefore,
      expirySkew,
      requestTimeout: yield* fromResult(positive("requestTimeout", options.requestTimeout, defaults.requestTimeout)),
      tokenTimeout: yield* fromResult(positive("tokenTimeout", options.tokenTimeout, defaults.tokenTimeout)),
      maxBodyBytes
    } satisfies Settings
  })

/**
 * `make` as a layer: bad options fail it with a `ConfigError`.
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<DesignSearchConfig, ConfigErrorType> =>
  Layer.effect(DesignSearchConfig, make(options))

/**
 * The `IPAUSTRALIA_*` variables as a `Config`: `IPAUSTRALIA_CLIENT_ID`, `IPAUSTRALIA_CLIENT_SECRET`
 * (redacted), `IPAUSTRALIA_ENV` (default `production`), `IPAUSTRALIA_AUTH_URL`,
 * `IPAUSTRALIA_BASE_URL`.
 * @since 0.1.0
 * @category config
 */
export const optionsConfig: Config.Config<Options> = Config.all({
  clientId: configString("IPAUSTRALIA_CLIENT_ID"),
  clientSecret: configRedacted("IPAUSTRALIA_CLIENT_SECRET"),
  environment: configString("IPAUSTRALIA_ENV").pipe(Config.withDefault("production")),
  authUrl: configString("IPAUSTRALIA_AUTH_URL").pipe(Config.withDefault(undefined)),
  baseUrl: configString("IPAUSTRALIA_BASE_URL").pipe(Config.withDefault(undefined))
})

/** `error`, or, when credentials are not set, which ones and what to do: the provider's text names no remedy. */
const unset = (error: ConfigErrorType) =>
  Effect.flatMap(unsetVariables(error), (names) => Effect.fail(names.length === 0 ? error : notSet(names)))
const notSet = (names: ReadonlyArray<string>) => missingConfig(names.slice(0, 1), Service.credentialsNotSet(names))

/**
 * `make` from the `IPAUSTRALIA_*` variables.
 * @since 0.1.0
 * @category config
 */
export const fromEnv: Effect.Effect<Settings, ConfigErrorType> = Effect.flatMap(catchAll(optionsConfig, unset), make)

/**
 * The configuration read from the `IPAUSTRALIA_*` variables.
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<DesignSearchConfig, ConfigErrorType> = Layer.effect(DesignSearchConfig, fromEnv)
