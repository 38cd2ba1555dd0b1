/**
 * The client of the environment `Environment.target` chooses: the embedded sandbox, with a notice
 * on stderr (simulated data is never passed off as the service's), or the service over `fetch`,
 * its token kept between runs (`TokenCache.ts`). Loaded with a handler, never by `--help`.
 */
import { FetchHttpClient } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import * as AuthorizedClient from "../AuthorizedClient.js"
import * as DesignSearchClient from "../DesignSearchClient.js"
import * as DesignSearchConfig from "../DesignSearchConfig.js"
import { target } from "./Environment.js"
import type { Environment } from "./Environment.js"
import * as Output from "./Output.js"
import * as TokenCache from "./TokenCache.js"
import * as Waits from "./Waits.js"

/** The clients of every command, built together: one token service, one token. */
const clients = Layer.mergeAll(DesignSearchClient.layer(), AuthorizedClient.layer())

/** Where the service is, from the `IPAUSTRALIA_*` variables, `named` overriding the environment. */
const serviceConfig = (named: Option.Option<Environment>) =>
  Effect.map(DesignSearchConfig.optionsConfig, (options) =>
    DesignSearchConfig.layer(
      Option.match(named, { onNone: () => options, onSome: (environment) => ({ ...options, environment }) })
    ))

/** The client of the service, its token kept between runs unless `tokenCache` is off. */
const serviceClient = (named: Option.Option<Environment>, tokenCache: boolean) =>
  Effect.map(
    Effect.all([serviceConfig(named), TokenCache.disabledByEnvironment]),
    ([config, disabled]) =>
      clients.pipe(
        tokenCache && !disabled ? Layer.provide(TokenCache.layer) : (client) => client,
        Layer.provide(config),
        Layer.provide(FetchHttpClient.layer)
      )
  )

/** Set by `record`: the commands' client talks through this cassette (`auto`) to their environment. */
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
      const to = yield* target(options.env)
      const recording = yield* Effect.serviceOption(Recording)
      if (to._tag === "service" && Option.isNone(recording)) {
        return yield* serviceClient(to.named, !options.noTokenCache)
      }
      if (to._tag === "sandbox") {
        yield* Output.stderr(
          `design-search: ${to.notice}; using the embedded sandbox (simulated data, not the real service)`
        )
      }
      const Sandbox = yield* Effect.promise(() => import("../Sandbox.js"))
      const upstream = to._tag === "service"
        ? Layer.merge(yield* serviceConfig(to.named), FetchHttpClient.layer)
        : Sandbox.layer()
      return clients.pipe(Layer.provide(Option.match(recording, {
        onNone: () => upstream,
        onSome: ({ cassette, ignore }) =>
          Sandbox.layerCassette(cassette, { mode: "auto", ignore }).pipe(Layer.provide(upstream))
      })))
    })).pipe(Layer.merge(Waits.layer(options.quiet)))
  )
