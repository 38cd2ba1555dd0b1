/** Checks of the sandbox's numeric settings, shared by `Sandbox.make` and `Sandbox.serve`. */
import { ConfigError, Effect } from "effect"

/** `value` if it is a positive safe integer; otherwise a `ConfigError` naming the setting. */
export const positiveInt = (name: string, value: number): Effect.Effect<number, ConfigError.ConfigError> =>
  Number.isSafeInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(ConfigError.InvalidData([name], `${name} must be a positive integer, got ${value}`))
