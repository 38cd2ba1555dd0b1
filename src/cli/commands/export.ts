/**
 * `design-search export <query> --out FILE`: every hit of one quick search with its full record,
 * one JSON object per line; with criteria instead of a query, every design of one advanced search,
 * read a page of 100 at a time (one request per design where the paged search is refused). Designs
 * already in FILE are skipped, so an interrupted or failed export is resumed by running it again.
 * What it does is `handlers/export.ts`.
 */
import { Command, Options } from "@effect/cli"
import { envOption } from "../Environment.js"
import { lazily } from "../Handler.js"
import { rateOption } from "../Pacing.js"
import { intInRange, searchConfig } from "../SearchOptions.js"

const defaultConcurrency = 8

const config = {
  ...searchConfig,
  // Checked when it is opened, where a bad path is a FileError in the CLI's words (@effect/cli's
  // own file check reports some paths, such as one below a file, as a defect).
  out: Options.text("out").pipe(
    Options.withPseudoName("file"),
    Options.withDescription("the JSONL file to write; designs already in it are skipped")
  ),
  concurrency: intInRange("concurrency", 1, 64).pipe(
    Options.withDescription(`how many designs are fetched at once (default ${defaultConcurrency})`),
    Options.withDefault(defaultConcurrency)
  ),
  rate: rateOption,
  env: envOption
}

/** What `export` parses its command line to. */
export type ExportCommand = Command.Command.ParseConfig<typeof config>

/** @since 0.1.0 */
export const exportDesigns = Command.make("export", config, lazily(() => import("../handlers/export.js"))).pipe(
  Command.withDescription(
    "Write every hit (of a query, or of criteria) with its full record to a JSONL file; run again to resume"
  )
)
