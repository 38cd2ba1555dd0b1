/**
 * The command line, checked and rewritten before @effect/cli parses it, wherever the parser would
 * guess: it drops a valued option left last, takes `--json` as the value of `--status --json`,
 * searches for an unknown `--bogus`, waits forever for `--wizard` with no terminal, takes `--help`
 * after a flag as the query, and reads a repeated option or `--no-token-cache` in one place only.
 */
import type { Usage } from "@effect/cli/Usage"
import { Option } from "effect"
import { UsageError } from "./failure.js"

/** The options of the command line. */
export interface OptionNames {
  readonly known: Set<string>
  readonly valued: Set<string>
  readonly repeated: Set<string>
}

const collect = (usage: Usage, into: OptionNames, inRepeated: boolean): void => {
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
  const into: OptionNames = {
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

/** The usage error of `args` (after the runtime and the script), if any; a query that begins with `-` goes after `--`. */
export const checkArguments = (
  args: ReadonlyArray<string>,
  names: OptionNames,
  stdinIsTTY: boolean
): Option.Option<UsageError> => {
  const misuse = (detail: string) => Option.some(new UsageError({ detail }))
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--") break
    const option = optionOf(arg)
    if (option === undefined) continue
    if (!names.known.has(option)) {
      const hint = "see 'design-search --help' (a query that begins with - goes after --)"
      return misuse(`unknown option ${JSON.stringify(option)}; ${hint}`)
    }
    if (arg === "--wizard" && !stdinIsTTY) {
      return misuse("--wizard asks its questions on a terminal, and stdin is not one")
    }
    const value = args[i + 1]
    if (!names.valued.has(arg)) continue
    if (value === undefined) return misuse(`${arg} needs a value (write ${arg}=VALUE for a value that begins with --)`)
    if (value.startsWith("--")) {
      return misuse(
        `${arg} needs a value, not the option ${value} (write ${arg}=VALUE for a value that begins with --)`
      )
    }
    i++
  }
  return Option.none()
}

/**
 * `args` (checked by `checkArguments`) as @effect/cli reads them: `--help` before `--` is the help
 * of the command named; `--name=VALUE` of a repeated option is split in two; `--env VALUE` is joined
 * (the parser splits at the first word that names a subcommand: `--env sandbox search x` ran
 * `sandbox`); `--no-token-cache` goes first, once.
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
