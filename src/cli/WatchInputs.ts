/**
 * `design-search watch add|list|remove|run|report`, declared: one command whose first argument is
 * the action, its options those of every action, each refused where its action takes none.
 */
import { Either, Option } from "effect"
import type { Command, Fields, Input, Split } from "./CommandLine.js"
import {
  argument,
  check,
  integer,
  oneOf,
  optional,
  repeatable,
  requiredArgument,
  text,
  withDefault
} from "./CommandLine.js"
import { db, searchFields, service, since } from "./Inputs.js"

const actions = ["add", "list", "remove", "run", "report"] as const
export const formats = ["text", "json", "csv", "html"] as const

const { query: _, ...criteria } = searchFields

const declare = <F extends Fields>(command: Command<F>) => command

export const watch = declare({
  name: "watch",
  summary: "saved watches over a SQL mirror: add, list, remove, run (each event told once), report",
  fields: {
    action: requiredArgument("ACTION", `one of ${actions.join(", ")}`),
    name: argument("NAME", "the watch's name; run takes any number of names (default: every watch)"),
    query: optional("query", text, "WORDS", "a quick search the watch follows (add)"),
    ...criteria,
    numbers: repeatable("numbers", text, "N,...", "design numbers the watch follows, a portfolio (add)"),
    expiringWithin: optional(
      "expiring-within",
      integer(0, 3650),
      "DAYS",
      "tell expiries this many days ahead (add; default 90)"
    ),
    note: optional("note", text, "TEXT", "a label or note of the watch (add)"),
    db,
    format: withDefault(
      "format",
      oneOf(formats),
      "FORMAT",
      `the events as ${formats.join(", ")} (run, report)`,
      "text"
    ),
    out: optional("out", text, "FILE", "write the events to FILE, not stdout (run, report)"),
    since: optional(
      "since",
      since,
      "DATE",
      "events at or after this: YYYY-MM-DD, an ISO timestamp, today, yesterday (report)"
    ),
    until: optional("until", since, "DATE", "events before this, as --since (report)"),
    ...service
  },
  notes: ["The first run of a watch is its baseline: it tells how many designs it follows. See docs/watch.md."],
  examples: [
    "watch add chairs --class 06-01 --owner wattle --db designs.db",
    "watch add mine --numbers 201900001,202000002 --expiring-within 180 --db designs.db",
    "watch run --db designs.db --format html --out report.html",
    "watch report chairs --since 2026-11-01 --db designs.db --format csv"
  ]
})

export type WatchInput = Input<typeof watch.fields> & { readonly names: ReadonlyArray<string> }
type Given = Record<string, unknown>

/** Options and the actions that take them. */
const only: ReadonlyArray<readonly [string, ReadonlyArray<string>, ReadonlyArray<string>]> = [
  ["add", ["query", ...Object.keys(criteria), "numbers", "expiringWithin", "note"], []],
  ["run report", ["format", "out"], []],
  ["report", ["since", "until"], []]
]

const given = (value: unknown) =>
  Array.isArray(value) ? value.length > 0 : Option.isOption(value) ? Option.isSome(value) : false

/** Why the input of `action` is refused, if it is. */
const refuse = (action: string, input: Given): string | undefined => {
  if (!(actions as ReadonlyArray<string>).includes(action)) {
    return `\`${action}\` is no action of watch: one of ${actions.join(", ")}`
  }
  const named = Option.isSome(input.name as Option.Option<string>)
  if (action === "list" && named) return "watch list takes no name"
  if (["add", "remove", "report"].includes(action) && !named) return `watch ${action} needs the watch's NAME`
  for (const [takers, keys] of only) {
    const key = keys.find((k) => given(input[k]))
    const option = key === undefined ? undefined : (watch.fields as Fields)[key]?.name
    if (option !== undefined && !takers.split(" ").includes(action)) {
      return `\`--${option}\` is not an option of watch ${action}`
    }
  }
  if (action !== "add") return undefined
  const words = ["owner", "designer", "product", "number"].some((k) => given(input[k]))
  if (given(input.query) && words) return "--query cannot be combined with --owner, --designer, --product or --number"
  const any = ["query", ...Object.keys(criteria), "numbers"].some((k) => given(input[k]))
  return any ? undefined : "a watch needs criteria (--query, --owner, --class, ...), --numbers, or both"
}

/** The input of a `watch` command line (its name taken out), or why it is refused. */
export const checkWatch = (line: Split, all: ReadonlyArray<Command<Fields>>): Either.Either<WatchInput, string> => {
  const [action = "", ...rest] = line.positionals
  const names = action === "run" ? rest : []
  const positionals = action === "run" ? [action, ...rest.slice(0, 1)] : line.positionals
  return Either.flatMap(check(watch, { ...line, positionals }, all), (input) => {
    const refused = refuse(action, input as unknown as Given)
    return refused === undefined ? Either.right({ ...input, names } as WatchInput) : Either.left(refused)
  })
}
