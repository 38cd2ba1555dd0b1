/**
 * Which environment the commands talk to. With `--env sandbox` (or `IPAUSTRALIA_ENV=sandbox`), or
 * when nothing names an environment and no `IPAUSTRALIA_*` variable points at the service (client
 * id, secret, auth or base URL), the embedded sandbox; when `--env` or `IPAUSTRALIA_ENV` names `test`
 * or `production`, the service, configured from the `IPAUSTRALIA_*` variables (missing credentials
 * are then a configuration error, never the sandbox standing in). The client for it is made in
 * `Client.ts`; this module is part of the command line, loaded at every start, and loads no client.
 */
import { Options } from "@effect/cli"
import { Config, ConfigError, Effect, Option } from "effect"
import * as DesignSearchConfig from "../DesignSearchConfig.js"

/** The environments `--env` accepts: the embedded sandbox, or one of the service's. */
export const environments = ["sandbox", ...DesignSearchConfig.environments] as const

/** @since 0.1.0 */
export type Environment = (typeof environments)[number]

/** `--env`: global (before the command) or per command (after it); the command's wins. */
export const envOption: Options.Options<Option.Option<Environment>> = Options.choice("env", environments).pipe(
  Options.withDescription("sandbox (embedded, simulated data), test or production; default IPAUSTRALIA_ENV"),
  Options.optional
)

const nonEmpty = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

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
export type Target =
  | { readonly _tag: "sandbox"; readonly notice: string }
  | { readonly _tag: "service"; readonly named: Option.Option<Environment>; readonly ownUrls: boolean }

/**
 * The target of the chosen environment: `--env` if given, else `IPAUSTRALIA_ENV`. The embedded
 * sandbox when that says `sandbox`, or when neither names an environment and no variable points at
 * the service.
 */
export const target = (env: Option.Option<Environment>): Effect.Effect<Target, ConfigError.ConfigError> =>
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
 * Whether the chosen environment is the service at its own hosts (`test` or `production`, no URL
 * the user set): where the published rate cap applies.
 */
export const atServiceHosts = (env: Option.Option<Environment>): Effect.Effect<boolean, ConfigError.ConfigError> =>
  Effect.map(target(env), (to) => to._tag === "service" && !to.ownUrls)
