/**
 * `design-search watch`: `DesignWatch` over the mirror `--db` names: add, list and remove watches,
 * run them (each event told once, in a format for people or programs), report any range again.
 */
import { DateTime, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as DesignMirror from "../../DesignMirror.js"
import * as DesignWatch from "../../DesignWatch.js"
import { RequestBudget } from "../../index.js"
import { provideClient } from "../Client.js"
import { FileError } from "../failure.js"
import * as Output from "../Output.js"
import { budgetFor } from "../Pacing.js"
import { toSearch } from "../Search.js"
import { render } from "../WatchFormats.js"
import type { Told } from "../WatchFormats.js"
import type { WatchInput } from "../WatchInputs.js"
import { databaseOf } from "./sync.js"

/** The watch `watch add` describes. */
const watchOf = (args: WatchInput): DesignWatch.WatchInput => {
  const { classification, designer, number, owner, product, query, status } = args
  const criteria = [owner, designer, product, number, query].some(Option.isSome) ||
    status.length + classification.length > 0
  const search = toSearch({ ...args, query: args.query, changedSince: Option.none(), sort: Option.none() })
  return {
    name: Option.getOrElse(args.name, () => ""),
    criteria: criteria ? search.request : undefined,
    numbers: args.numbers.flatMap((n) => n.split(",")).map((n) => n.trim()).filter((n) => n !== ""),
    expiringWithin: Option.getOrUndefined(args.expiringWithin),
    note: Option.getOrUndefined(args.note)
  }
}

/** The events in the format asked, to `--out` or stdout. */
const write = (args: WatchInput, told: ReadonlyArray<Told>, title: string) => {
  const text = render(args.format, told, title)
  return Option.match(args.out, {
    // Text for people goes through the terminal's escapes; the other formats are for programs, as written.
    onNone: () =>
      text === "" ? Effect.void : args.format === "text" ? Output.stdout(text) : Effect.sync(() => {
        Output.erase()
        process.stdout.write(`${text}\n`)
      }),
    onSome: (path) =>
      Effect.try({
        try: () => fs.writeFileSync(path, text === "" ? "" : `${text}\n`),
        catch: (e) =>
          new FileError({ path, detail: `cannot be written: ${e instanceof Error ? e.message : String(e)}` })
      })
  })
}

const act = (args: WatchInput) =>
  Effect.gen(function*() {
    const watch = yield* DesignWatch.DesignWatch
    const name = Option.getOrElse(args.name, () => "")
    switch (args.action) {
      case "add": {
        const added = yield* watch.add(watchOf(args))
        return yield* Output.stderr(
          `added the watch ${added.name}: run \`design-search watch run ${added.name}\` for its baseline`
        )
      }
      case "list": {
        const watches = yield* watch.list
        if (watches.length === 0) return yield* Output.stderr("no watches yet: add one with `design-search watch add`")
        return yield* Output.stdout(Output.table(
          ["NAME", "CRITERIA", "NUMBERS", "EXPIRING", "LAST RUN", "NOTE"],
          watches.map((w) =>
            [w.name, w.criteria === undefined ? "-" : JSON.stringify(w.criteria), w.numbers.join(",") || "-"]
              .concat([`${w.expiringWithin} days`, w.cursor?.slice(0, 10) ?? "never", w.note ?? ""])
              .map(Output.field)
          )
        ))
      }
      case "remove":
        yield* watch.remove(name)
        return yield* Output.stderr(`removed the watch ${name} and its events`)
      case "run": {
        const report = yield* watch.run(args.names.length === 0 ? undefined : args.names)
        const events = report.watches.reduce((n, w) => n + w.events.length, 0)
        yield* write(args, report.watches, `Design watch: run of ${report.watches.map((w) => w.watch).join(", ")}`)
        return yield* Output.stderr(
          `ran ${report.watches.length} watch${report.watches.length === 1 ? "" : "es"}: ${
            Output.counted(events, "event")
          }; ` +
            `${Output.counted(report.syncs, "sync")}, ${Output.counted(report.requests, "API request")}`
        )
      }
      default: {
        const now = yield* DateTime.now
        const at = (given: typeof args.since) => Option.getOrUndefined(Option.map(given, (f) => f(now)))
        const events = yield* watch.report(name, { since: at(args.since), until: at(args.until) })
        yield* write(args, [{ watch: name, events }], `Design watch: ${name}`)
        if (events.length === 0 && Option.isNone(args.out)) {
          yield* Output.stderr(`no events of the watch ${name} in that range`)
        }
      }
    }
  })

export const handle = (args: WatchInput) =>
  Effect.gen(function*() {
    const database = yield* databaseOf(args.db, "write")
    const counted = yield* budgetFor(Option.none(), args.env)
    const layer = DesignWatch.layer().pipe(Layer.provideMerge(DesignMirror.layer()), Layer.provide(database.layer))
    return yield* act(args).pipe(
      Effect.provide(layer),
      provideClient(args),
      Effect.provideService(RequestBudget.RequestBudget, counted.budget)
    )
  })
