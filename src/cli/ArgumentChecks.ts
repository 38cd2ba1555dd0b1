/**
 * What the command line is checked for before @effect/cli parses it, where the parser would guess:
 * an option that takes a value but has none (`search chair --status` at the end is dropped, and
 * `--status --json` takes `--json` as the status), and `--wizard` with no terminal to ask on (it
 * would wait forever). Each is a usage error, exit 2.
 */
import type { Usage } from "@effect/cli/Usage"
import { Option } from "effect"
import { UsageError } from "./failure.js"

/** The names of the options in `usage` that take a value (`--status text`), flags left out. */
const valuedNames = (usage: Usage, into: Set<string>): Set<string> => {
  switch (usage._tag) {
    case "Named":
      if (Option.isSome(usage.acceptedValues)) {
        for (const name of usage.names) {
          if (name.startsWith("-")) into.add(name)
        }
      }
      break
    case "Optional":
    case "Repeated":
      valuedNames(usage.usage, into)
      break
    case "Alternation":
    case "Concat":
      valuedNames(usage.left, into)
      valuedNames(usage.right, into)
      break
  }
  return into
}

/** Every option of the commands of `usages` (`Command.getUsage`) that takes a value, and the built-in ones that do. */
export const valuedOptions = (usages: ReadonlyArray<Usage>): ReadonlySet<string> =>
  usages.reduce((names, usage) => valuedNames(usage, names), new Set(["--log-level", "--completions"]))

/**
 * The usage error of `args` (the arguments after the runtime and the script), if any: a valued
 * option last or followed by another option (a value that begins with `--` is written `--name=value`),
 * or `--wizard` when stdin is no terminal.
 */
export const checkArguments = (
  args: ReadonlyArray<string>,
  valued: ReadonlySet<string>,
  stdinIsTTY: boolean
): Option.Option<UsageError> => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--") break
    if (arg === "--wizard" && !stdinIsTTY) {
      return Option.some(new UsageError({ detail: "--wizard asks its questions on a terminal, and stdin is not one" }))
    }
    if (!valued.has(arg)) continue
    const value = args[i + 1]
    if (value === undefined || value.startsWith("--")) {
      return Option.some(
        new UsageError({
          detail: `${arg} needs a value${
            value === undefined ? "" : `, not the option ${value}`
          } (write ${arg}=VALUE for a value that begins with --)`
        })
      )
    }
    i++
  }
  return Option.none()
}
