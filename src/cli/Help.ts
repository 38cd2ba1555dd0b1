/**
 * The help of the CLI, from the commands' declarations (`CommandLine.ts`): the list of commands,
 * and each command's usage line, argument and options (each with its description and default)
 * and examples. Plain text that fits a screen.
 */
import type { Command, Field, Fields } from "./CommandLine.js"

const program = "design-search"
const width = 100

/** `words` joined by spaces into lines of at most `width` columns, each after the first indented by `indent`. */
const wrap = (words: ReadonlyArray<string>, indent: number, first = 0): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  let room = width - first
  for (const word of words) {
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line)
      line = ""
      room = width - indent
    }
    line = line === "" ? word : `${line} ${word}`
  }
  return [...lines, line].map((l, i) => (i === 0 ? l : " ".repeat(indent) + l))
}

/** A field as the usage line shows it: `--limit N`, `[--status STATUS]...`, `[QUERY]`. */
const usageOf = (field: Field<unknown>): string => {
  const bare = field._tag === "argument"
    ? field.name
    : field.placeholder === undefined
    ? `--${field.name}`
    : `--${field.name} ${field.placeholder}`
  return field.required ? bare : `[${bare}]${field.repeatable ? "..." : ""}`
}

/** Rows of a two-column list: each name, then its description wrapped beside it. */
const rows = (entries: ReadonlyArray<readonly [string, string]>): Array<string> => {
  const column = Math.min(30, Math.max(...entries.map(([name]) => name.length)) + 4)
  return entries.flatMap(([name, description]) => {
    const left = `  ${name}`
    const words = description.split(" ")
    return left.length + 2 > column
      ? [left, ...wrap(words, column, column).map((l, i) => (i === 0 ? " ".repeat(column) + l : l))]
      : wrap(words, column, column).map((l, i) => (i === 0 ? left.padEnd(column) + l : l))
  })
}

export const commandHelp = <F extends Fields>(command: Command<F>): string => {
  const fields: ReadonlyArray<Field<unknown>> = Object.values(command.fields)
  const head = `Usage: ${program} ${command.name}`
  const usage = wrap([head, ...fields.map(usageOf)], head.length + 1)
  const described = (field: Field<unknown>) =>
    field.byDefault === undefined ? field.description : `${field.description} (default ${field.byDefault})`
  const argument = fields.filter((f) => f._tag === "argument")
  const options = fields.filter((f) => f._tag === "option")
  return [
    ...wrap(`${program} ${command.name}: ${command.summary}`.split(" "), 2),
    "",
    ...usage,
    ...(argument.length === 0
      ? []
      : ["", argument.length === 1 ? "Argument:" : "Arguments:", ...rows(argument.map((f) => [f.name, described(f)]))]),
    "",
    "Options:",
    ...rows([
      ...options.map((f) => [usageOf({ ...f, required: true }), described(f)] as const),
      ["--help, -h", "show this help"]
    ]),
    ...(command.notes === undefined ? [] : ["", ...command.notes]),
    "",
    "Examples:",
    ...command.examples.map((example) => `  ${program} ${example}`)
  ].join("\n")
}

/** The help of the program: its commands, and how to get the help of each. */
export const programHelp = (
  summary: string,
  commands: ReadonlyArray<Command<Fields>>,
  examples: ReadonlyArray<string>
): string =>
  [
    ...wrap(`${program}: ${summary}`.split(" "), 2),
    "",
    `Usage: ${program} <command> [arguments and options]`,
    `       ${program} <command> --help`,
    "",
    "Commands:",
    ...rows(commands.map((c) => [c.name, c.summary])),
    "",
    "Options:",
    ...rows([["--help, -h", "show this help, or a command's with its name"], ["--version", "show the version"]]),
    "",
    "Examples:",
    ...examples.map((example) => `  ${program} ${example}`)
  ].join("\n")
