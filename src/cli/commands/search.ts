/**
 * `design-search search <query>`: one quick search, or with criteria instead of a query one advanced
 * search. For people, the count, any server messages (on stderr) and a table of the first hits with
 * status and title; with `--json`, exactly one JSON object `{count, designNumbers, messages}` on
 * stdout and no further requests. What it does is `handlers/search.ts`.
 */
import { Command, Options } from "@effect/cli"
import { envOption } from "../Environment.js"
import { lazily } from "../Handler.js"
import { intInRange, searchConfig } from "../SearchOptions.js"

/** Hits whose details the table shows unless `--limit` says otherwise. */
const defaultLimit = 20

const config = {
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
}

/** What `search` parses its command line to. */
export type SearchCommand = Command.Command.ParseConfig<typeof config>

/** @since 0.1.0 */
export const search = Command.make("search", config, lazily(() => import("../handlers/search.js"))).pipe(
  Command.withDescription("Search designs: the count and the first hits (number, status, title), or --json")
)
