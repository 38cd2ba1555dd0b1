/**
 * `design-search sync [query] [criteria] --db PATH_OR_URL`: keeps a SQL mirror of the designs of a
 * search current (`DesignMirror`). A path or a `file:` URL is a SQLite file, created when absent; `libsql://`,
 * `http(s)://`, `ws(s)://` a libSQL server; `postgres://`, `postgresql://` PostgreSQL. The first run
 * fetches every design, later runs only those changed since the last. What it does is
 * `handlers/sync.ts`.
 */
import { Command, Options } from "@effect/cli"
import { envOption } from "../Environment.js"
import { lazily } from "../Handler.js"
import { rateOption } from "../Pacing.js"
import { intInRange, searchConfig } from "../SearchOptions.js"

const defaultConcurrency = 4

const config = {
  ...searchConfig,
  db: Options.text("db").pipe(
    Options.withPseudoName("path-or-url"),
    Options.withDescription(
      "the mirror: a SQLite file (a path or file: URL, created when absent), or a libsql://, http(s):// or postgres:// URL"
    )
  ),
  concurrency: intInRange("concurrency", 1, 64).pipe(
    Options.withDescription(`how many requests are made at once (default ${defaultConcurrency})`),
    Options.withDefault(defaultConcurrency)
  ),
  rate: rateOption,
  env: envOption
}

/** What `sync` parses its command line to. */
export type SyncCommand = Command.Command.ParseConfig<typeof config>

/** @since 0.3.0 */
export const sync = Command.make("sync", config, lazily(() => import("../handlers/sync.js"))).pipe(
  Command.withDescription(
    "Keep a SQL mirror (SQLite or PostgreSQL) of every design of a query or criteria: all at first, then only changes"
  )
)
