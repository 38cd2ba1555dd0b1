/**
 * `design-search sync`: `DesignMirror.sync` into the database `--db` names, a page committed at a
 * time, so an interrupted run leaves it consistent and the same command goes on from there.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import { Cause, Clock, Effect, Exit, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as DesignMirror from "../../DesignMirror.js"
import { DesignSearchClient, RequestBudget } from "../../index.js"
import { provideClient } from "../Client.js"
import { FileError, UsageError } from "../failure.js"
import type { SyncInput } from "../Inputs.js"
import * as Output from "../Output.js"
import { budgetFor } from "../Pacing.js"
import * as Progress from "../Progress.js"
import { toSearch } from "../Search.js"

/** The database `--db` names, and how to name it to people (a URL without its user or password). */
interface Database {
  readonly layer: Layer.Layer<SqlClient, DesignMirror.SqlDriverMissingError | DesignMirror.MirrorDatabaseError>
  readonly label: string
  /** The local SQLite file, which opening it creates if absent. */
  readonly file?: string
}

const badDb = (detail: string) =>
  new UsageError({
    detail: `--db ${detail}: give a file path or file: URL, or a libsql://, http(s):// or postgres:// URL`
  })

/**
 * The database of a `--db` value, or the usage error of why it names none, for a command that reads
 * it (a SQLite file opened read-only) or writes it. Every command opening one silences here a
 * driver's warnings (PostgreSQL's about `sslmode`, say): they are for its own users.
 */
export const databaseOf = (value: string, access: Access): Effect.Effect<Database, UsageError | FileError> =>
  Effect.suspend(() => {
    process.removeAllListeners("warning")
    if (value.trim() === "") return Effect.fail(badDb("is empty"))
    // A file: URL names a SQLite file, as libSQL reads it: file:x.db relative, file:/x.db and file:///x.db absolute.
    if (/^file:/i.test(value)) {
      const rest = value.slice("file:".length)
      const file = rest.startsWith("//")
        ? Option.getOrUndefined(Option.liftThrowable(() => fileURLToPath(new URL(value)))())
        : rest
      if (file === undefined) return Effect.fail(badDb(`is not a local file URL`))
      if (file === "" || file.endsWith("/")) return Effect.fail(badDb(`${value} names no file`))
      return sqliteFile(value, file, access)
    }
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase()
    if (scheme !== undefined) {
      const url = Option.getOrUndefined(Option.liftThrowable(() => new URL(value))())
      if (url === undefined) return Effect.fail(badDb(`is not a URL (${scheme}://…)`))
      const label = `${url.protocol}//${url.host}${url.pathname}`
      if (scheme === "postgres" || scheme === "postgresql") {
        return Effect.succeed({ layer: DesignMirror.layerPostgres({ url: value }), label })
      }
      return ["libsql", "http", "https", "ws", "wss"].includes(scheme)
        ? Effect.succeed({ layer: DesignMirror.layerSqlite({ url: value }), label })
        : Effect.fail(badDb(`names no database this command knows (${scheme}://)`))
    }
    return sqliteFile(value, value, access)
  })

type Access = "read" | "write"

/** Whether this process may write `file`. */
const writable = (file: string) => Option.isSome(Option.liftThrowable(() => fs.accessSync(file, fs.constants.W_OK))())

/**
 * The SQLite file at `given` (a path, relative to the working folder or absolute), `value` as `--db`
 * said it. A sync writes the file and, beside it, its `-wal`, `-shm` and `-lock` files.
 */
const sqliteFile = (value: string, given: string, access: Access): Effect.Effect<Database, UsageError | FileError> => {
  const file = path.resolve(given)
  const stat = Option.getOrUndefined(Option.liftThrowable(() => fs.statSync(file))())
  if (stat !== undefined && !stat.isFile()) return Effect.fail(badDb(`${value} is not a regular file`))
  const folder = path.dirname(file)
  if (!fs.existsSync(folder)) return Effect.fail(badDb(`${value}: no such directory`))
  if (access === "write" && stat !== undefined && !writable(file)) {
    return Effect.fail(new FileError({ path: value, detail: "permission denied: the file is read-only to this user" }))
  }
  if (access === "write" && !writable(folder)) {
    const detail =
      `permission denied: the folder ${folder} is read-only to this user, and the mirror writes its files there`
    return Effect.fail(new FileError({ path: value, detail }))
  }
  const url = pathToFileURL(file).href
  return Effect.succeed({ layer: DesignMirror.layerSqlite({ url, readOnly: access === "read" }), label: value, file })
}

const syncInto = (args: SyncInput, database: Database, requests: () => number) =>
  Effect.gen(function*() {
    const mirror = yield* DesignMirror.DesignMirror
    // The mirror asks for the designs changed since its last run by itself.
    const search = toSearch({ ...args, changedSince: Option.none() })
    const started = yield* Clock.currentTimeMillis
    const progress = yield* Progress.make
    let committed = 0
    const onProgress = (p: { readonly expected: number; readonly committed: number }) =>
      Effect.suspend(() => {
        const more = Math.max(0, p.committed - committed)
        committed = Math.max(committed, p.committed)
        return Effect.zipRight(progress.setTotal(p.expected), progress.advance(more))
      })
    const seconds = Effect.map(Clock.currentTimeMillis, (now) => ((now - started) / 1000).toFixed(1))
    const calls = () => Output.counted(requests(), "API request")
    const summary = (exit: Exit.Exit<DesignMirror.SyncReport, DesignMirror.SyncError>) =>
      Effect.gen(function*() {
        yield* progress.clear
        if (Exit.isSuccess(exit)) {
          const r = exit.value
          return yield* Output.stderr(
            `synced ${
              Output.counted(r.matching, "design")
            } of ${search.label} into ${database.label} in ${yield* seconds}s ` +
              `(${r.full ? "all" : `changed since ${r.changedSince}`}: ${r.fetched} fetched, ${r.inserted} new, ` +
              `${r.updated} updated, ${r.unchanged} unchanged; ${r.noLongerMatching} no longer matching, ` +
              `${r.notFound} not found; ${calls()}; watermark ${r.watermark})`
          )
        }
        // A run short of designs is told by its error's one line: what it committed, the watermark kept.
        const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
        if (failure instanceof DesignMirror.IncompleteSyncError) return
        const interrupted = Cause.isInterruptedOnly(exit.cause)
        // Running again helps after an interruption, a failure of the service that may pass, or a lock.
        const again = interrupted || (failure?._tag === "MirrorDatabaseError"
          ? failure.locked === true
          : failure !== undefined && DesignSearchClient.isTransient(failure))
        if (!again && committed === 0) return
        return yield* Output.stderr(
          `${interrupted ? "interrupted" : "stopped"}: ${Output.counted(committed, "design")} committed to ` +
            `${database.label} (${calls()}); the database is consistent` +
            (again ? ", run the same command again to go on" : "")
        )
      })
    yield* mirror.sync(search.request, { concurrency: args.concurrency, onProgress }).pipe(Effect.onExit(summary))
  })

export const handle = (args: SyncInput) =>
  Effect.gen(function*() {
    const database = yield* databaseOf(args.db, "write")
    const counted = yield* budgetFor(args.rate, args.env)
    return yield* syncInto(args, database, counted.requests).pipe(
      Effect.provide(DesignMirror.layer().pipe(Layer.provide(database.layer))),
      provideClient(args),
      Effect.provideService(RequestBudget.RequestBudget, counted.budget)
    )
  })
