/**
 * The `design-search` command line: the root command with its subcommands, run on a list of
 * arguments to an exit code. Every outcome is a code — success, a typed failure rendered on stderr
 * (see `failure.ts`), or a signal (see `Interruption.ts`) — so `main.ts` only has to exit with it.
 */
import { CliConfig, Command } from "@effect/cli"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Cause, Effect, Layer, Option, Ref } from "effect"
import { checkArguments, optionNames, rewriteArguments } from "./ArgumentChecks.js"
import type { OptionNames } from "./ArgumentChecks.js"
import { exportDesigns } from "./commands/export.js"
import { get } from "./commands/get.js"
import { sandbox } from "./commands/sandbox.js"
import { search } from "./commands/search.js"
import { sync } from "./commands/sync.js"
import { token } from "./commands/token.js"
import { environments } from "./Environment.js"
import { ExitCode, fromCause } from "./failure.js"
import type { Failure } from "./failure.js"
import { withHelpConsole } from "./HelpConsole.js"
import { awaitSignal, InterruptExitCode } from "./Interruption.js"
import * as Output from "./Output.js"
import { root } from "./Root.js"

/** The CLI's version, as `--version` prints it. */
export const version = "0.2.0"

/** The whole command tree. */
export const command = root.pipe(Command.withSubcommands([search, get, exportDesigns, sync, token, sandbox]))

const cli = Command.run(command, { name: "design-search", version })

/** The subcommands, by name. */
const commandNames = ["search", "get", "export", "sync", "token", "sandbox"]

/** Every option of the CLI. */
export const names: OptionNames = optionNames([
  Command.getUsage(root),
  Command.getUsage(search),
  Command.getUsage(get),
  Command.getUsage(exportDesigns),
  Command.getUsage(sync),
  Command.getUsage(token),
  Command.getUsage(sandbox)
])

/**
 * What `@effect/cli` and the commands need of Node: its file system, paths and terminal. Not
 * `NodeContext.layer`, whose command executor and worker manager no command uses and whose modules
 * took 7 ms of the CLI's start to load.
 */
const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

/** Renders a failed run on stderr and answers its exit code. */
const report = (cause: Cause.Cause<Failure>): Effect.Effect<number> => {
  const { code, lines } = fromCause(cause)
  return Effect.as(Effect.forEach(lines, Output.stderr, { discard: true }), code)
}

/**
 * Runs the CLI on `argv` (as `process.argv`: runtime and script first) and returns the exit code.
 * Never fails: failures are rendered on stderr, signals interrupt the command.
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Effect.gen(function*() {
    const interruptCode = yield* Ref.make<number>(ExitCode.interrupted)
    const given = argv.slice(2)
    const misuse = checkArguments(given, names, yield* Effect.sync(() => process.stdin.isTTY === true))
    if (Option.isSome(misuse)) return yield* report(Cause.fail(misuse.value))
    const args = [...argv.slice(0, 2), ...rewriteArguments(given, names, commandNames, environments)]
    const outcome = cli(args).pipe(
      withHelpConsole("design-search", commandNames),
      // Case-sensitive options: by default `--LIMIT 5` is matched, its value taken, then dropped.
      Effect.provide(CliConfig.layer({ isCaseSensitive: true })),
      Effect.provideService(InterruptExitCode, interruptCode),
      Effect.provide(platform),
      Effect.matchCauseEffect({
        onSuccess: () => Effect.succeed<number>(ExitCode.success),
        onFailure: report
      })
    )
    return yield* Effect.race(outcome, Effect.zipRight(awaitSignal, Ref.get(interruptCode)))
  })
