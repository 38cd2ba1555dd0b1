/**
 * The mirror sharing its database (docs/mirror.md, "Sharing a database"), on the engines the edition
 * has: two syncs at once, a table in the way, and on PostgreSQL tables in a schema of their own beside
 * an application's, whatever the `search_path`, a role that may not make schemas, and first syncs at
 * once. SQLite files in temporary folders, and a real PostgreSQL server on loopback. What only
 * SQLite and the CLI (Effect 3) have is in mirrorSafety.effect3.test.ts.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { forkChild } from "#edition/internal/seam"
import * as PgClient from "@effect/sql-pg/PgClient"
import { expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import * as DesignMirror from "../src/DesignMirror.js"
import type { DesignSearchClient } from "../src/index.js"
import { clientLayer } from "./support/layers.js"
import {
  database,
  databaseUrl,
  designs,
  engines,
  firstRelease,
  mirrorOver,
  mirrorTables,
  postgresAt,
  syncAll,
  tables
} from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

layer(Pg.layer, { timeout: "120 seconds", excludeTestServices: true })("the mirror, sharing its database", (it) => {
  for (const engine of engines) {
    it.effect(`${engine}: a second sync while one runs says another sync is running; the lock goes with the run`, () =>
      Effect.gen(function*() {
        const entered = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        // The first run waits at its first page until the gate opens.
        const held = (client: DesignSearchClient.Service): DesignSearchClient.Service => ({
          ...client,
          advancedDesigns: (request, options) =>
            Stream.unwrap(
              Effect.as(
                Effect.andThen(Deferred.succeed(entered, undefined), Deferred.await(gate)),
                client.advancedDesigns(request, options)
              )
            )
        })
        const context = yield* Layer.build(mirrorOver(yield* database(engine), { wrap: held }))
        const first = yield* forkChild(Effect.provide(syncAll, context))
        yield* Deferred.await(entered)
        const second = yield* Effect.flip(Effect.timeout(Effect.provide(syncAll, context), "10 seconds"))
        expect(second).toMatchObject({ _tag: "MirrorDatabaseError", locked: true })
        expect(second.message).toBe("the mirror's database failed: another sync into this mirror is running")
        yield* Deferred.succeed(gate, undefined)
        expect((yield* Fiber.join(first)).inserted).toBe(designs)
        const third = yield* Effect.provide(syncAll, context)
        expect(third).toMatchObject({ full: false, requests: 2 })
      }).pipe(Effect.scoped))

    it.effect(`${engine}: a table of the mirror's name in the way fails the migration naming it, and leaves nothing behind`, () =>
      Effect.gen(function*() {
        // On PostgreSQL the mirror's own schema is never in the way: name the application's.
        const schema = engine === "sqlite" ? undefined : "public"
        const context = yield* Layer.build(yield* database(engine))
        yield* Context.get(context, SqlClient.SqlClient)`CREATE TABLE designs (id INTEGER PRIMARY KEY, name TEXT)`
        const mirror = DesignMirror.layer({ schema }).pipe(
          Layer.provide(Layer.succeedContext(context)),
          Layer.provide(clientLayer())
        )
        // a failure (a defect would fail the test here)
        const error = yield* Effect.flip(Effect.scoped(Layer.build(mirror)))
        expect(error).toMatchObject({ _tag: "MirrorDatabaseError" })
        expect(error.message).toMatch(/creating the mirror's tables: .*"?designs"? already exists/)
        expect(yield* Effect.provide(tables(schema), context)).toEqual(["designs"])
      }).pipe(Effect.scoped))
  }

  it.effect("postgres: the tables live in design_search beside an application's own, over its SqlClient; a schema of the mirror's own by option", () =>
    Effect.gen(function*() {
      const app = yield* Layer.build(PgClient.layer({ url: Redacted.make(yield* databaseUrl) }))
      const sql = Context.get(app, SqlClient.SqlClient)
      yield* sql`CREATE TABLE designs (id INTEGER PRIMARY KEY, name TEXT)`
      yield* sql`INSERT INTO designs (id, name) VALUES (1, 'the application''s own')`
      const over = (options: DesignMirror.Options) => mirrorOver(Layer.succeedContext(app), { options })

      expect((yield* Effect.provide(syncAll, over({}))).inserted).toBe(designs)
      expect(yield* sql`SELECT * FROM public.designs`).toEqual([{ id: 1, name: "the application's own" }])
      expect(yield* Effect.provide(tables("design_search"), app)).toEqual(mirrorTables)
      expect((yield* Effect.provide(syncAll, over({ schema: "watch" }))).inserted).toBe(designs)
      expect(yield* sql`SELECT count(*)::int AS n FROM watch.designs`).toEqual([{ n: designs }])
    }).pipe(Effect.scoped))

  it.effect("postgres: a mirror of this release stays in its schema, public too, whatever the search_path; another schema's starts empty; only the default takes in the first release's tables", () =>
    Effect.gen(function*() {
      const count = (schema: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*)::int AS n FROM ${sql(schema)}.designs`)
      const check = (sql: ReturnType<typeof postgresAt>, first: string | undefined, second: string) =>
        Effect.gen(function*() {
          yield* Effect.provide(syncAll, mirrorOver(sql, { options: { schema: first } }))
          const next = yield* Effect.provide(syncAll, mirrorOver(sql, { options: { schema: second } }))
          expect(next, second).toMatchObject({ full: true, inserted: designs })
          for (const schema of [first ?? "design_search", second]) {
            expect(yield* Effect.provide(Effect.zip(tables(schema), count(schema)), sql)).toEqual([
              mirrorTables,
              [{ n: designs }]
            ])
          }
        })
      // The search_path docs/mirror.md suggests to analysts: the default mirror's schema first.
      yield* check(postgresAt(yield* databaseUrl), undefined, "team_b")
      // A mirror built in public, then one in another schema, then the default.
      const other = DesignMirror.layerPostgres({ url: yield* databaseUrl })
      yield* check(other, "public", "team_b")
      yield* check(other, "public", "design_search")

      // The first release's tables, in the connection's schema: another schema's mirror leaves them there.
      const old = DesignMirror.layerPostgres({ url: yield* databaseUrl })
      yield* Effect.provide(firstRelease, old)
      const build = (schema?: string) => Effect.scoped(Layer.build(mirrorOver(old, { options: { schema } })))
      yield* build("team_b")
      expect(yield* Effect.provide(tables("public"), old)).toEqual([
        "design_mirror_migrations",
        "design_sync_state",
        "designs"
      ])
      yield* build()
      expect(yield* Effect.provide(tables("public"), old)).toEqual([])
      expect(yield* Effect.provide(tables("design_search"), old)).toEqual(mirrorTables)
    }))

  it.effect("postgres: a role that may not make schemas syncs into one made for it", () =>
    Effect.gen(function*() {
      const url = yield* databaseUrl
      const name = new URL(url).pathname.slice(1)
      yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.all([
            sql`CREATE ROLE ${sql(`${name}_user`)} LOGIN`,
            sql`REVOKE CREATE ON DATABASE ${sql(name)} FROM PUBLIC`,
            sql`CREATE SCHEMA design_search AUTHORIZATION ${sql(`${name}_user`)}`
          ])),
        DesignMirror.layerPostgres({ url })
      )
      const limited = url.replace("postgres@", `${name}_user@`)
      expect((yield* Effect.provide(syncAll, mirrorOver(DesignMirror.layerPostgres({ url: limited })))).inserted)
        .toBe(designs)
    }))

  it.effect("postgres: mirrors built at once on a fresh database all migrate it, once", () =>
    Effect.gen(function*() {
      const url = yield* databaseUrl
      const mirror = mirrorOver(DesignMirror.layerPostgres({ url }))
      yield* Effect.all(Array.from({ length: 4 }, () => Effect.scoped(Layer.build(mirror))), {
        concurrency: "unbounded"
      })
      const migrations = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`SELECT migration_id FROM design_search.design_mirror_migrations`
      ).pipe(Effect.provide(DesignMirror.layerPostgres({ url })))
      expect(migrations).toEqual([{ migration_id: 1 }, { migration_id: 2 }, { migration_id: 3 }])
    }))
})
