/**
 * `design-search search <query>`: one quick search, or with criteria instead of a query one advanced
 * search. For people, the count, any server messages
 * (on stderr) and a table of the first hits with status and title; with `--json`, exactly one JSON
 * object `{count, designNumbers, messages}` on stdout and no further requests.
 */
import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { DesignSearchClient } from "../../index.js"
import type { Designs } from "../../index.js"
import { envOption } from "../Environment.js"
import * as Output from "../Output.js"
import { provideClient } from "../Root.js"
import { intInRange, messageLines, searchConfig, toSearch } from "../SearchOptions.js"

/** Hits whose details the table shows unless `--limit` says otherwise. */
const defaultLimit = 20

const rows = (numbers: ReadonlyArray<Designs.DesignNumber>) =>
  Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (client) =>
      Effect.forEach(numbers, (n) =>
        client.getDesign(n).pipe(
          Effect.map((
            { data }
          ) => [Output.field(data.number), Output.field(data.status ?? ""), Output.field(data.title ?? "")]),
          // A design withdrawn between the search and this request still gets its row.
          Effect.catchTag("NotFoundError", () => Effect.succeed([n, "(not found)", ""]))
        ), { concurrency: 8 })
  )

/** @since 0.1.0 */
export const search = Command.make("search", {
  ...searchConfig,
  json: Options.boolean("json").pipe(
    Options.withDescription("one JSON object {count, designNumbers, messages} on stdout")
  ),
  limit: intInRange("limit", 0, 1000).pipe(
    Options.withDescription(
      `how many hits the table shows with status and title (default ${defaultLimit}; 0 lists numbers only)`
    ),
    Options.withDefault(defaultLimit)
  ),
  env: envOption
}, (args) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const search = yield* toSearch(args)
    const { data, messages } = yield* search._tag === "quick"
      ? client.quickSearch(search.request)
      : client.advancedSearch(search.request)
    if (args.json) {
      return yield* Output.json({ count: data.count, designNumbers: data.designNumbers, messages })
    }
    for (const line of messageLines(messages)) yield* Output.stderr(line)
    const noun = data.count === 1 ? "design matches" : "designs match"
    yield* Output.stdout(`${data.count} ${noun} ${search.label}`)
    if (data.designNumbers.length === 0) return
    const lines: Array<string> = [""]
    if (args.limit === 0) {
      lines.push(...wrap(data.designNumbers.map(Output.field)))
    } else {
      const shown = data.designNumbers.slice(0, args.limit)
      lines.push(Output.table(["NUMBER", "STATUS", "TITLE"], yield* rows(shown)))
      const rest = data.designNumbers.length - shown.length
      if (rest > 0) lines.push(`… and ${rest} more: --limit shows more, --limit 0 lists every number, --json too`)
    }
    if (data.count > data.designNumbers.length) {
      lines.push(
        `(the service listed ${data.designNumbers.length} of ${data.count}; narrow the search to see the rest)`
      )
    }
    yield* Output.stdout(lines.join("\n"))
  }).pipe(provideClient(args.env))).pipe(
    Command.withDescription("Search designs: the count and the first hits (number, status, title), or --json")
  )

/** Design numbers, ten to a line. */
const wrap = (numbers: ReadonlyArray<string>): Array<string> => {
  const lines: Array<string> = []
  for (let i = 0; i < numbers.length; i += 10) lines.push(numbers.slice(i, i + 10).join(" "))
  return lines
}
