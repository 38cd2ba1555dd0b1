/**
 * `design-search export`: each record, or page of records, is written as soon as it arrives, so
 * FILE holds them whenever the run stops. Requests are paced (`Pacing.ts`) and counted.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Cause, Clock, Effect, Exit, Option, Stream } from "effect"
import { DesignSearchClient, RequestBudget } from "../../index.js"
import type { Designs } from "../../index.js"
import { getEach } from "../../internal/client/paged.js"
import { provideClient } from "../Client.js"
import { designJson } from "../DesignText.js"
import * as ExportFile from "../ExportFile.js"
import type { ExportInput } from "../Inputs.js"
import * as Output from "../Output.js"
import { budgetFor } from "../Pacing.js"
import * as Progress from "../Progress.js"
import { messageLines, toSearch } from "../Search.js"

/** Pages fetched at once in an export by criteria: each is up to 100 designs. */
const pageConcurrency = 4

/** An export under way: where it writes, and what it did, for its summary. */
interface Run {
  readonly args: ExportInput
  readonly file: ExportFile.ExportFile
  readonly progress: Progress.Progress
  readonly requests: () => number
  readonly started: number
  written: number
  already: number
  missing: number
  listed: number | undefined
}

/** Writes the designs not in the file yet, in one write. */
const write = (run: Run) => (designs: Iterable<Designs.Design>) =>
  Effect.suspend(() => {
    const lines: Array<string> = []
    let seen = 0
    for (const design of designs) {
      seen++
      if (run.file.existing.has(design.number)) run.already++
      else lines.push(designJson(design))
    }
    return run.file.append(lines).pipe(
      Effect.zipRight(Effect.sync(() => void (run.written += lines.length))),
      Effect.zipRight(run.progress.advance(seen))
    )
  }).pipe(Effect.uninterruptible)

/** The summary line of an export, however it ended. */
const summary = (run: Run) => <E>(exit: Exit.Exit<void, E>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const seconds = ((now - run.started) / 1000).toFixed(2)
    const missing = run.missing === 0 ? "" : `, ${run.missing} no longer found`
    const calls = Output.counted(run.requests(), "API request")
    const line = Exit.isSuccess(exit)
      ? `exported ${Output.counted(run.written, "design")} to ${run.args.out} in ${seconds}s ` +
        `(${run.already} already there${missing}; ${run.listed ?? 0} listed; ${calls})`
      : `${Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "stopped"}: ` +
        (run.listed === undefined
          ? Output.counted(run.written, "design")
          : `${run.written} of ${run.listed - run.already} designs`) +
        ` written to ` +
        `${run.args.out}${missing} (${calls}); ` +
        (run.file.intact()
          ? "it is valid JSONL, run the same command again to resume"
          : "run the same command again to repair its last line and resume")
    return Effect.zipRight(run.progress.clear, Output.stderr(line))
  })

/**
 * An export of the hits of a quick search: the search, then `getEach` of the numbers not in the
 * file. Each design is written as its request ends, in one step an interruption waits for, so an
 * interrupted export keeps every design it fetched.
 */
const byQuick = (run: Run, request: Designs.QuickSearchRequest) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const { data, messages } = yield* client.quickSearch(request)
    for (const line of messageLines(messages)) yield* Output.stderr(line)
    const listed = [...new Set(data.designNumbers)]
    const todo = listed.filter((n) => !run.file.existing.has(n))
    run.listed = listed.length
    run.already = listed.length - todo.length
    if (todo.length === 0) {
      return yield* Output.stderr(
        listed.length === 1
          ? `nothing to export: the listed design is already in ${run.args.out}`
          : `nothing to export: all ${listed.length} listed designs are already in ${run.args.out}`
      )
    }
    yield* run.progress.setTotal(todo.length)
    const fetchAndWrite = (n: Designs.DesignNumber) =>
      Effect.uninterruptibleMask((restore) =>
        restore(client.getDesign(n)).pipe(
          Effect.flatMap(({ data: design }) => write(run)([design])),
          // Withdrawn between the search and now: not fatal, counted in the summary.
          Effect.catchTag("NotFoundError", () => Effect.sync(() => void run.missing++))
        )
      )
    yield* getEach(Stream.fromIterable(todo), fetchAndWrite, run.args.concurrency).pipe(
      Stream.runDrain,
      Effect.onExit(summary(run))
    )
  })

/** An export of the designs of an advanced search, a page at a time. */
const byCriteria = (run: Run, request: Designs.AdvancedSearchRequest) =>
  Effect.flatMap(DesignSearchClient.DesignSearchClient, (client) =>
    client.advancedDesigns(request, {
      concurrency: pageConcurrency,
      onPage: (page) =>
        Effect.gen(function*() {
          if (run.listed === undefined) {
            run.listed = page.count
            yield* run.progress.setTotal(page.count)
          }
          for (const line of messageLines(page.messages)) yield* Output.stderr(line)
        }),
      onNotFound: () => Effect.sync(() => void run.missing++)
    }).pipe(
      // A page that has arrived is written whole, even if the export is being interrupted.
      Stream.runForEachChunk(write(run)),
      Effect.onExit(summary(run))
    ))

const exportTo = (args: ExportInput, requests: () => number) =>
  Effect.gen(function*() {
    const search = toSearch(args)
    const file = yield* ExportFile.open(args.out)
    if (Option.isSome(file.repaired)) yield* Output.stderr(`design-search: ${file.repaired.value}`)
    const started = yield* Clock.currentTimeMillis
    const progress = yield* Progress.make
    const run: Run = { args, file, progress, requests, started, written: 0, already: 0, missing: 0, listed: undefined }
    return yield* search._tag === "quick" ? byQuick(run, search.request) : byCriteria(run, search.request)
  })

export const handle = (args: ExportInput) =>
  Effect.gen(function*() {
    const counted = yield* budgetFor(args.rate, args.env)
    return yield* exportTo(args, counted.requests).pipe(
      Effect.scoped,
      provideClient(args),
      Effect.provideService(RequestBudget.RequestBudget, counted.budget)
    )
  }).pipe(Effect.provide(NodeFileSystem.layer))
