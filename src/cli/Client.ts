/**
 * The client the commands talk to, for the environment `Environment.target` chooses: the embedded
 * sandbox in process, with a one-line notice on stderr (the CLI works without credentials, and never
 * silently passes off simulated data as the service's), or the service over `fetch`, its token kept
 * between runs (`TokenCache.ts`). Loaded with a command's handler, never by `--help`.
 */
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import * as DesignSearchClient from "../DesignSearchClient.js"
import * as DesignSearchConfig from "../DesignSearchConfig.js"
import { target } from "./Environment.js"
import type { Environment } from "./Environment.js"
import { root } from "./Inputs.js"
import * as Output from "./Output.js"
import * as TokenCache from "./TokenCache.js"

/**
 * The client of the service, configured from the `IPAUSTRALIA_*` variables (`named` overriding the
 * environment), its token kept in the user's cache folder between runs unless `tokenCache` is off.
 */
const serviceClient = (named: Option.Option<Environment>, tokenCache: boolean) =>
  Effect.map(
    Effect.all([DesignSearchConfig.optionsConfig, TokenCache.disabledByEnvironment]),
    ([options, disabled]) =>
      DesignSearchClient.layer().pipe(
        tokenCache && !disabled ? Layer.provide(TokenCache.layer) : (client) => client,
        Layer.provide(
          DesignSearchConfig.layer(
            Option.match(named, { onNone: () => options, onSome: (environment) => ({ ...options, environment }) })
          )
        ),
        Layer.provide(FetchHttpClient.layer)
      )
  )

/**
 * Provides the client for the environment a command runs in (its own `--env`, else the global one;
 * see `target`). The service's token is cached between runs unless `--no-token-cache` is given; the
 * embedded sandbox's never is: it is made afresh for each run, and loaded only then. The layer is
 * built per command, so `sandbox` and `--help` never read credentials.
 */
export const provideClient = (local: Option.Option<Environment>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    effect,
    Layer.unwrapEffect(Effect.gen(function*() {
      const global = yield* root
      const to = yield* target(Option.orElse(local, () => global.env))
      if (to._tag === "service") return yield* serviceClient(to.named, !global.noTokenCache)
      yield* Output.stderr(
        `design-search: ${to.notice}; using the embedded sandbox (simulated data, not the real service)`
      )
      const Sandbox = yield* Effect.promise(() => import("../Sandbox.js"))
      return DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))
    }))
  )
