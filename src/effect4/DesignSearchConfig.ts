/**
 * Where the design search service lives and how to reach it: environment, token URL, API base URL,
 * client credentials and timings. Built from options (`layer`) or from the `IPAUSTRALIA_*`
 * environment variables (`layerConfig`); every bad value is a `ConfigError` naming the setting. The
 * Effect 4 edition of `DesignSearchConfig`.
 *
 * @since 0.4.0
 */
import { Config, Context, Duration, Effect, Layer, Option, Redacted, Result } from "effect"
import * as Service from "../core/service.js"
import { invalid, missing, nonNegative, positive, positiveInt } from "./internal/optionChecks.js"

/**
 * The public environments of the service.
 *
 * @since 0.4.0
 * @category constants
 */
export const environments = Service.environments

/**
 * One of `environments`.
 *
 * @since 0.4.0
 * @category models
 */
export type Environment = Service.Environment

/**
 * The host of each environment: it serves both the token endpoint and the APIs.
 *
 * @since 0.4.0
 * @category constants
 */
export const hosts: Readonly<Record<Environment, string>> = Service.hosts

/**
 * Path of the token endpoint below the auth host (spec 4.1).
 *
 * @since 0.4.0
 * @category constants
 */
export const tokenPath = Service.tokenPath

/**
 * Path of the design search API below the host.
 *
 * @since 0.4.0
 * @category constants
 */
export const apiPath = Service.apiPath

/**
 * The resolved configuration. URLs are absolute strings; `apiBaseUrl` has no trailing slash.
 *
 * @since 0.4.0
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
 * @since 0.4.0
 * @category tags
 */
export class DesignSearchConfig extends Context.Service<DesignSearchConfig, Settings>()(
  "effect-design-search/DesignSearchConfig"
) {}

/**
 * Options of `make` and `layer`. Only the credentials are required; the environment defaults to
 * `production`. `authUrl` overrides the token host (the token path is appended), `baseUrl` the
 * whole API base.
 *
 * @since 0.4.0
 * @category options
 */
export interface Options {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | string
  readonly environment?: string | undefined
  readonly authUrl?: string | undefined
  readonly baseUrl?: string | undefined
  readonly refreshBefore?: Duration.Input | undefined
  readonly expirySkew?: Duration.Input | undefined
  readonly requestTimeout?: Duration.Input | undefined
  readonly tokenTimeout?: Duration.Input | undefined
  readonly maxBodyBytes?: number | undefined
}

/**
 * Defaults of the timings and the body cap.
 *
 * @since 0.4.0
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
 * @since 0.4.0
 * @category utils
 */
export const isLoopbackHost: (hostname: string) => boolean = Service.isLoopbackHost

/**
 * Parses a configured URL: it must be absolute, carry no credentials, and be `https:` unless its
 * host is loopback. Used for every URL the toolkit is given.
 *
 * @since 0.4.0
 * @category utils
 */
export const parseServiceUrl = (name: string, input: string): Result.Result<URL, Config.ConfigError> => {
  const url = Service.serviceUrl(input)
  return url instanceof URL ? Result.succeed(url) : Result.fail(invalid([name], `${name} ${url.problem}`))
}

const fail = (path: ReadonlyArray<string>, message: string) => Effect.fail(invalid(path, message))

const stripTrailingSlash = (url: URL): string => url.href.replace(/\/+$/, "")

/**
 * Validates options into `Settings`.
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Settings, Config.ConfigError> =>
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
    const authHost = yield* Effect.fromResult(
      parseServiceUrl("IPAUSTRALIA_AUTH_URL", options.authUrl ?? hosts[environment])
    )
    const apiBase = yield* Effect.fromResult(
      parseServiceUrl("IPAUSTRALIA_BASE_URL", options.baseUrl ?? hosts[environment] + apiPath)
    )
    const maxBodyBytes = yield* positiveInt("maxBodyBytes", options.maxBodyBytes ?? defaults.maxBodyBytes)
    const refreshBefore = yield* Effect.fromResult(
      nonNegative("refreshBefore", options.refreshBefore, defaults.refreshBefore)
    )
    const expirySkew = yield* Effect.fromResult(nonNegative("expirySkew", options.expirySkew, defaults.expirySkew))
    // A refresh due after the cache stops handing the token out would make busy callers wait.
    if (Duration.isLessThan(refreshBefore, expirySkew)) {
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
      requestTimeout: yield* Effect.fromResult(
        positive("requestTimeout", options.requestTimeout, defaults.requestTimeout)
      ),
      tokenTimeout: yield* Effect.fromResult(positive("tokenTimeout", options.tokenTimeout, defaults.tokenTimeout)),
      maxBodyBytes
    } satisfies Settings
  })

/**
 * `make` as a layer: bad options fail it with a `ConfigError`.
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<DesignSearchConfig, Config.ConfigError> =>
  Layer.effect(DesignSearchConfig, make(options))

/**
 * The `IPAUSTRALIA_*` variables as a `Config`: `IPAUSTRALIA_CLIENT_ID`, `IPAUSTRALIA_CLIENT_SECRET`
 * (redacted), `IPAUSTRALIA_ENV` (default `production`), `IPAUSTRALIA_AUTH_URL`,
 * `IPAUSTRALIA_BASE_URL`.
 *
 * @since 0.4.0
 * @category config
 */
export const optionsConfig: Config.Config<Options> = Config.all({
  clientId: Config.String("IPAUSTRALIA_CLIENT_ID"),
  clientSecret: Config.Redacted("IPAUSTRALIA_CLIENT_SECRET"),
  environment: Config.String("IPAUSTRALIA_ENV").pipe(Config.withDefault("production")),
  authUrl: Config.String("IPAUSTRALIA_AUTH_URL").pipe(Config.withDefault(undefined)),
  baseUrl: Config.String("IPAUSTRALIA_BASE_URL").pipe(Config.withDefault(undefined))
})

/** `error`, or, when credentials are not set, which ones and what to do about them. */
const unsetCredentials = (error: Config.ConfigError): Effect.Effect<never, Config.ConfigError> =>
  Effect.flatMap(
    Effect.filter(Service.credentialVariables, (name) => Effect.map(Config.option(Config.String(name)), Option.isNone)),
    (names) => Effect.fail(names.length === 0 ? error : missing(Service.credentialsNotSet(names)))
  )

/**
 * `make` from the `IPAUSTRALIA_*` variables.
 *
 * @since 0.4.0
 * @category config
 */
export const fromEnv: Effect.Effect<Settings, Config.ConfigError> = Effect.flatMap(
  Effect.catch(optionsConfig, unsetCredentials),
  make
)

/**
 * The configuration read from the `IPAUSTRALIA_*` variables.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerConfig: Layer.Layer<DesignSearchConfig, Config.ConfigError> = Layer.effect(
  DesignSearchConfig,
  fromEnv
)
