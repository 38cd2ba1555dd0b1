/**
 * The `design-search` command line, run on a list of arguments to an exit code. A command's handler
 * is loaded when it runs, so `--help` and bad usage never load the client, the mirror or the sandbox.
 */
import { CliConfig, Command } from "@effect/cli"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Cause, Effect, HashMap, Layer, Option } from "effect"
import { checkArguments, optionNames, rewriteArguments } from "./ArgumentChecks.js"
import type { OptionNames } from "./ArgumentChecks.js"
import { environments } from "./Environment.js"
import { ExitCode, fromCause } from "./failure.js"
import type { Failure } from "./failure.js"
import { withHelpConsole } from "./HelpConsole.js"
import * as Inputs from "./Inputs.js"
import * as Output from "./Output.js"

/** The handler of a command, loaded from `handlers/` when the command runs. */
const lazily =
  <A, E, R>(load: () => Promise<{ readonly handle: (args: A) => Effect.Effect<void, E, R> }>) =>
  (args: A): Effect.Effect<void, E, R> => Effect.flatMap(Effect.promise(load), (module) => module.handle(args))

const search = Command.make("search", Inputs.search, lazily(() => import("./handlers/search.js"))).pipe(
  Command.withDescription("Search designs: the count and the first hits (number, status, title), or --json")
)

const get = Command.make("get", Inputs.get, lazily(() => import("./handlers/get.js"))).pipe(
  Command.withDescription("Show everything known about one design, or --json for the record")
)

const exportCommand = Command.make("export", Inputs.exportDesigns, lazily(() => import("./handlers/export.js"))).pipe(
  Command.withDescription(
    "Write every hit (of a query, or of criteria) with its full record to a JSONL file; run again to resume"
  )
)

const sync = Command.make("sync", Inputs.sync, lazily(() => import("./handlers/sync.js"))).pipe(
  Command.withDescription(
    "Keep a SQL mirror (SQLite or PostgreSQL) of every design of a query or criteria: all at first, then only changes"
  )
)

const token = Command.make("token", Inputs.token, lazily(() => import("./handlers/token.js"))).pipe(
  Command.withDescription("Fetch an access token and show its type, expiry and claims (the token only with --show)")
)

const sandbox = Command.make("sandbox", Inputs.sandbox, lazily(() => import("./handlers/sandbox.js"))).pipe(
  Command.withDescription("Serve the simulated service on loopback and print the variables that point a client at it")
)

const command = Inputs.root.pipe(Command.withSubcommands([search, get, exportCommand, sync, token, sandbox]))
const subcommands = Command.getSubcommands(command)
const commandNames = Array.from(HashMap.keys(subcommands))

/** Every option of the CLI. */
export const names: OptionNames = optionNames([
  Command.getUsage(Inputs.root),
  ...Array.from(HashMap.values(subcommands), Descriptor.getUsage)
])

/**
 * What `@effect/cli` and the commands need of Node: its file system, paths and terminal. Not
 * `NodeContext.layer`, whose command executor and worker manager no command uses.
 */
const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)

/** Renders a failed run on stderr and answers its exit code. */
const report = (cause: Cause.Cause<Failure>): Effect.Effect<number> => {
  const { code, lines } = fromCause(cause)
  return Effect.as(Effect.forEach(lines, Output.stderr, { discard: true }), code)
}

/**
 * The CLI of `version` on `argv` (as `process.argv`: runtime and script first): `program` answers the
 * exit code and never fails (failures are rendered on stderr); `onSignal` is the exit code of a run
 * that SIGINT or SIGTERM interrupts: 130, or 0 for `sandbox`, whose normal way to stop is a signal.
 */
export const run = (argv: ReadonlyArray<string>, version: string) => {
  const given = argv.slice(2)
  const rewritten = rewriteArguments(given, names, commandNames, environments)
  const program = Effect.gen(function*() {
    const misuse = checkArguments(given, names, yield* Effect.sync(() => process.stdin.isTTY === true))
    if (Option.isSome(misuse)) return yield* report(Cause.fail(misuse.value))
    return yield* Command.run(command, { name: "design-search", version })([...argv.slice(0, 2), ...rewritten]).pipe(
      withHelpConsole("design-search", commandNames),
      // Case-sensitive options: by default `--LIMIT 5` is matched, its value taken, then dropped.
      Effect.provide(CliConfig.layer({ isCaseSensitive: true })),
      Effect.provide(platform),
      Effect.matchCauseEffect({
        onSuccess: () => Effect.succeed<number>(ExitCode.success),
        onFailure: report
      })
    )
  })
  const sandbox = rewritten.find((arg) => commandNames.includes(arg)) === "sandbox"
  return { program, onSignal: sandbox ? ExitCode.success : ExitCode.interrupted }
}
