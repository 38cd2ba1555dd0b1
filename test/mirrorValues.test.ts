/**
 * The values of a record as the mirror stores them, on both engines: NUL (U+0000), which
 * PostgreSQL's text and JSONB cannot hold, is stored as U+FFFD in every string of the record, its
 * typed columns and its parties, and the comparison of records agrees with what was stored.
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { TestClock } from "#test-edition/support/seam"
import { expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as DesignMirror from "../src/DesignMirror.js"
import type { DesignSearchClient } from "../src/index.js"
import { Sandbox } from "../src/index.js"
import { changesOf, day, designs, engines, everything, onEngine } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

/** A client whose first design received (its `target`) carries NUL in a typed field, an owner, and an unknown field and its name. */
const withNul = () => {
  const injected = { target: "" }
  const wrap = (client: DesignSearchClient.Service): DesignSearchClient.Service => ({
    ...client,
    advancedDesigns: (request, options) =>
      Stream.map(client.advancedDesigns(request, options), (design) => {
        injected.target ||= design.number
        return design.number !== injected.target ? design : {
          ...design,
          title: "nul\u0000here",
          owners: [{ name: "Acme\u0000 Ltd" }],
          remark: "a\u0000b \\u0000",
          "odd\u0000name": 1
        }
      })
  })
  return { injected, wrap }
}

layer(Pg.layer, { timeout: "120 seconds" })("DesignMirror's values", (it) => {
  for (const engine of engines) {
    it.effect(`${engine}: NUL in any string of a record is stored as U+FFFD, and a record seen again is unchanged`, () =>
      Effect.gen(function*() {
        const { injected, wrap } = withNul()
        yield* onEngine(engine, { wrap })(Effect.gen(function*() {
          const mirror = yield* DesignMirror.DesignMirror
          const sql = yield* SqlClient.SqlClient
          const control = yield* Sandbox.SandboxControl
          expect(yield* mirror.sync(everything)).toMatchObject({ inserted: designs })
          const target = injected.target
          const [row] = yield* sql<{ readonly title: string; readonly record: string }>`SELECT title,
  CAST(record AS TEXT) AS record FROM designs WHERE number = ${target}`
          expect(row!.title).toBe("nul\ufffdhere")
          expect(JSON.parse(row!.record)).toMatchObject({
            title: "nul\ufffdhere",
            remark: "a\ufffdb \\u0000",
            "odd\ufffdname": 1,
            owners: [{ name: "Acme\ufffd Ltd" }]
          })
          const owners = yield* sql<
            { readonly name: string }
          >`SELECT name FROM design_owners WHERE number = ${target}`
          expect(owners).toEqual([{ name: "Acme\ufffd Ltd" }])

          // Received again with its NUL, only what the service changed differs.
          yield* TestClock.adjust(day)
          yield* control.touch([target])
          expect(yield* mirror.sync(everything)).toMatchObject({ updated: 1 })
          const changes = yield* changesOf()
          expect(changes.map((c) => [c.number, c.kind, Object.keys(c.fields)])).toEqual([
            [target, "changed", ["lastChanged"]]
          ])

          // Criteria holding NUL cannot be stored: refused before anything is sent.
          const refused = yield* Effect.flip(mirror.sync({ query: "chair\u0000" }))
          expect(refused).toMatchObject({ _tag: "ValidationError", origin: "client" })
          expect(refused.message).toMatch(/NUL/)
        }))
      }))
  }
})
