/** The mirror's sync (SQLite, which only the Effect 3 edition has) under a matched fault: its third page failed. */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DesignMirror from "../src/DesignMirror.js"
import { Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"

describe("the mirror's sync, its third page failed", () => {
  it.scoped("keeps the first two pages, fails with the page's error, and the next run goes on from the third", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 11, 1, 9))
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "mirror-fault-"))),
        (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
      )
      const context = yield* Layer.build(
        DesignMirror.layer().pipe(
          Layer.provideMerge(DesignMirror.layerSqlite({ url: `file:${join(dir, "mirror.db")}` })),
          Layer.provideMerge(clientLayer({ sandbox: { designs: 240 } }))
        )
      )
      const mirror = Context.get(context, DesignMirror.DesignMirror)
      const control = Context.get(context, Sandbox.SandboxControl)
      const everything = {
        rows: [{ op: "AND" as const, query: { date: { type: "FILING" as const, from: "1900-01-01" } } }]
      }

      // Pages are numbered from 0: the third is pageNumber 2. A 400 is not retried.
      yield* control.injectFault({ target: "page", status: 400, match: { pageNumber: 2 } })
      const failed = yield* Effect.flip(mirror.sync(everything, { concurrency: 1 }))
      expect(failed._tag).toBe("BadRequestError")
      const pages = (yield* control.requests({ target: "page" })).entries
      expect(pages.map((e) => [(e.body as { pageNumber: number }).pageNumber, e.status])).toEqual([[0, 200], [1, 200], [
        2,
        400
      ]])
      yield* control.expectRequest({ target: "page", pageNumber: 2, body: { pageSize: 100 } })

      const resumed = yield* mirror.sync(everything, { concurrency: 1 })
      expect(resumed).toMatchObject({ resumed: true, full: true, inserted: 40 })
      const again = (yield* control.requests({ target: "page" })).entries.slice(pages.length)
      expect(again.map((e) => [(e.body as { pageNumber: number }).pageNumber, e.status])).toEqual([[2, 200]])
    }))
})
