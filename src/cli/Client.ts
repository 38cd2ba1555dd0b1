/**
 * The client the commands talk to, for the environment `Environment.target` chooses: the embedded
 * sandbox in process, with a one-line notice on stderr (the CLI works without credentials, and never
 * silently passes off simulated data as the service's), or the service over the default Node
 * transport, its token kept between runs (`TokenCache.ts`). Loaded with a command's handler, never
 * by `--help`.
 */
import type { ConfigError } from "effect"
import { Effect, Layer, Option } from "effect"
import * as DesignSearchClient from "../DesignSearchClient.js"
import * as DesignSearchConfig from "../DesignSearchConfig.js"
import type * as TokenService from "../TokenService.js"
import { target } from "./Environment.js"
import type { Environment } from "./Environment.js"
import * as Output from "./Output.js"
import { root } from "./Root.js"
import * as TokenCache from "./TokenCache.js"

/** The client every command uses, and the token service behind it. */
export type ClientServices = DesignSearchClient.DesignSearchClient | TokenService.TokenService

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
const undiciHttpClient = Effect.promise(() => import("@effect/platform/FetchHttpClient"))

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
 * Provides the client for the environment a command runs in (its own `--env`, else the global one),
 * its token cached between runs unless `--no-token-cache` is given. The layer is built per command,
 * so `sandbox` and `--help` never read credentials.
 */
export const provideClient = (local: Option.Option<Environment>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    effect,
    Layer.unwrapEffect(
      Effect.map(root, (global) => clientLayer(Option.orElse(local, () => global.env), !global.noTokenCache))
    )
  )
