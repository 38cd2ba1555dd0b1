/**
 * The `design-search` command line: the root command with its subcommands, run on a list of
 * arguments to an exit code. Every outcome is a code — success, a typed failure rendered on stderr
 * (see `failure.ts`), or a signal (see `Interruption.ts`) — so `main.ts` only has to exit with it.
 */
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Ref } from "effect"
import { exportDesigns } from "./commands/export.js"
import { get } from "./commands/get.js"
import { sandbox } from "./commands/sandbox.js"
import { search } from "./commands/search.js"
import { token } from "./commands/token.js"
import { environments } from "./Environment.js"
import { ExitCode, fromCause } from "./failure.js"
import { awaitSignal, InterruptExitCode } from "./Interruption.js"
import * as Output from "./Output.js"
import { root } from "./Root.js"

/** The CLI's version, as `--version` prints it. */
export const version = "0.2.0"

/** The whole command tree. */
export const command = root.pipe(Command.withSubcommands([search, get, exportDesigns, token, sandbox]))

const cli = Command.run(command, { name: "design-search", version })

/**
 * Joins `--env VALUE` into `--env=VALUE`. @effect/cli splits the arguments at the first one that
 * names a subcommand, so `design-search --env sandbox search x` would otherwise run `sandbox`.
 */
export const normalizeArgs = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ""
    const next = argv[i + 1]
    if (i >= 2 && arg === "--env" && next !== undefined && (environments as ReadonlyArray<string>).includes(next)) {
      out.push(`--env=${next}`)
      i++
    } else {
      out.push(arg)
    }
  }
  return out
}

/**
 * Runs the CLI on `argv` (as `process.argv`: runtime and script first) and returns the exit code.
 * Never fails: failures are rendered on stderr, signals interrupt the command.
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.gen(function*() {
    const interruptCode = yield* Ref.make<number>(ExitCode.interrupted)
    const outcome = cli(normalizeArgs(argv)).pipe(
      Effect.provideService(InterruptExitCode, interruptCode),
      Effect.provide(NodeContext.layer),
      Effect.matchCauseEffect({
        onSuccess: () => Effect.succeed<number>(ExitCode.success),
        onFailure: (cause) => {
          const { code, lines } = fromCause(cause)
          return Effect.as(Effect.forEach(lines, Output.stderr, { discard: true }), code)
        }
      })
    )
    return yield* Effect.race(outcome, Effect.zipRight(awaitSignal, Ref.get(interruptCode)))
  })
