/**
 * The client of the environment `Environment.target` chooses: the embedded sandbox, with a notice
 * on stderr (simulated data is never passed off as the service's), or the service over `fetch`,
 * its token kept between runs (`TokenCache.ts`). Loaded with a handler, never by `--help`.
 */
import { FetchHttpClient } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import * as DesignSearchClient from "../DesignSearchClient.js"
import * as DesignSearchConfig from "../DesignSearchConfig.js"
import { target } from "./Environment.js"
import type { Environment } from "./Environment.js"
import * as Output from "./Output.js"
import * as TokenCache from "./TokenCache.js"
import * as Waits from "./Waits.js"

/** The client of the service, from the `IPAUSTRALIA_*` variables, `named` overriding the environment. */
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

/** Set by `record`: the commands' client talks to the service through this cassette (`auto`). */
export class Recording extends Context.Tag("design-search/Recording")<Recording, {
  readonly cassette: string
  readonly ignore: ReadonlyArray<string>
}>() {}

/** The options of a command that talks to the service. */
export interface ServiceOptions {
  readonly env: Option.Option<Environment>
  readonly noTokenCache: boolean
  readonly quiet: boolean
}

/**
 * Provides the client of a command's environment, its waits told on stderr unless `--quiet`; built
 * per command, so `sandbox` reads no credentials.
 */
export const provideClient = (options: ServiceOptions) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(
    effect,
    Layer.unwrapEffect(Effect.gen(function*() {
      const recording = yield* Effect.serviceOption(Recording)
      if (Option.isSome(recording)) {
        const { cassette, ignore } = recording.value
        const Sandbox = yield* Effect.promise(() => import("../Sandbox.js"))
        return DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layerCassette(cassette, { mode: "auto", ignore })))
      }
      const to = yield* target(options.env)
      if (to._tag === "service") return yield* serviceClient(to.named, !options.noTokenCache)
      yield* Output.stderr(
        `design-search: ${to.notice}; using the embedded sandbox (simulated data, not the real service)`
      )
      const Sandbox = yield* Effect.promise(() => import("../Sandbox.js"))
      return DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))
    })).pipe(Layer.merge(Waits.layer(options.quiet)))
  )
