/**
 * What the commands talk to. With `--env sandbox` (or `IPAUSTRALIA_ENV=sandbox`), or when nothing
 * names an environment and no `IPAUSTRALIA_*` variable points at the service (client id, secret,
 * auth or base URL), the embedded sandbox answers in
 * process and a one-line notice on stderr says so: the CLI works without credentials, and never
 * silently passes off simulated data as the service's. When `--env` or `IPAUSTRALIA_ENV` names
 * `test` or `production`, the client is configured from the `IPAUSTRALIA_*` variables and reaches
 * the service over the default Node transport; missing credentials are then a configuration error,
 * never the sandbox standing in. The service's token is kept between runs (`TokenCache.ts`).
 */
import { Options } from "@effect/cli"
import { Config, ConfigError, Effect, Layer, Option } from "effect"
import * as DesignSearchClient from "../DesignSearchClient.js"
import * as DesignSearchConfig from "../DesignSearchConfig.js"
import type * as TokenService from "../TokenService.js"
import * as Output from "./Output.js"
import * as TokenCache from "./TokenCache.js"

/** The environments `--env` accepts: the embedded sandbox, or one of the service's. */
export const environments = ["sandbox", ...DesignSearchConfig.environments] as const

/** @since 0.1.0 */
export type Environment = (typeof environments)[number]

/** `--env`: global (before the command) or per command (after it); the command's wins. */
export const envOption: Options.Options<Option.Option<Environment>> = Options.choice("env", environments).pipe(
  Options.withDescription("sandbox (embedded, simulated data), test or production; default IPAUSTRALIA_ENV"),
  Options.optional
)

/** The client every command uses, and the token service behind it. */
export type ClientServices = DesignSearchClient.DesignSearchClient | TokenService.TokenService

const nonEmpty = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

const sandboxClient = (notice: string): Layer.Layer<ClientServices, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.zipRight(
      Output.stderr(`design-search: ${notice}; using the embedded sandbox (simulated data, not the real service)`),
      // loaded when it answers, as the default transport is (below)
      Effect.map(Effect.promise(() => import("../Sandbox.js")), (Sandbox) =>
        DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer())))
    )
  )

/**
 * The default transport, and undici with it, loaded only when the service is called: `--help`, the
 * sandbox and bad usage never pay for loading it (see "CLI start" under "Performance" in the README).
 */
const undiciHttpClient = Effect.promise(() => import("../UndiciHttpClient.js"))

/**
 * The client of the service; its token kept in the user's cache folder between runs (`TokenCache`)
 * unless `tokenCache` is off or `DESIGN_SEARCH_NO_TOKEN_CACHE` says so.
 */
const serviceClient = (
  environment: Option.Option<Environment>,
  tokenCache: boolean
): Layer.Layer<ClientServices, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.all([DesignSearchConfig.optionsConfig, TokenCache.disabledByEnvironment, undiciHttpClient]).pipe(
      Effect.map(([options, disabled, UndiciHttpClient]) => {
        const client = DesignSearchClient.layer()
        return (tokenCache && !disabled ? client.pipe(Layer.provide(TokenCache.layer)) : client).pipe(
          Layer.provide(DesignSearchConfig.layer(Option.match(environment, {
            onNone: () => options,
            onSome: (env) => ({ ...options, environment: env })
          }))),
          Layer.provide(UndiciHttpClient.layer)
        )
      })
    )
  )

/** The variables that point the CLI at the service: any of them set, and the sandbox never stands in. */
const serviceVariables = [
  "IPAUSTRALIA_CLIENT_ID",
  "IPAUSTRALIA_CLIENT_SECRET",
  "IPAUSTRALIA_AUTH_URL",
  "IPAUSTRALIA_BASE_URL"
] as const

/** The variables that point the CLI at URLs of the user's own. */
const urlVariables = ["IPAUSTRALIA_AUTH_URL", "IPAUSTRALIA_BASE_URL"] as const

const isEnvironment = (name: string): name is Environment => (environments as ReadonlyArray<string>).includes(name)

/** `IPAUSTRALIA_ENV`, when set: one of `environments`, or a configuration error that lists them. */
const environmentVariable: Effect.Effect<Option.Option<Environment>, ConfigError.ConfigError> = Effect.flatMap(
  nonEmpty("IPAUSTRALIA_ENV"),
  Option.match({
    onNone: () => Effect.succeedNone,
    onSome: (value) =>
      isEnvironment(value.trim()) ? Effect.succeedSome(value.trim() as Environment) : Effect.fail(
        ConfigError.InvalidData(
          ["IPAUSTRALIA_ENV"],
          `unknown environment ${JSON.stringify(value)}: expected one of ${environments.join(", ")}`
        )
      )
  })
)

/** Where the commands go: the embedded sandbox (and why), or the service (and whether at URLs the user set). */
type Target =
  | { readonly _tag: "sandbox"; readonly notice: string }
  | { readonly _tag: "service"; readonly named: Option.Option<Environment>; readonly ownUrls: boolean }

/**
 * The target of the chosen environment: `--env` if given, else `IPAUSTRALIA_ENV`. The embedded
 * sandbox when that says `sandbox`, or when neither names an environment and no variable points at
 * the service.
 */
const target = (env: Option.Option<Environment>): Effect.Effect<Target, ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const named = Option.isSome(env) ? env : yield* environmentVariable
    if (Option.getOrUndefined(named) === "sandbox") {
      return { _tag: "sandbox", notice: Option.isSome(env) ? "--env sandbox" : "IPAUSTRALIA_ENV=sandbox" } as const
    }
    const pointed = yield* Effect.forEach(serviceVariables, (name) => Effect.map(nonEmpty(name), Option.isSome))
    if (Option.isNone(named) && !pointed.some((set) => set)) {
      return { _tag: "sandbox", notice: "no IPAUSTRALIA_* variable is set" } as const
    }
    const ownUrls = yield* Effect.map(Effect.forEach(urlVariables, nonEmpty), (urls) => urls.some(Option.isSome))
    return { _tag: "service", named, ownUrls } as const
  })

/**
 * The client for the chosen environment (see `target`). The service's token is cached between runs
 * unless `tokenCache` is `false`; the embedded sandbox's never is: it is made afresh for each run,
 * and holds no token of another.
 */
export const clientLayer = (
  env: Option.Option<Environment>,
  tokenCache: boolean = true
): Layer.Layer<ClientServices, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.map(
      target(env),
      (to) => to._tag === "sandbox" ? sandboxClient(to.notice) : serviceClient(to.named, tokenCache)
    )
  )

/**
 * Whether the chosen environment is the service at its own hosts (`test` or `production`, no URL
 * the user set): where the published rate cap applies.
 */
export const atServiceHosts = (env: Option.Option<Environment>): Effect.Effect<boolean, ConfigError.ConfigError> =>
  Effect.map(target(env), (to) => to._tag === "service" && !to.ownUrls)
