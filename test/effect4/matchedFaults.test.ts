/**
 * The Effect 4 edition's matched faults: `after`, `match` (path, design number, page number, fields
 * of the body) and `times`, applied in injection order, seeing a request as it arrived, with the
 * journal naming the fault that answered.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as DesignSearchConfig from "../../src/effect4/DesignSearchConfig.js"
import * as Sandbox from "../../src/effect4/Sandbox.js"
import { call, withSandbox } from "./support/rawSandbox.js"

const { bottle, chair, wristWatch } = Sandbox.fixedNumbers
const byOwner = (name: string) => ({ rows: [{ op: "AND", query: { owner: name } }] })

describe("matched faults", () => {
  it.effect("match on a path, a design number, a body field; faults apply in injection order; the journal names which answered", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const { control } = sandbox
        yield* control.injectFault({ target: "design", status: 404, match: { designNumber: bottle } })
        yield* control.injectFault({
          target: "any",
          status: 403,
          match: { path: `${DesignSearchConfig.apiPath}/design/${chair}` }
        })
        yield* control.injectFault({
          target: "advanced",
          status: 400,
          match: { body: { "rows[0].query.owner": "Nobody" } }
        })
        const statuses = (requests: ReadonlyArray<readonly [string, unknown?]>) =>
          Effect.forEach(requests, ([path, body]) => Effect.map(call(client, path, body), (r) => r.status))
        const requests = [
          [`/design/${wristWatch}`],
          [`/design/${chair}`],
          [`/design/${bottle}`],
          ["/search/advanced", byOwner("ltd")],
          ["/search/advanced", byOwner("Nobody")]
        ] as const
        expect(yield* statuses(requests)).toEqual([200, 403, 404, 200, 400])
        const { entries } = yield* control.requests({ target: "any" })
        expect(entries.filter((e) => e.target !== "token").map((e) => [e.status, e.fault?.index])).toEqual([
          [200, undefined],
          [403, 1],
          [404, 0],
          [200, undefined],
          [400, 2]
        ])
        // Each fault was spent: the same requests pass now.
        expect(yield* statuses(requests)).toEqual([200, 200, 200, 200, 200])
      })
    ))

  it.effect("after lets that many matching requests through; times is count; the first fault that applies answers", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const { control } = sandbox
        yield* control.injectFault({
          target: "design",
          status: 400,
          after: 2,
          times: 2,
          count: 5,
          match: { designNumber: chair }
        })
        yield* control.injectFault({ target: "design", status: 403, count: 1 })
        const got = yield* Effect.forEach(
          [chair, chair, bottle, chair, chair, chair],
          (n) => Effect.map(call(client, `/design/${n}`), (r) => r.status)
        )
        expect(got).toEqual([403, 200, 200, 400, 400, 200])
        const answered = (yield* control.requests({ target: "design" })).entries.map((e) => e.fault?.index ?? null)
        expect(answered).toEqual([1, null, null, 0, 0, null])
        expect((yield* control.requests({ designNumber: bottle })).entries).toHaveLength(1)
      })
    ))

  it.effect("a page number matches the page asked for; with target any, a field names its own requests only", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        yield* sandbox.control.injectFault({ target: "any", status: 503, match: { pageNumber: 2 } })
        expect((yield* call(client, `/design/${chair}`)).status).toBe(200)
        const page = (pageNumber: number) =>
          Effect.map(call(client, "/page/advanced", { ...byOwner("ltd"), pageNumber, pageSize: 1 }), (r) => r.status)
        expect([yield* page(0), yield* page(2), yield* page(2)]).toEqual([200, 503, 200])
        const entry = yield* sandbox.control.expectRequest({ target: "page", pageNumber: 2, body: { pageSize: 1 } })
        expect(entry).toMatchObject({ status: 200 })
      })
    ))

  it.effect("a body field named like a credential matches its value as sent; the journal keeps it [redacted]", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        yield* sandbox.control.injectFault({ target: "search", status: 503, match: { body: { pageToken: "abc" } } })
        expect((yield* call(client, "/search/quick", { query: "chair", pageToken: "other" })).status).toBe(200)
        expect((yield* call(client, "/search/quick", { query: "chair", pageToken: "abc" })).status).toBe(503)
        const last = (yield* sandbox.control.requests({ target: "search" })).entries.at(-1)
        expect(last).toMatchObject({
          status: 503,
          fault: { index: 0 },
          body: { query: "chair", pageToken: "[redacted]" }
        })
      })
    ))
})
