/**
 * What `design-search export` does (its command line is `Inputs.exportDesigns`): each record, or page
 * of records, is written as soon as it arrives, so FILE holds them whenever the run stops. Requests
 * are paced (`Pacing.ts`) and counted for the summary.
 */
import { Cause, Clock, Duration, Effect, Either, Exit, Fiber, Mailbox, Option, Stream } from "effect"
import { DesignSearchClient, RequestBudget } from "../../index.js"
import type { ApiError, Designs } from "../../index.js"
import { provideClient } from "../Client.js"
import { designJson } from "../DesignText.js"
import * as ExportFile from "../ExportFile.js"
import type { FileError } from "../failure.js"
import type { ExportInput } from "../Inputs.js"
import { resolveEnv } from "../Inputs.js"
import * as Output from "../Output.js"
import { budgetFor } from "../Pacing.js"
import * as Progress from "../Progress.js"
import { messageLines, toSearch } from "../Search.js"

/** A batch of designs worth a write of its own; after a smaller one the writer waits `batchWait`. */
const fullBatch = 64
const batchWait = Effect.sleep(Duration.millis(5))

/** Pages fetched at once in an export by criteria: each is up to 100 designs. */
const pageConcurrency = 4

/** How a fetch of a design fails the export (a design no longer found does not). */
type GetDesignFailure = Exclude<DesignSearchClient.GetDesignError, ApiError.NotFoundError>

/** How writing fails the export. */
type ExportFailure = ApiError.UnexpectedResponseError | FileError

/** What an export did, for its summary. */
interface Tally {
  written: number
  already: number
  missing: number
  /** How many designs the search listed, once known. */
  listed: number | undefined
}

const exportTo = (args: ExportInput, requests: () => number) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const search = yield* toSearch(args)
    const file = yield* ExportFile.open(args.out)
    if (Option.isSome(file.repaired)) yield* Output.stderr(`design-search: ${file.repaired.value}`)
    const started = yield* Clock.currentTimeMillis
    const tally: Tally = { written: 0, already: 0, missing: 0, listed: undefined }
    const progress = yield* Progress.make(0, yield* Output.stderrIsTTY)

    /**
     * Writes the designs not in the file yet, in one write. A record that cannot be written fails
     * the export once those before it are written.
     */
    const write = (designs: Iterable<Designs.Design>) =>
      Effect.suspend(() => {
        const lines: Array<string> = []
        let unwritable: ApiError.UnexpectedResponseError | undefined
        let seen = 0
        for (const design of designs) {
          seen++
          if (file.existing.has(design.number)) {
            tally.already++
            continue
          }
          const line = designJson(design)
          if (Either.isLeft(line)) {
            unwritable = line.left
            break
          }
          lines.push(line.right)
        }
        return file.append(lines).pipe(
          Effect.zipRight(Effect.sync(() => void (tally.written += lines.length))),
          Effect.zipRight(progress.advance(seen)),
          Effect.zipRight(unwritable === undefined ? Effect.void : Effect.fail(unwritable))
        )
      }).pipe(Effect.uninterruptible)

    const summary = <E>(exit: Exit.Exit<void, E>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const seconds = ((now - started) / 1000).toFixed(2)
        const missing = tally.missing === 0 ? "" : `, ${tally.missing} no longer found`
        const calls = `${requests()} API ${requests() === 1 ? "request" : "requests"}`
        const line = Exit.isSuccess(exit)
          ? `exported ${tally.written} designs to ${args.out} in ${seconds}s ` +
            `(${tally.already} already there${missing}; ${tally.listed ?? 0} listed; ${calls})`
          : `${Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "stopped"}: ` +
            `${tally.written}${
              tally.listed === undefined ? "" : ` of ${tally.listed - tally.already}`
            } designs written to ${args.out}${missing} (${calls}); ` +
            (file.intact()
              ? "it is valid JSONL, run the same command again to resume"
              : "run the same command again to repair its last line and resume")
        return Effect.zipRight(progress.clear, Output.stderr(line))
      })

    const byQuick = (request: Designs.QuickSearchRequest) =>
      Effect.gen(function*() {
        const { data, messages } = yield* client.quickSearch(request)
        for (const line of messageLines(messages)) yield* Output.stderr(line)
        const listed = [...new Set(data.designNumbers)]
        const todo = listed.filter((n) => !file.existing.has(n))
        tally.listed = listed.length
        tally.already = listed.length - todo.length
        if (todo.length === 0) {
          return yield* Output.stderr(
            `nothing to export: all ${listed.length} listed designs are already in ${args.out}`
          )
        }
        yield* progress.setTotal(todo.length)
        // The fetches put what arrives in `ready`; this fiber alone writes, every design that has
        // arrived in one write (README, "Where the CPU goes"). A fetch whose record has arrived
        // puts it there even if the export is being interrupted, and all of them are written.
        const ready = yield* Mailbox.make<Designs.Design, GetDesignFailure>()
        const fetchOne = (n: Designs.DesignNumber) =>
          Effect.uninterruptibleMask((restore) =>
            restore(client.getDesign(n)).pipe(
              Effect.map(({ data: design }) => void ready.unsafeOffer(design)),
              // Withdrawn between the search and now: not fatal, counted in the summary.
              Effect.catchTag("NotFoundError", () => Effect.sync(() => void tally.missing++))
            )
          )
        // `concurrency` workers take the numbers in turn: no fiber per design.
        let next = 0
        const worker = Effect.whileLoop({
          while: () => next < todo.length,
          body: () => fetchOne(todo[next++]!),
          step: () => {}
        })
        const fetching = yield* Effect.fork(
          Effect.all(Array.from({ length: Math.min(args.concurrency, todo.length) }, () => worker), {
            concurrency: "unbounded",
            discard: true
          }).pipe(Effect.onExit((exit) => ready.done(Exit.asVoid(exit))))
        )
        // After a small batch the writer lets more arrive first: a write costs the core about as
        // much as a design request, and one write a design made the file the export's bottleneck.
        const writeAll: Effect.Effect<void, GetDesignFailure | ExportFailure> = Effect.flatMap(
          ready.takeAll,
          ([designs, done]) =>
            Effect.zipRight(
              write(designs),
              done ? Effect.void : designs.length >= fullBatch ? writeAll : Effect.zipRight(batchWait, writeAll)
            )
        )
        // Interrupted, the fetches stop first; what they had put in `ready` is written still.
        const rest = Effect.zipRight(Fiber.interrupt(fetching), Effect.flatMap(ready.clear, write))
        yield* writeAll.pipe(
          Effect.onInterrupt(() => Effect.ignore(rest)),
          Effect.onExit(summary)
        )
      })

    const byCriteria = (request: Designs.AdvancedSearchRequest) =>
      client.advancedDesigns(request, {
        concurrency: pageConcurrency,
        onPage: (page) =>
          Effect.gen(function*() {
            if (tally.listed === undefined) {
              tally.listed = page.count
              yield* progress.setTotal(page.count)
            }
            for (const line of messageLines(page.messages)) yield* Output.stderr(line)
          }),
        onNotFound: () => Effect.sync(() => void tally.missing++)
      }).pipe(
        // A page that has arrived is written whole, even if the export is being interrupted.
        Stream.runForEachChunk(write),
        Effect.onExit(summary)
      )

    return yield* search._tag === "quick" ? byQuick(search.request) : byCriteria(search.request)
  })

/** Runs `export` (`Inputs.exportDesigns`). */
export const handle = (args: ExportInput) =>
  Effect.gen(function*() {
    const counted = yield* budgetFor(args.rate, yield* resolveEnv(args.env))
    return yield* exportTo(args, counted.requests).pipe(
      Effect.scoped,
      provideClient(args.env),
      Effect.provideService(RequestBudget.RequestBudget, counted.budget)
    )
  })
