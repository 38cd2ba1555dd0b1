/**
 * `design-search changes`: `DesignMirror.changes` of the database `--db` names, newest first, a line
 * a change for people or a JSON object a change for programs. Nothing to show is one line on stderr
 * (nothing with `--json`). The mirror is opened read-only: a file this process may not write is read.
 */
import { DateTime, Effect, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as DesignMirror from "../../DesignMirror.js"
import type { ChangesInput } from "../Inputs.js"
import * as Output from "../Output.js"
import { databaseOf } from "./sync.js"

/** Longest a value is shown in a line; the JSON output has it whole. */
const room = 60

/** A value of the record, short: a text as is, a list by its items' names (or codes), `-` for none. */
const short = (value: unknown): string => {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return "-"
  const text = typeof value === "string"
    ? value
    : Array.isArray(value)
    ? value.map((item: unknown) =>
      typeof item === "object" && item !== null
        ? short("name" in item ? item.name : "code" in item ? item.code : JSON.stringify(item))
        : short(item)
    ).join(", ")
    : JSON.stringify(value)
  return text.length > room ? `${text.slice(0, room - 1)}…` : text
}

const told: Record<DesignMirror.ChangeKind, string> = {
  new: "new",
  changed: "changed",
  no_longer_matching: "no longer matching",
  not_found: "not found",
  matching_again: "matching again"
}

/** A change as a line for people: `2026-11-25  201912345  status FILED → REGISTERED`. */
export const changeLine = (change: DesignMirror.Change): string => {
  const fields = Object.entries(change.fields).map(([name, { new: after, old }]) =>
    `${name} ${short(old)} → ${short(after)}`
  )
  const what = change.kind === "changed" && fields.length > 0 ? fields.join("; ") : told[change.kind]
  return Output.field(`${change.syncedAt.slice(0, 10)}  ${change.number}  ${what}`)
}

export const handle = (args: ChangesInput) =>
  Effect.gen(function*() {
    const database = yield* databaseOf(args.db, "read")
    if (database.file !== undefined && !fs.existsSync(database.file)) {
      return yield* new DesignMirror.MirrorDatabaseError({ detail: `not a mirror: ${database.label} does not exist` })
    }
    const now = yield* DateTime.now
    const since = Option.map(args.since, (at) => at(now))
    const shown = yield* DesignMirror.changes({
      since: Option.getOrUndefined(since),
      kind: Option.getOrUndefined(args.kind)
    }).pipe(
      Stream.runFoldEffect(
        0,
        (n, change) => Effect.as(args.json ? Output.json(change) : Output.stdout(changeLine(change)), n + 1)
      ),
      Effect.provide(database.layer)
    )
    if (shown > 0 || args.json) return
    const kind = Option.match(args.kind, { onNone: () => "", onSome: (kind) => ` of kind ${kind}` })
    const when = Option.match(since, {
      onNone: () => "by the last sync",
      onSome: (at) => `since ${DateTime.formatIso(at)}`
    })
    yield* Output.stderr(
      kind === "" && Option.isNone(since) ? "the last sync changed nothing" : `no changes${kind} ${when}`
    )
  })
