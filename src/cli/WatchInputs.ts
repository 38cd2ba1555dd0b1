/** `design-search watch ACTION`, declared: its options are those of every action, each refused where its action takes none. */
import { Either, Option } from "effect"
import * as CL from "./CommandLine.js"
import type { Command, Fields, Input, Split } from "./CommandLine.js"
import { db, searchFields, service, since } from "./Inputs.js"

const actions = ["add", "list", "remove", "run", "report"]
const { query: _, ...criteria } = searchFields
const [formats, days] = [["text", "json", "csv", "html"] as const, CL.integer(0, 3650)]

export const watch = {
  name: "watch",
  summary: "saved watches over a SQL mirror: add, list, remove, run (each event told once), report",
  fields: {
    action: CL.requiredArgument("ACTION", `one of ${actions.join(", ")}`),
    name: CL.argument("NAME", "the watch's name; run takes any number of names (default: every watch)"),
    query: CL.optional("query", CL.text, "WORDS", "a quick search the watch follows (add)"),
    ...criteria,
    numbers: CL.repeatable("numbers", CL.text, "N,...", "design numbers the watch follows, a portfolio (add)"),
    expiringWithin: CL.optional("expiring-within", days, "DAYS", "tell expiries this far ahead (add; 90)"),
    note: CL.optional("note", CL.text, "TEXT", "a label or note of the watch (add)"),
    db,
    format: CL.withDefault("format", CL.oneOf(formats), "FORMAT", "of the events (run, report)", "text"),
    out: CL.optional("out", CL.text, "FILE", "write the events to FILE, not stdout (run, report)"),
    since: CL.optional(
      "since",
      since,
      "DATE",
      "events at or after: YYYY-MM-DD, an ISO time, today, yesterday (report)"
    ),
    until: CL.optional("until", since, "DATE", "events before this, as --since (report)"),
    ...service
  },
  notes: ["The first run of a watch is its baseline: it tells how many designs it follows. See docs/watch.md."],
  examples: [
    "watch add chairs --class 06-01 --owner wattle --db designs.db",
    "watch add mine --numbers 201900001,202000002 --expiring-within 180 --db designs.db",
    "watch run --db designs.db --format html --out report.html",
    "watch report chairs --since 2026-11-01 --db designs.db --format csv"
  ]
} satisfies Command<Fields>

export type WatchInput = Input<typeof watch.fields> & { readonly names: ReadonlyArray<string> }

const searches = ["query", ...Object.keys(criteria)]
/** The actions that take each option not every action takes. */
const takers: Record<string, ReadonlyArray<string>> = {
  ...Object.fromEntries([...searches, "numbers", "expiringWithin", "note"].map((k) => [k, ["add"]])),
  ...{ format: ["run", "report"], out: ["run", "report"], since: ["report"], until: ["report"] }
}

/** Why the input of `action` is refused, if it is. */
const refuse = (action: string, input: Record<string, unknown>): string | undefined => {
  const given = (k: string) =>
    Array.isArray(input[k]) ? input[k].length > 0 : Option.isSome(input[k] as Option.Option<unknown>)
  const stray = Object.keys(takers).find((k) => given(k) && !takers[k]?.includes(action))
  if (!actions.includes(action)) return `\`${action}\` is no action of watch: one of ${actions.join(", ")}`
  if (action === "list" && given("name")) return "watch list takes no name"
  if (["add", "remove", "report"].includes(action) && !given("name")) return `watch ${action} needs the watch's NAME`
  if (stray !== undefined) return `\`--${(watch.fields as Fields)[stray]?.name}\` is not an option of watch ${action}`
  if (action !== "add") return undefined
  if (given("query") && ["owner", "designer", "product", "number"].some(given)) {
    return "--query cannot be combined with --owner, --designer, --product or --number"
  }
  return [...searches, "numbers"].some(given)
    ? undefined
    : "a watch needs criteria (--query, --owner, --class, ...), --numbers, or both"
}

/** The input of a `watch` command line (its name taken out), or why it is refused. */
export const checkWatch = (line: Split, all: ReadonlyArray<Command<Fields>>): Either.Either<WatchInput, string> => {
  const [action = "", ...rest] = line.positionals
  const positionals = action === "run" ? [action, ...rest.slice(0, 1)] : line.positionals
  return Either.flatMap(CL.check(watch, { ...line, positionals }, all), (input) => {
    const refused = refuse(action, input as unknown as Record<string, unknown>)
    return refused === undefined
      ? Either.right({ ...input, names: action === "run" ? rest : [] })
      : Either.left(refused)
  })
}
