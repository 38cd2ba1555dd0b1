/** `design-search watch`: `DesignWatch` over the mirror `--db` names: add, list, remove, run, report. */
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
const watchOf = (args: WatchInput, name: string): DesignWatch.WatchInput => {
  const { classification, designer, number, owner, product, query, status } = args
  const criteria = [owner, designer, product, number, query].some(Option.isSome) || [...status, ...classification][0]
  return {
    name,
    criteria: criteria ? toSearch({ ...args, changedSince: Option.none(), sort: Option.none() }).request : undefined,
    numbers: args.numbers.flatMap((n) => n.split(",")).map((n) => n.trim()).filter((n) => n !== ""),
    expiringWithin: Option.getOrUndefined(args.expiringWithin),
    note: Option.getOrUndefined(args.note)
  }
}

/** The events in the format asked, to `--out` or stdout: text for people through the terminal's escapes, the rest as written. */
const write = (args: WatchInput, told: ReadonlyArray<Told>, title: string) => {
  const text = render(args.format, told, title)
  return Option.match(args.out, {
    onNone: () => (text === "" ? Effect.void : args.format === "text" ? Output.stdout(text) : Output.jsonText(text)),
    onSome: (path) =>
      Effect.try({
        try: () => fs.writeFileSync(path, text === "" ? "" : `${text}\n`),
        catch: (e) =>
          new FileError({ path, detail: `cannot be written: ${e instanceof Error ? e.message : String(e)}` })
      })
  })
}

const act = (args: WatchInput, watch: DesignWatch.Service) =>
  Effect.gen(function*() {
    const name = Option.getOrElse(args.name, () => "")
    switch (args.action) {
      case "add":
        yield* watch.add(watchOf(args, name))
        return yield* Output.stderr(`added the watch ${name}: its first run is its baseline`)
      case "remove":
        return yield* Effect.andThen(watch.remove(name), Output.stderr(`removed ${name}`))
      case "list": {
        const rows = (yield* watch.list).map((w) =>
          [w.name, w.criteria === undefined ? "-" : JSON.stringify(w.criteria), w.numbers.join(",") || "-"]
            .concat([`${w.expiringWithin} days`, w.cursor?.slice(0, 10) ?? "never", w.note ?? ""]).map(Output.field)
        )
        return yield* Output.stdout(Output.table(["NAME", "CRITERIA", "NUMBERS", "EXPIRING", "LAST RUN", "NOTE"], rows))
      }
      case "run": {
        const { requests, syncs, watches } = yield* watch.run(args.names.length === 0 ? undefined : args.names)
        yield* write(args, watches, `Design watch: ${watches.map((w) => w.watch).join(", ")}`)
        const events = Output.counted(watches.reduce((n, w) => n + w.events.length, 0), "event")
        return yield* Output.stderr(
          `ran ${watches.length} watch${watches.length === 1 ? "" : "es"}: ${events}; ` +
            `${Output.counted(syncs, "sync")}, ${Output.counted(requests, "API request")}`
        )
      }
    }
    const now = yield* DateTime.now
    const at = (given: typeof args.since) => Option.getOrUndefined(Option.map(given, (f) => f(now)))
    const events = yield* watch.report(name, { since: at(args.since), until: at(args.until) })
    yield* write(args, [{ watch: name, events }], `Design watch: ${name}`)
    if (events.length === 0) yield* Output.stderr(`no events of the watch ${name} in that range`)
  })

/**
 * `--out` made ready before anything runs: a file that cannot be written, or that is the mirror,
 * is refused before a run commits events no output would show.
 */
const ready = (out: Option.Option<string>, mirror: string | undefined) =>
  Option.match(out, {
    onNone: () => Effect.void,
    onSome: (path) => {
      const refused = (detail: string) => new FileError({ path, detail: `cannot be written: ${detail}` })
      const same = mirror !== undefined && fs.existsSync(path) && fs.existsSync(mirror) &&
        fs.statSync(path).ino === fs.statSync(mirror).ino
      return same ? Effect.fail(refused("it is the mirror's own database")) : Effect.try({
        try: () => fs.closeSync(fs.openSync(path, "a")),
        catch: (e) => refused(e instanceof Error ? e.message : String(e))
      })
    }
  })

export const handle = (args: WatchInput) =>
  Effect.gen(function*() {
    const database = yield* databaseOf(args.db, "write")
    yield* ready(args.out, database.file)
    const counted = yield* budgetFor(Option.none(), args.env)
    const layer = DesignWatch.layer().pipe(Layer.provideMerge(DesignMirror.layer()), Layer.provide(database.layer))
    return yield* Effect.flatMap(DesignWatch.DesignWatch, (watch) => act(args, watch)).pipe(
      Effect.provide(layer),
      provideClient(args),
      Effect.provideService(RequestBudget.RequestBudget, counted.budget)
    )
  })
