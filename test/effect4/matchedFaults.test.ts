/**
 * The Effect 4 edition's matched faults: `after`, `match` (path, design number, page number, fields
 * of the body) and `times`, applied in injection order, seeing a request as it arrived, with the
 * journal naming the fault that answered; and the control routes that drive a served sandbox.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import type { HttpClient } from "effect/http"
import * as DesignSearchConfig from "../../src/DesignSearchConfig.js"
import * as Address from "../../src/internal/sandbox/Address.js"
import { withControlRoutes } from "../../src/internal/sandbox/ControlRoutes.js"
import * as Sandbox from "../../src/Sandbox.js"
import { base, call, send, withSandbox } from "./support/rawSandbox.js"

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

describe("the control routes (/__sandbox/*), as a served sandbox answers them", () => {
  /** The sandbox's app behind its control routes, whose own address is 127.0.0.1:8787, and a client to it. */
  const withControl = <A, E>(f: (sandbox: Sandbox.Sandbox, client: HttpClient.HttpClient) => Effect.Effect<A, E>) =>
    withSandbox((sandbox) =>
      f(sandbox, Sandbox.httpClient(withControlRoutes(sandbox.app, sandbox.control, Address.make("127.0.0.1", 8787))))
    )
  const control = (name: string, body?: unknown, headers: Record<string, string> = {}) => {
    const url = `${base}/__sandbox/${name}`
    return body === undefined
      ? HttpClientRequest.get(url, { headers })
      : HttpClientRequest.bodyText(HttpClientRequest.post(url, { headers }), JSON.stringify(body), "application/json")
  }
  const problems = (r: { readonly json?: Record<string, unknown> | undefined }) =>
    (r.json?.["errors"] as ReadonlyArray<{ code: string; detail: string; source: { pointer: string } }>).map((
      e
    ) => [e.source.pointer, e.detail])

  it.effect("POST faults takes a fault as injectFault does, answering it with its defaults; a bad one is a 422 per field", () =>
    withControl((sandbox, client) =>
      Effect.gen(function*() {
        const fault = { target: "design", status: 404, after: 1, times: 1, match: { designNumber: chair } }
        const injected = yield* send(client, control("faults", fault))
        expect([injected.status, injected.json]).toEqual([201, { data: { ...fault, count: 1 } }])
        const got = yield* Effect.forEach([chair, chair], (n) =>
          Effect.map(call(client, `/design/${n}`), (r) => r.status))
        expect(got).toEqual([200, 404])
        const bad = yield* send(
          client,
          control("faults", {
            target: "page",
            status: 500,
            after: -1,
            extra: 1,
            match: { pageNumber: 1.5, body: { "a..b": 1 } }
          })
        )
        expect(bad.status).toBe(422)
        expect(problems(bad)).toEqual([
          ["/extra", "is not a known field"],
          ["/after", "Expected a number between 0 and 1000000, actual -1"],
          ["/match/pageNumber", "Expected an integer, actual 1.5"],
          ["/match/body/a..b", `expected a field path such as rows[0].query.owner, not "a..b"`]
        ])
        const proto = yield* send(
          client,
          control("faults", JSON.parse(`{"target":"search","status":418,"match":{"body":{"__proto__":null}}}`))
        )
        expect(problems(proto)).toEqual([["/match/body/__proto__", "__proto__ is no name a record can keep"]])
        expect((yield* sandbox.control.stats).requests.search).toBe(0)
      })
    ))

  it.effect("GET requests reads the journal by a filter in its query; a bad one is a 422 naming the parameter", () =>
    withControl((sandbox, client) =>
      Effect.gen(function*() {
        yield* call(client, "/search/quick", { query: "chair" })
        const all = yield* send(client, control("requests"))
        expect(all.json).toEqual(JSON.parse(JSON.stringify(yield* sandbox.control.requests())))
        const body = encodeURIComponent(JSON.stringify({ query: "chair" }))
        const found = yield* send(client, control(`requests?target=search&body=${body}`))
        expect(found.json).toMatchObject({ entries: [{ target: "search", body: { query: "chair" } }], dropped: 0 })
        const refusals = [
          ["target=design&pageNumber=1", "/pageNumber", "no design request has a pageNumber"],
          ["pageNumber=first", "/pageNumber", `Unable to decode "first" into a number`],
          ["pageNumber=-2", "/pageNumber", "Expected a non-negative number, actual -2"],
          [`body=${encodeURIComponent(`{"rows[0":1}`)}`, "/body/rows[0", "expected a field path"],
          ["body=notjson", "/body", "is not valid JSON"]
        ] as const
        for (const [query, pointer, says] of refusals) {
          const [problem] = problems(yield* send(client, control(`requests?${query}`)))
          expect(problem?.[0], query).toBe(pointer)
          expect(problem?.[1]).toContain(says)
        }
      })
    ))

  it.effect("stats, touch, revoke-tokens and reset drive the sandbox; a page's Origin, a body not JSON and a wrong method are refused", () =>
    withControl((sandbox, client) =>
      Effect.gen(function*() {
        yield* call(client, `/design/${chair}`)
        const stats = yield* send(client, control("stats"))
        expect(stats.json).toEqual(yield* sandbox.control.stats)
        expect((yield* send(client, control("touch", { numbers: [chair] }))).status).toBe(204)
        const unknown = yield* send(client, control("touch", { numbers: [chair, "999999999"] }))
        expect(unknown.json).toMatchObject({ errors: [{ code: "UNKNOWN_DESIGN", source: { pointer: "/numbers/1" } }] })
        expect((yield* send(client, control("revoke-tokens", {}))).status).toBe(204)
        expect((yield* send(client, control("reset", {}))).status).toBe(204)
        expect((yield* sandbox.control.stats).tokensIssued).toBe(0)
        const page = yield* send(client, control("reset", {}, { origin: "http://evil.example" }))
        expect([page.status, page.json?.["errors"]]).toMatchObject([403, [{ code: "FORBIDDEN_ORIGIN" }]])
        expect((yield* send(client, control("reset", {}, { origin: "http://127.0.0.1:8787" }))).status).toBe(204)
        const text = HttpClientRequest.bodyText(HttpClientRequest.post(`${base}/__sandbox/faults`), "{}", "text/plain")
        expect((yield* send(client, text)).status).toBe(415)
        const get = yield* send(client, control("faults"))
        expect([get.status, get.headers["allow"]]).toEqual([405, "POST"])
        expect((yield* send(client, control("nothing"))).status).toBe(404)
      })
    ))
})
