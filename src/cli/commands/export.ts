/**
 * `design-search export <query> --out FILE`: every hit of one quick search with its full record,
 * one JSON object per line. Designs already in FILE are skipped, so an interrupted or failed export
 * is resumed by running it again; details are fetched with bounded concurrency and each record is
 * written as soon as it arrives, so FILE holds every record fetched whenever the run stops.
 */
import { Command, Options } from "@effect/cli"
import { Cause, Clock, Effect, Exit, Option } from "effect"
import { DesignSearchClient } from "../../index.js"
import type { Designs } from "../../index.js"
import { designJson } from "../DesignText.js"
import { envOption } from "../Environment.js"
import * as ExportFile from "../ExportFile.js"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import { provideClient } from "../Root.js"
import { intInRange, messageLines, searchConfig, toRequest } from "../SearchOptions.js"

const defaultConcurrency = 8

/** @since 0.1.0 */
export const exportDesigns = Command.make("export", {
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
  env: envOption
}, (args) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const file = yield* ExportFile.open(args.out)
    if (Option.isSome(file.repaired)) yield* Output.stderr(`design-search: ${file.repaired.value}`)
    const { data, messages } = yield* client.quickSearch(toRequest(args))
    for (const line of messageLines(messages)) yield* Output.stderr(line)
    const listed = [...new Set(data.designNumbers)]
    const todo = listed.filter((n) => !file.existing.has(n))
    const already = listed.length - todo.length
    if (todo.length === 0) {
      return yield* Output.stderr(`nothing to export: all ${listed.length} listed designs are already in ${args.out}`)
    }
    const progress = yield* Progress.make(todo.length, yield* Output.stderrIsTTY)
    const started = yield* Clock.currentTimeMillis
    const count = { written: 0, missing: 0 }

    // Once a record has arrived it is written even if the export is being interrupted.
    const fetchOne = (n: Designs.DesignNumber) =>
      Effect.uninterruptibleMask((restore) =>
        restore(client.getDesign(n)).pipe(
          Effect.flatMap(({ data: design }) => designJson(design)),
          Effect.flatMap(file.append),
          Effect.map(() => void count.written++),
          // Withdrawn between the search and now: not fatal, counted in the summary.
          Effect.catchTag("NotFoundError", () => Effect.sync(() => void count.missing++))
        )
      ).pipe(Effect.zipRight(progress.advance))

    const summary = <E>(exit: Exit.Exit<void, E>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const seconds = ((now - started) / 1000).toFixed(1)
        const missing = count.missing === 0 ? "" : `, ${count.missing} no longer found`
        const line = Exit.isSuccess(exit)
          ? `exported ${count.written} designs to ${args.out} in ${seconds}s (${already} already there${missing}; ${listed.length} listed)`
          : `${
            Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "stopped"
          }: ${count.written} of ${todo.length} designs written to ${args.out}${missing}; ` +
            (file.intact()
              ? "it is valid JSONL, run the same command again to resume"
              : "run the same command again to repair its last line and resume")
        return Effect.zipRight(progress.clear, Output.stderr(line))
      })

    yield* Effect.forEach(todo, fetchOne, { concurrency: args.concurrency, discard: true }).pipe(Effect.onExit(summary))
  }).pipe(Effect.scoped, provideClient(args.env))).pipe(
    Command.withDescription("Write every hit with its full record to a JSONL file; run again to resume")
  )
