/**
 * What the Effect 4 mirror's tests share (a port of the PostgreSQL part of test/support/mirror.ts):
 * a fresh database on the test file's PostgreSQL server, the in-process sandbox behind the client,
 * time on the `TestClock`, and readers of the rows and of the requests made.
 */
import { Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as DesignMirror from "../../../src/DesignMirror.js"
import type * as Designs from "../../../src/Designs.js"
import * as DesignSearchClient from "../../../src/DesignSearchClient.js"
import * as Sandbox from "../../../src/Sandbox.js"
import { clientLayer } from "./layers.js"
import * as Pg from "./postgres.js"

export const designs = 240
/** Every design of the sandbox: 3 pages of 100. */
export const everything: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
}
export const dec1 = Date.UTC(2026, 11, 1, 9)
export const day = 86_400_000

let databases = 0

/** The URL of a new empty database on the test file's server. */
export const databaseUrl = Effect.flatMap(
  Pg.Postgres,
  (server) => server.database(`mirror_${process.pid}_${++databases}`)
)

export interface Row {
  readonly number: string
  /** The record as PostgreSQL writes it back (JSONB orders keys its own way). */
  readonly record: string
  readonly last_changed: string | null
  readonly criteria_key: string
  readonly state: string
}

export const rows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<Row>`SELECT number, CAST(record AS TEXT) AS record, CAST(last_changed AS TEXT) AS last_changed, criteria_key,
  state FROM designs ORDER BY number`
)

/** Requests the sandbox has answered on the API (tokens not counted). */
export const apiRequests = Effect.flatMap(
  Sandbox.SandboxControl,
  (c) => Effect.map(c.stats, ({ requests }) => requests.search + requests.advanced + requests.page + requests.design)
)

/** `effect`'s result, and how many API requests the sandbox answered while it ran. */
export const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const before = yield* apiRequests
    const result = yield* effect
    return [result, (yield* apiRequests) - before] as const
  })

/** A `SqlClient` on the database `url`, its statements naming the mirror's tables without their schema. */
const client = (url: string) =>
  DesignMirror.layerPostgres({ url: `${url}?options=-c%20search_path%3Ddesign_search%2Cpublic` })

/** A `SqlClient` on a new empty database. */
export const database = Effect.map(databaseUrl, client)

/**
 * Runs `test` on a fresh sandbox and a fresh database (or the database `url`), the clock at 1
 * December 2026.
 */
export const onPostgres = <A, E>(
  test: Effect.Effect<
    A,
    E,
    DesignMirror.DesignMirror | SqlClient.SqlClient | DesignSearchClient.DesignSearchClient | Sandbox.SandboxControl
  >,
  url?: string
) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(dec1)
    const sql = url === undefined ? yield* database : client(url)
    const deps = Layer.merge(sql, clientLayer({ sandbox: { designs } }))
    return yield* Effect.provide(test, DesignMirror.layer().pipe(Layer.provideMerge(deps)))
  })

/** The repository's root, where the Effect 3 edition's tests run. */
const root = fileURLToPath(new URL("../../..", import.meta.url))

/**
 * The report of a sync of every design of the sandbox into the database `url` by the Effect 3
 * edition, run in a process of its own (test/support/mirrorSync.ts).
 */
export const effect3Sync = (url: string) =>
  Effect.callback<{ readonly criteriaKey: string; readonly watermark: string; readonly fetched: number }, Error>(
    (resume) =>
      void execFile(
        process.execPath,
        ["--import", "tsx", "test/support/mirrorSync.ts", url],
        { cwd: root },
        (error, stdout, stderr) =>
          resume(
            error === null ? Effect.succeed(JSON.parse(stdout)) : Effect.fail(new Error(`${error.message}${stderr}`))
          )
      )
  )

/** The record of `n` as the mirror writes it, from the client's get. */
export const record = (n: string) =>
  Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (c) => Effect.map(c.getDesign(n), (r) => Result.getOrThrow(DesignMirror.recordOf(r.data)))
  )
