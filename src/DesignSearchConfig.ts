/**
 * Where the design search service lives and how to reach it: environment, token URL, API base URL,
 * client credentials and timings. Built from options (`layer`) or from the `IPAUSTRALIA_*`
 * environment variables (`layerConfig`); every bad value is a `ConfigError` naming the setting.
 *
 * @since 0.1.0
 */
import { Config, ConfigError, Context, Duration, Effect, Either, Layer, Redacted } from "effect"
import * as Service from "./core/service.js"
import { nonNegative, positive, positiveInt } from "./internal/optionChecks.js"

/**
 * The public environments of the service.
 *
 * @since 0.1.0
 * @category constants
 */
export const environments = Service.environments

/**
 * One of `environments`.
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Service.Environment

/**
 * The host of each environment: it serves both the token endpoint and the APIs.
 *
 * @since 0.1.0
 * @category constants
 */
export const hosts: Readonly<Record<Environment, string>> = Service.hosts

/**
 * Path of the token endpoint below the auth host (spec 4.1).
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenPath = Service.tokenPath

/**
 * Path of the design search API below the host.
 *
 * @since 0.1.0
 * @category constants
 */
export const apiPath = Service.apiPath

/**
 * The resolved configuration. URLs are absolute strings; `apiBaseUrl` has no trailing slash.
 *
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
 *
 * @since 0.1.0
 * @category tags
 */
export class DesignSearchConfig extends Context.Tag("effect-design-search/DesignSearchConfig")<
  DesignSearchConfig,
  Settings
>() {}

/**
 * Options of `make` and `layer`. Only the credentials are required; the environment defaults to
 * `production`. `authUrl` overrides the token host (the token path is appended), `baseUrl` the
 * whole API base.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | string
  readonly environment?: string | undefined
  readonly authUrl?: string | undefined
  readonly baseUrl?: string | undefined
  readonly refreshBefore?: Duration.DurationInput | undefined
  readonly expirySkew?: Duration.DurationInput | undefined
  readonly requestTimeout?: Duration.DurationInput | undefined
  readonly tokenTimeout?: Duration.DurationInput | undefined
  readonly maxBodyBytes?: number | undefined
}

/**
 * Defaults of the timings and the body cap.
 *
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
 *
 * @since 0.1.0
 * @category utils
 */
export const isLoopbackHost: (hostname: string) => boolean = Service.isLoopbackHost

/**
 * Parses a configured URL: it must be absolute, carry no credentials, and be `https:` unless its
 * host is loopback. Used for every URL the toolkit is given.
 *
 * @since 0.1.0
 * @category utils
 */
export const parseServiceUrl = (name: string, input: string): Either.Either<URL, ConfigError.ConfigError> => {
  const url = Service.serviceUrl(input)
  return url instanceof URL ? Either.right(url) : Either.left(ConfigError.InvalidData([name], `${name} ${url.problem}`))
}

const invalid = (path: Array<string>, message: string) => Effect.fail(ConfigError.InvalidData(path, message))

const stripTrailingSlash = (url: URL): string => url.href.replace(/\/+$/, "")

/**
 * Validates options into `Settings`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Settings, ConfigError.ConfigError> =>
  Effect.gen(function*() {
    if (typeof options !== "object" || options === null) return yield* invalid([], "expected an object of options")
    const environmentName: unknown = options.environment ?? "production"
    if (typeof environmentName !== "string" || !(environments as ReadonlyArray<string>).includes(environmentName)) {
      return yield* invalid(
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
      return yield* invalid(["IPAUSTRALIA_CLIENT_ID"], "client id must be a non-empty string")
    }
    const secret: unknown = Redacted.isRedacted(options.clientSecret)
      ? Redacted.value(options.clientSecret)
      : options.clientSecret
    if (typeof secret !== "string" || secret.trim() === "") {
      return yield* invalid(["IPAUSTRALIA_CLIENT_SECRET"], "client secret must be a non-empty string")
    }
    const clientSecret = Redacted.make(secret)
    const authHost = yield* parseServiceUrl("IPAUSTRALIA_AUTH_URL", options.authUrl ?? hosts[environment])
    const apiBase = yield* parseServiceUrl("IPAUSTRALIA_BASE_URL", options.baseUrl ?? hosts[environment] + apiPath)
    const maxBodyBytes = yield* positiveInt("maxBodyBytes", options.maxBodyBytes ?? defaults.maxBodyBytes)
    const refreshBefore = yield* nonNegative("refreshBefore", options.refreshBefore, defaults.refreshBefore)
    const expirySkew = yield* nonNegative("expirySkew", options.expirySkew, defaults.expirySkew)
    // A refresh due after the cache stops handing the token out would make busy callers wait.
    if (Duration.lessThan(refreshBefore, expirySkew)) {
      return yield* invalid(
        ["refreshBefore"],
        "refreshBefore must be at least expirySkew, or callers wait on refreshes"
      )
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
      requestTimeout: yield* positive("requestTimeout", options.requestTimeout, defaults.requestTimeout),
      tokenTimeout: yield* positive("tokenTimeout", options.tokenTimeout, defaults.tokenTimeout),
      maxBodyBytes
    } satisfies Settings
  })

/**
 * `make` as a layer: bad options fail it with a `ConfigError`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<DesignSearchConfig, ConfigError.ConfigError> =>
  Layer.effect(DesignSearchConfig, make(options))

/**
 * The `IPAUSTRALIA_*` variables as a `Config`: `IPAUSTRALIA_CLIENT_ID`, `IPAUSTRALIA_CLIENT_SECRET`
 * (redacted), `IPAUSTRALIA_ENV` (default `production`), `IPAUSTRALIA_AUTH_URL`,
 * `IPAUSTRALIA_BASE_URL`.
 *
 * @since 0.1.0
 * @category config
 */
export const optionsConfig: Config.Config<Options> = Config.all({
  clientId: Config.string("IPAUSTRALIA_CLIENT_ID"),
  clientSecret: Config.redacted("IPAUSTRALIA_CLIENT_SECRET"),
  environment: Config.string("IPAUSTRALIA_ENV").pipe(Config.withDefault("production")),
  authUrl: Config.string("IPAUSTRALIA_AUTH_URL").pipe(Config.withDefault(undefined)),
  baseUrl: Config.string("IPAUSTRALIA_BASE_URL").pipe(Config.withDefault(undefined))
})

/**
 * `make` from the `IPAUSTRALIA_*` variables.
 *
 * @since 0.1.0
 * @category config
 */
export const fromEnv: Effect.Effect<Settings, ConfigError.ConfigError> = Effect.flatMap(
  Effect.mapError(optionsConfig, (error) => ConfigError.isMissingDataOnly(error) ? unset(error) : error),
  make
)

/** The variables a `MissingData` error is about. */
const missing = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  error._op === "And" || error._op === "Or"
    ? [...missing(error.left), ...missing(error.right)]
    : error._op === "MissingData"
    ? [error.path.join(".")]
    : []

/** Unset variables, told as what to do about them: the provider's own text names no remedy. */
const unset = (error: ConfigError.ConfigError): ConfigError.ConfigError => {
  const names = [...new Set(missing(error))]
  return ConfigError.MissingData([names[0] ?? "IPAUSTRALIA_CLIENT_ID"], Service.credentialsNotSet(names))
}

/**
 * The configuration read from the `IPAUSTRALIA_*` variables.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<DesignSearchConfig, ConfigError.ConfigError> = Layer.effect(
  DesignSearchConfig,
  fromEnv
)
