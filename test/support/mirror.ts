/**
 * What the mirror's tests share: a fresh database of each engine (a SQLite file in a temporary
 * folder, or a database on the test file's PostgreSQL server), the in-process sandbox behind the
 * client, time on the `TestClock`, and readers of the rows and of the requests made.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Either, Layer, TestClock } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DesignMirror from "../../src/DesignMirror.js"
import type { Designs } from "../../src/index.js"
import { DesignSearchClient, Sandbox } from "../../src/index.js"
import { clientLayer } from "./layers.js"
import * as Pg from "./postgres.js"

export const designs = 240
/** Every design of the sandbox: 3 pages of 100. */
export const everything: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
}
export const dec1 = Date.UTC(2026, 11, 1, 9)
export const day = 86_400_000

export type Engine = "sqlite" | "postgres"
let databases = 0

/** A `SqlClient` on a new empty database of `engine`, for the rest of the scope. */
export const database = (engine: Engine) =>
  Effect.gen(function*() {
    if (engine === "sqlite") {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "mirror-test-"))),
        (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
      )
      return DesignMirror.layerSqlite({ url: `file:${join(dir, "mirror.db")}` })
    }
    const server = yield* Pg.Postgres
    const url = yield* server.database(`mirror_${process.pid}_${++databases}`)
    return DesignMirror.layerPostgres({ url })
  })

export interface Row {
  readonly number: string
  /** The record as the engine writes it back (PostgreSQL's JSONB orders keys its own way). */
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

/** What a test changes of the sandbox, and of the client the mirror is given (not the test's own). */
export interface Setup {
  readonly sandbox?: Sandbox.Options
  readonly wrap?: (client: DesignSearchClient.Service) => DesignSearchClient.Service
}

/** Runs `test` on a fresh sandbox and a fresh database of `engine`, the clock at 1 December 2026. */
export const onEngine = <A, E>(
  engine: Engine,
  test: Effect.Effect<
    A,
    E,
    DesignMirror.DesignMirror | SqlClient.SqlClient | DesignSearchClient.DesignSearchClient | Sandbox.SandboxControl
  >,
  setup: Setup = {}
) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(dec1)
    const sql = yield* database(engine)
    const deps = Layer.merge(sql, clientLayer({ sandbox: { designs, ...setup.sandbox } }))
    const { wrap } = setup
    const mirror = wrap === undefined ? DesignMirror.layer() : Layer.unwrapEffect(
      Effect.map(DesignSearchClient.DesignSearchClient, (client) =>
        DesignMirror.layer().pipe(Layer.provide(Layer.succeed(DesignSearchClient.DesignSearchClient, wrap(client)))))
    )
    return yield* Effect.provide(test, mirror.pipe(Layer.provideMerge(deps)))
  }).pipe(Effect.scoped)

export const syncStates = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{ criteria_key: string; watermark: string | null; run_day: string | null }>`SELECT * FROM design_sync_state`
)

export const record = (n: string) =>
  Effect.flatMap(
    DesignSearchClient.DesignSearchClient,
    (c) => Effect.map(c.getDesign(n), (r) => Either.getOrThrow(DesignMirror.recordOf(r.data)))
  )
