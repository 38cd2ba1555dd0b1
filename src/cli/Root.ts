/**
 * The `design-search` root command and what it holds for its subcommands: the global `--env` and
 * `--no-token-cache`. Subcommands read them by yielding `root`, so they take `--env` before or after
 * their own name (`--no-token-cache` is moved before it, see `ArgumentChecks.ts`).
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { envOption } from "./Environment.js"
import type { Environment } from "./Environment.js"

/** The root command, without its subcommands (they are attached in `Cli.ts`). */
export const root = Command.make("design-search", {
  env: envOption,
  noTokenCache: Options.boolean("no-token-cache").pipe(
    Options.withDescription(
      "keep the token of this run to itself, not in $XDG_CACHE_HOME/design-search (or ~/.cache) for the next; so does DESIGN_SEARCH_NO_TOKEN_CACHE=1"
    )
  )
}).pipe(
  Command.withDescription("Search IP Australia's registered designs (or the embedded sandbox without credentials)")
)

/** The environment a subcommand runs in: its own `--env`, else the global one. */
export const resolveEnv = (local: Option.Option<Environment>) =>
  Effect.map(root, (global) => Option.orElse(local, () => global.env))
