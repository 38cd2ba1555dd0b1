/**
 * Which environment the commands talk to: the embedded sandbox when named, or when nothing is named
 * and no `IPAUSTRALIA_*` variable points at the service; else the service (missing credentials are
 * then a configuration error, never the sandbox standing in). Loaded at every start: no client.
 */
import { Config, ConfigError, Effect, Option } from "effect"
import * as DesignSearchConfig from "../DesignSearchConfig.js"

/** The environments `--env` accepts: the embedded sandbox, or one of the service's. */
export const environments = ["sandbox", ...DesignSearchConfig.environments] as const

/** An environment `--env` accepts. */
export type Environment = (typeof environments)[number]

/** A variable's value; none when it is unset or blank. */
export const variable = (name: string): Effect.Effect<Option.Option<string>, ConfigError.ConfigError> =>
  Effect.map(Config.option(Config.string(name)), Option.filter((value) => value.trim() !== ""))

/** `IPAUSTRALIA_ENV`, when set: one of `environments`, or a configuration error that lists them. */
const environmentVariable = Effect.flatMap(variable("IPAUSTRALIA_ENV"), (value) => {
  if (Option.isNone(value)) return Effect.succeedNone
  const name = environments.find((known) => known === value.value.trim())
  return name !== undefined ? Effect.succeedSome(name) : Effect.fail(ConfigError.InvalidData(
    ["IPAUSTRALIA_ENV"],
    `unknown environment ${JSON.stringify(value.value)}: expected one of ${environments.join(", ")}`
  ))
})

/** Where the commands go: the embedded sandbox (and why), or the service (and whether at URLs the user set). */
export type Target =
  | { readonly _tag: "sandbox"; readonly notice: string }
  | { readonly _tag: "service"; readonly named: Option.Option<Environment>; readonly ownUrls: boolean }

/** Whether any of the variables `names` is set. */
const anySet = (names: ReadonlyArray<string>) =>
  Effect.map(Effect.forEach(names, variable), (values) => values.some(Option.isSome))

/** The target of `--env` if given, else of `IPAUSTRALIA_ENV`. */
export const target = (env: Option.Option<Environment>): Effect.Effect<Target, ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const named = Option.isSome(env) ? env : yield* environmentVariable
    if (Option.getOrUndefined(named) === "sandbox") {
      return { _tag: "sandbox", notice: Option.isSome(env) ? "--env sandbox" : "IPAUSTRALIA_ENV=sandbox" } as const
    }
    const urls = ["IPAUSTRALIA_AUTH_URL", "IPAUSTRALIA_BASE_URL"]
    if (Option.isNone(named) && !(yield* anySet(["IPAUSTRALIA_CLIENT_ID", "IPAUSTRALIA_CLIENT_SECRET", ...urls]))) {
      return { _tag: "sandbox", notice: "no IPAUSTRALIA_* variable is set" } as const
    }
    return { _tag: "service", named, ownUrls: yield* anySet(urls) } as const
  })
