/**
 * The `design-search` root command and what it holds for its subcommands: the global `--env`.
 * Subcommands read it by yielding `root`, so they take `--env` before or after their own name.
 */
import { Command } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import { clientLayer, envOption } from "./Environment.js"
import type { Environment } from "./Environment.js"

/** The root command, without its subcommands (they are attached in `Cli.ts`). */
export const root = Command.make("design-search", { env: envOption }).pipe(
  Command.withDescription("Search IP Australia's registered designs (or the embedded sandbox without credentials)")
)

/** The environment a subcommand runs in: its own `--env`, else the global one. */
export const resolveEnv = (local: Option.Option<Environment>) =>
  Effect.map(root, (global) => Option.orElse(local, () => global.env))

/**
 * Provides the client for the environment a subcommand runs in (see `Environment.clientLayer`).
 * The layer is built per command, so `sandbox` and `--help` never read credentials.
 */
export const provideClient = (local: Option.Option<Environment>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, Layer.unwrapEffect(Effect.map(resolveEnv(local), clientLayer)))
