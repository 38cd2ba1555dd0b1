/**
 * The console @effect/cli writes help and usage errors through: plain text off a terminal or with
 * `NO_COLOR` set, and a subcommand's usage line names the program (`$ design-search search ...`).
 */
import { Console, Effect } from "effect"

// eslint-disable-next-line no-control-regex
const ansiEscapes = /\u001b\[[0-9;]*m/g

/** `text` without its colours and styles. */
export const plain = (text: string): string => text.replace(ansiEscapes, "")

/** `text` with each usage line of `subcommands` (`$ search ...`) prefixed with `program`. */
export const withProgram = (text: string, program: string, subcommands: ReadonlyArray<string>): string =>
  text.replace(
    new RegExp(`^\\$ ((?:\\u001b\\[[0-9;]*m)*)(${subcommands.join("|")})\\b`, "gm"),
    `$ $1${program} $2`
  )

/** Whether a stream gets colour: a terminal, and `NO_COLOR` unset or empty. */
const coloured = (stream: { readonly isTTY?: boolean }): boolean =>
  stream.isTTY === true && (process.env["NO_COLOR"] ?? "") === ""

/** Runs `effect` with @effect/cli's output tidied as the module says. */
export const withHelpConsole =
  (program: string, subcommands: ReadonlyArray<string>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.console, (base) => {
      const tidy = (colour: boolean) => (arg: unknown) => {
        if (typeof arg !== "string") return arg
        const named = withProgram(arg, program, subcommands)
        return colour ? named : plain(named)
      }
      const console: Console.Console = {
        ...base,
        log: (...args) => base.log(...args.map(tidy(coloured(process.stdout)))),
        error: (...args) => base.error(...args.map(tidy(coloured(process.stderr))))
      }
      return Console.withConsole(effect, console)
    })
