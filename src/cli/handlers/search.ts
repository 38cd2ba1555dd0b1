/** `design-search search`: the search, then for people a table of the first hits with status and title. */
import { Array as Arr, Effect } from "effect"
import { DesignSearchClient } from "../../index.js"
import type { Designs } from "../../index.js"
import { provideClient } from "../Client.js"
import type { SearchInput } from "../Inputs.js"
import * as Output from "../Output.js"
import { messageLines, toSearch } from "../Search.js"

/** The table's rows of `numbers`: number, status and title, fetched eight at a time. */
const rows = (client: DesignSearchClient.Service, numbers: ReadonlyArray<Designs.DesignNumber>) =>
  Effect.forEach(numbers, (n) =>
    client.getDesign(n).pipe(
      Effect.map(({ data }) => [data.number, data.status ?? "", data.title ?? ""].map(Output.field)),
      // A design withdrawn between the search and this request still gets its row.
      Effect.catchTag("NotFoundError", () => Effect.succeed([n, "(not found)", ""]))
    ), { concurrency: 8 })

export const handle = (args: SearchInput) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const search = toSearch(args)
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
      // Ten to a line.
      lines.push(...Arr.chunksOf(data.designNumbers.map(Output.field), 10).map((row) => row.join(" ")))
    } else {
      const shown = data.designNumbers.slice(0, args.limit)
      lines.push(Output.table(["NUMBER", "STATUS", "TITLE"], yield* rows(client, shown)))
      const rest = data.designNumbers.length - shown.length
      if (rest > 0) lines.push(`… and ${rest} more: --limit shows more, --limit 0 lists every number, --json too`)
    }
    if (data.count > data.designNumbers.length) {
      lines.push(
        `(the service listed ${data.designNumbers.length} of ${data.count}; narrow the search to see the rest)`
      )
    }
    yield* Output.stdout(lines.join("\n"))
  }).pipe(provideClient(args))
