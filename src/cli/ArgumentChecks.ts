/**
 * What the command line is checked for, and how it is rewritten, before @effect/cli parses it,
 * wherever the parser would guess:
 *
 * - an option that takes a value but has none (`search chair --status` at the end is dropped, and
 *   `--status --json` takes `--json` as the status);
 * - an option no command has (`search --bogus` searched for "--bogus");
 * - `--wizard` with no terminal to ask on (it would wait forever).
 *
 * Each is a usage error, exit 2. A query that begins with `-` goes after `--`. Then `--help`
 * anywhere before `--` asks for help (after a flag it was taken as the query), and a repeated
 * option written `--status=VALUE` is split in two, the only form @effect/cli reads for it, and the
 * global `--no-token-cache` is moved before the command, where @effect/cli reads it.
 */
import type { Usage } from "@effect/cli/Usage"
import { Option } from "effect"
import { UsageError } from "./failure.js"

/** The options of a command line, by what they take. */
export interface OptionNames {
  /** Every option name, with its aliases and the built-in ones. */
  readonly known: ReadonlySet<string>
  /** Those that take a value (`--status text`). */
  readonly valued: ReadonlySet<string>
  /** Those that may be given more than once (`--status A --status B`). */
  readonly repeated: ReadonlySet<string>
}

type Collecting = { readonly [K in keyof OptionNames]: Set<string> }

const collect = (usage: Usage, into: Collecting, inRepeated: boolean): void => {
  switch (usage._tag) {
    case "Named":
      for (const name of usage.names.filter((name) => name.startsWith("-"))) {
        into.known.add(name)
        if (Option.isSome(usage.acceptedValues)) into.valued.add(name)
        if (inRepeated) into.repeated.add(name)
      }
      break
    case "Optional":
    case "Repeated":
      collect(usage.usage, into, inRepeated || usage._tag === "Repeated")
      break
    case "Alternation":
    case "Concat":
      collect(usage.left, into, inRepeated)
      collect(usage.right, into, inRepeated)
  }
}

/** The options of the commands of `usages` (`Command.getUsage`), with @effect/cli's built-in ones. */
export const optionNames = (usages: ReadonlyArray<Usage>): OptionNames => {
  const into: Collecting = {
    known: new Set(["--help", "-h", "--version", "--wizard", "--log-level", "--completions"]),
    valued: new Set(["--log-level", "--completions"]),
    repeated: new Set()
  }
  for (const usage of usages) collect(usage, into, false)
  return into
}

/** The option an argument names (`--limit` of `--limit=5`), or none when it is no option. */
const optionOf = (arg: string): string | undefined =>
  arg.length > 1 && arg.startsWith("-") ? arg.split("=", 1)[0] : undefined

/**
 * The usage error of `args` (the arguments after the runtime and the script), if any: an option no
 * command has, a valued option last or followed by another option (a value that begins with `--`
 * is written `--name=value`), or `--wizard` when stdin is no terminal.
 */
export const checkArguments = (
  args: ReadonlyArray<string>,
  names: OptionNames,
  stdinIsTTY: boolean
): Option.Option<UsageError> => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--") break
    const option = optionOf(arg)
    if (option === undefined) continue
    if (!names.known.has(option)) {
      return Option.some(
        new UsageError({
          detail: `unknown option ${
            JSON.stringify(option)
          }; see 'design-search --help' (a query that begins with - goes after --)`
        })
      )
    }
    if (arg === "--wizard" && !stdinIsTTY) {
      return Option.some(new UsageError({ detail: "--wizard asks its questions on a terminal, and stdin is not one" }))
    }
    if (!names.valued.has(arg)) continue
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

/**
 * `args` (checked by `checkArguments`) as @effect/cli reads them: with `--help` or `-h` before `--`,
 * the help of the command named (`search --json --help` is `search --help`); otherwise each
 * `--name=VALUE` of a repeated option split into `--name VALUE`, and `--env VALUE` joined into
 * `--env=VALUE` (the parser splits the arguments at the first word that names a subcommand, so
 * `--env sandbox search x` would otherwise run `sandbox`), and `--no-token-cache` moved first (once).
 */
export const rewriteArguments = (
  args: ReadonlyArray<string>,
  names: OptionNames,
  commands: ReadonlyArray<string>,
  environments: ReadonlyArray<string>
): ReadonlyArray<string> => {
  const end = args.indexOf("--")
  const options = end === -1 ? args : args.slice(0, end)
  const out: Array<string> = []
  const global: Array<string> = []
  let command: string | undefined
  let help = false
  for (let i = 0; i < options.length; i++) {
    const arg = options[i] ?? ""
    const option = optionOf(arg)
    const next = options[i + 1]
    if (option === undefined) command ??= arg
    if (arg === "--help" || arg === "-h") {
      help = true
    } else if (arg === "--no-token-cache") {
      if (global.length === 0) global.push(arg)
    } else if (option !== undefined && option !== arg && names.repeated.has(option)) {
      out.push(option, arg.slice(option.length + 1))
    } else if (arg === "--env" && next !== undefined && environments.includes(next)) {
      out.push(`--env=${next}`)
      i++
    } else {
      out.push(arg)
      if (names.valued.has(arg) && next !== undefined) out.push(options[++i] ?? "")
    }
  }
  if (help) return command !== undefined && commands.includes(command) ? [command, "--help"] : ["--help"]
  return end === -1 ? [...global, ...out] : [...global, ...out, ...args.slice(end)]
}
