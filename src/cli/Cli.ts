/**
 * The `design-search` command line, run on a list of arguments to an exit code. A command's handler
 * is loaded when it runs, so `--help` and bad usage never load the client, the mirror or the sandbox.
 */
import { Cause, Effect, Either, Option } from "effect"
import type { Command, Fields, Input, Split } from "./CommandLine.js"
import { check, didYouMean, split, strayOption } from "./CommandLine.js"
import { ExitCode, fromCause, UsageError } from "./failure.js"
import type { Failure } from "./failure.js"
import { commandHelp, programHelp } from "./Help.js"
import * as Inputs from "./Inputs.js"
import { api } from "./inputs/api.js"
import { mcp } from "./inputs/mcp.js"
import * as Output from "./Output.js"
import * as WatchInputs from "./WatchInputs.js"

/** A command, and how to run it on a checked command line (a usage error's detail, or the error). */
interface Runnable {
  readonly command: Command<Fields>
  readonly run: (line: Split) => Either.Either<Effect.Effect<void, Failure>, string | UsageError>
}

/** `command`, its handler loaded from `handlers/` when it runs. */
const runnable = <F extends Fields>(
  command: Command<F>,
  load: () => Promise<{ readonly handle: (input: Input<F>) => Effect.Effect<void, Failure> }>
): Runnable => ({
  command,
  run: (line) =>
    Either.map(
      check(command, line, commands.map((c) => c.command)),
      (input) => Effect.flatMap(Effect.promise(load), (handler) => handler.handle(input))
    )
})

const commands: ReadonlyArray<Runnable> = [
  runnable(Inputs.search, () => import("./handlers/search.js")),
  runnable(Inputs.get, () => import("./handlers/get.js")),
  runnable(Inputs.exportDesigns, () => import("./handlers/export.js")),
  runnable(Inputs.sync, () => import("./handlers/sync.js")),
  runnable(Inputs.changes, () => import("./handlers/changes.js")),
  {
    command: WatchInputs.watch,
    run: (line) =>
      Either.map(
        WatchInputs.checkWatch(line, commands.map((c) => c.command)),
        (input) =>
          Effect.flatMap(Effect.promise(() => import("./handlers/watch.js")), (handler) => handler.handle(input))
      )
  },
  runnable(Inputs.token, () => import("./handlers/token.js")),
  runnable(api, () => import("./handlers/api.js")),
  runnable(Inputs.sandbox, () => import("./handlers/sandbox.js")),
  runnable(mcp, () => import("./handlers/mcp.js")),
  {
    command: Inputs.record,
    run: (line) =>
      Either.flatMap(
        check(Inputs.record, { ...line, positionals: [] }, commands.map((c) => c.command)),
        (input) =>
          line.positionals.length === 0
            ? Either.left("a command to record is needed after --")
            : Either.flatMap(plan(line.positionals, ""), (inner) =>
              inner._tag === "print"
                ? Either.left("record runs a command, not a help")
                : inner.name === "sandbox" || inner.name === "record"
                ? Either.left(
                  `record runs a command that asks the service, not \`${inner.name}\`: \`sandbox --cassette\` serves a cassette`
                )
                : Either.right(
                  Effect.flatMap(
                    Effect.promise(() => import("./Client.js")),
                    (Client) => Effect.provideService(inner.effect, Client.Recording, input)
                  )
                ))
      )
  }
]
const names = commands.map((c) => c.command.name)

/** Every option that takes a value, of any command: `parseArgs` takes the next argument as its value. */
const valued = new Set(
  commands.flatMap((c) =>
    Object.values(c.command.fields).filter((f) => f._tag === "option" && f.placeholder !== undefined)
  )
    .map((f) => f.name)
)

/** The help of the program. */
const programHelpText = (): string =>
  programHelp(Inputs.summary, commands.map((c) => c.command), [
    "search chair",
    "get 201900001 --json",
    "export chair --out chairs.jsonl",
    "search --help"
  ])

/** The help of the command `name`, or of the program. */
const helpOf = (name: string | undefined): string => {
  const named = commands.find((c) => c.command.name === name)
  return named === undefined ? programHelpText() : commandHelp(named.command)
}

/** A usage error, in one line that points at the help to read. */
const misuse = (detail: string, command?: string) =>
  new UsageError({
    detail: `${detail}${detail.endsWith("?") ? "" : "."} See \`design-search ${
      command === undefined ? "" : `${command} `
    }--help\``
  })

/** What a command line asks for: a text to print (help, the version), or a command to run. */
export type Plan =
  | { readonly _tag: "print"; readonly text: string }
  | { readonly _tag: "run"; readonly name: string; readonly effect: Effect.Effect<void, Failure> }

/** What `args` (after the runtime and the script) ask for, or the usage error. */
export const plan = (args: ReadonlyArray<string>, version: string): Either.Either<Plan, UsageError> => {
  const line = split(args, valued)
  const [word, ...positionals] = line.positionals
  const named = commands.find((c) => c.command.name === word)
  // Before the command, an option no command has is the mistake, not the word after it.
  const stray = named === undefined ? strayOption(line, commands.map((c) => c.command)) : Option.none()
  if (Option.isSome(stray)) {
    const later = line.positionals.find((p) => names.includes(p))
    return line.help
      ? Either.right({ _tag: "print", text: helpOf(later) })
      : Either.left(misuse(stray.value, later))
  }
  if (word !== undefined && named === undefined) {
    const near = Option.getOrElse(didYouMean(word, names), () => "")
    return Either.left(misuse(`unknown command \`${word}\`${near}`))
  }
  if (line.help) return Either.right({ _tag: "print", text: helpOf(word) })
  if (line.version) return Either.right({ _tag: "print", text: version })
  if (named === undefined) return Either.left(misuse(`a command is needed: one of ${names.join(", ")}`))
  return Either.mapBoth(named.run({ ...line, positionals }), {
    onLeft: (detail) => typeof detail === "string" ? misuse(detail, named.command.name) : detail,
    onRight: (effect): Plan => ({ _tag: "run", name: named.command.name, effect })
  })
}

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
  const planned = plan(argv.slice(2), version)
  const program: Effect.Effect<number> = Either.match(planned, {
    onLeft: (error) => report(Cause.fail(error)),
    onRight: (todo) =>
      todo._tag === "print"
        ? Effect.as(Output.stdout(todo.text), ExitCode.success)
        : todo.effect.pipe(
          Effect.matchCauseEffect({ onSuccess: () => Effect.succeed(ExitCode.success), onFailure: report })
        )
  })
  const sandbox = Either.isRight(planned) && planned.right._tag === "run" && planned.right.name === "sandbox"
  return { program, onSignal: sandbox ? ExitCode.success : ExitCode.interrupted }
}
