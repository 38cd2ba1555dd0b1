/**
 * Faults that match requests: `after`, `match` (path, design number, page number, fields of the
 * body) and `times`, applied in injection order, with the journal naming the fault that answered;
 * in process and served. Under the mirror's sync: matchedFaults.effect3.test.ts.
 */
import { HttpClient, HttpClientRequest } from "#edition/internal/seam"
import { NodeHttpClient, schemaErrorTag } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import { clientLayer, servedClient } from "./support/layers.js"
import { call, withSandbox } from "./support/rawSandbox.js"

const Client = DesignSearchClient.DesignSearchClient
const { bottle, chair } = Sandbox.fixedNumbers
const [owner] = Sandbox.samples.owners
const byOwner = (name: string) => ({ rows: [{ op: "AND" as const, query: { owner: name } }] })
const designPath = (n: string) => `${DesignSearchConfig.apiPath}/design/${n}`

/** The tag of each outcome: `ok`, or the error's. */
const outcomes = (effects: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>>) =>
  Effect.forEach(effects, (effect) => Effect.match(effect, { onFailure: (e) => e._tag, onSuccess: () => "ok" }))

describe("matched faults, in process", () => {
  it.effect("match on a path, a design number, a body field; faults apply in injection order; the journal names which answered", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "design", status: 404, match: { designNumber: bottle } })
      yield* control.injectFault({ target: "any", status: 403, match: { path: designPath(chair) } })
      yield* control.injectFault({
        target: "advanced",
        status: 400,
        match: { body: { "rows[0].query.owner": "Nobody" } }
      })
      const got = yield* outcomes([
        client.getDesign(Sandbox.fixedNumbers.wristWatch),
        client.getDesign(chair),
        client.getDesign(bottle),
        client.advancedSearch(byOwner(owner!)),
        client.advancedSearch(byOwner("Nobody"))
      ])
      expect(got).toEqual(["ok", "ForbiddenError", "NotFoundError", "ok", "BadRequestError"])
      const { entries } = yield* control.requests({ target: "any" })
      expect(entries.filter((e) => e.target !== "token").map((e) => [e.status, e.fault?.index])).toEqual([
        [200, undefined],
        [403, 1],
        [404, 0],
        [200, undefined],
        [400, 2]
      ])
      // Each fault was spent: the same requests pass now.
      expect(yield* outcomes([client.getDesign(chair), client.advancedSearch(byOwner("Nobody"))])).toEqual(["ok", "ok"])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("after lets that many matching requests through; times is count; the first fault that applies answers", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const control = yield* Sandbox.SandboxControl
      // The third and fourth gets of the chair fail; gets of the bottle do not count.
      yield* control.injectFault({
        target: "design",
        status: 400,
        after: 2,
        times: 2,
        count: 5,
        match: { designNumber: chair }
      })
      yield* control.injectFault({ target: "design", status: 403, count: 1 })
      const got = yield* outcomes([chair, chair, bottle, chair, chair, chair].map((n) => client.getDesign(n)))
      // The first two chairs pass the first fault, and the second answers the first of them.
      expect(got).toEqual(["ForbiddenError", "ok", "ok", "BadRequestError", "BadRequestError", "ok"])
      const answered = (yield* control.requests({ target: "design" })).entries.map((e) => e.fault?.index ?? null)
      expect(answered).toEqual([1, null, null, 0, 0, null])
      // A journal query takes the same match.
      expect((yield* control.requests({ designNumber: bottle })).entries).toHaveLength(1)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a malformed or unknown field fails injectFault naming it", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const bad = [
        { match: { pageNumber: -1 } },
        { match: { body: { "rows[": "x" } } },
        { match: { body: { owner: { name: "x" } } } },
        // A misspelt field would match every request: it is refused.
        { match: { pagenumber: 2 } },
        { after: -1 },
        { times: 0 }
      ]
      for (const fields of bad) {
        const error = yield* Effect.flip(control.injectFault({ target: "page", status: 500, ...fields } as never))
        expect(error._tag).toBe(schemaErrorTag)
        expect(error.message).toContain(Object.keys(fields)[0]!)
      }
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a match that would name more than it says is refused, with the schema's own message for its field", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const refused = [
        // A field no request to the target holds would never apply, or (with any) silently apply to all.
        [{ target: "design", match: { pageNumber: 2 } }, "no design request has a pageNumber"],
        [{ target: "search", match: { designNumber: chair } }, "no search request has a designNumber"],
        [{ target: "token", match: { pageNumber: 0 } }, "no token request has a pageNumber"],
        [{ target: "design", match: { body: { query: "x" } } }, "no design request has a body"],
        // A record cannot keep `__proto__`: decoded, it would match every request.
        [
          JSON.parse(`{"target":"search","match":{"body":{"__proto__":null}}}`),
          "__proto__ is no name a record can keep"
        ],
        [{ target: "search", match: { body: { "rows[0": "x" } } }, "expected a field path such as rows[0].query.owner"],
        [{ target: "search", headers: { "Content-Length": "1" } }, "Content-Length is set by the server itself"]
      ] as const
      for (const [fault, says] of refused) {
        const error = yield* Effect.flip(control.injectFault({ status: 503, ...fault } as never))
        expect(error.message).toContain(says)
      }
      // With target any, the fields name their own requests only.
      yield* control.injectFault({ target: "any", status: 503, match: { pageNumber: 0 } })
      const client = yield* Client
      expect(yield* outcomes([client.getDesign(chair), client.quickSearch({ query: "chair" })])).toEqual(["ok", "ok"])
    }).pipe(Effect.provide(clientLayer())))

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
})

/** A quick search sent as is, with a bearer the fault answers before: its status. */
const quickSearch = (http: HttpClient.HttpClient, base: string, body: unknown) =>
  Effect.map(
    http.execute(
      HttpClientRequest.post(`${base}${DesignSearchConfig.apiPath}/search/quick`).pipe(
        HttpClientRequest.bearerToken("not-checked-before-a-fault"),
        HttpClientRequest.bodyText(JSON.stringify(body), "application/json")
      )
    ),
    (response) => response.status
  )

describe("matched faults see a request as it arrived, not as the journal masks it", () => {
  it.effect("a body field named like a credential matches its value as sent; the journal keeps it [redacted]", () =>
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "search", status: 503, match: { body: { pageToken: "abc" } } })
      expect(yield* quickSearch(http, Sandbox.inProcessUrl, { query: "chair", pageToken: "other" })).not.toBe(503)
      expect(yield* quickSearch(http, Sandbox.inProcessUrl, { query: "chair", pageToken: "abc" })).toBe(503)
      const last = (yield* control.requests({ target: "search" })).entries.at(-1)
      expect(last).toMatchObject({
        status: 503,
        fault: { index: 0 },
        body: { query: "chair", pageToken: "[redacted]" }
      })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a short client secret is not looked for in other text: a fault and expectRequest on a query holding it match", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "search", status: 400, match: { body: { query: "chair test" } } })
      expect(yield* outcomes([client.quickSearch({ query: "chair test" })])).toEqual(["BadRequestError"])
      const found = yield* control.expectRequest({ target: "search", body: { query: "chair test" } })
      expect(found).toMatchObject({ status: 400, fault: { index: 0 }, body: { query: "chair test" } })
      // Where it is a credential, it is still hidden: the token form's client_secret.
      const token = yield* control.expectRequest({ target: "token" })
      expect(token.body).toMatchObject({ client_id: "a", client_secret: "[redacted]" })
      expect(token.headers["authorization"] ?? "Basic").toBe("Basic")
    }).pipe(Effect.provide(clientLayer({ sandbox: { clientId: "a", clientSecret: "test" } }))))

  it.live("served, a fault on pageToken answers the request that sends it", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const http = Context.get(yield* Layer.build(NodeHttpClient.layerUndici), HttpClient.HttpClient)
      const injected = yield* http.execute(
        HttpClientRequest.bodyText(
          HttpClientRequest.post(`${served.url}/__sandbox/faults`),
          JSON.stringify({ target: "search", status: 503, match: { body: { pageToken: "abc" } } }),
          "application/json"
        )
      )
      expect(injected.status).toBe(201)
      expect(yield* quickSearch(http, served.url, { query: "chair", pageToken: "abc" })).toBe(503)
      const { entries } = yield* served.control.requests({ target: "search" })
      expect(entries.map((e) => [e.status, e.fault?.index, e.body])).toEqual([
        [503, 0, { query: "chair", pageToken: "[redacted]" }]
      ])
    })))
})

describe("matched faults, served", () => {
  it.live("POST /__sandbox/faults takes the same fields; a bad one is a 422 pointing at it", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const http = Context.get(yield* Layer.build(NodeHttpClient.layerUndici), HttpClient.HttpClient)
      const post = (fault: unknown) =>
        Effect.flatMap(
          http.execute(
            HttpClientRequest.bodyText(
              HttpClientRequest.post(`${served.url}/__sandbox/faults`),
              JSON.stringify(fault),
              "application/json"
            )
          ),
          (response) => Effect.map(response.json, (body) => ({ status: response.status, body }))
        )
      const fault = { target: "design", status: 404, after: 1, times: 1, match: { designNumber: chair } }
      expect(yield* post(fault)).toEqual({ status: 201, body: { data: { ...fault, count: 1 } } })
      const client = yield* servedClient(served)
      expect(yield* outcomes([client.getDesign(chair), client.getDesign(chair)])).toEqual(["ok", "NotFoundError"])
      const { entries } = yield* served.control.requests({ target: "design" })
      expect(entries.map((e) => e.fault?.index ?? null)).toEqual([null, 0])

      const bad = yield* post({
        target: "page",
        status: 500,
        after: -1,
        extra: 1,
        match: { pageNumber: 1.5, body: { "a..b": 1 } }
      })
      expect(bad.status).toBe(422)
      const problems = (bad.body as { errors: ReadonlyArray<{ detail: string; source: { pointer: string } }> }).errors
      expect(problems.map((e) => [e.source.pointer, e.detail])).toEqual([
        ["/extra", "is not a known field"],
        ["/after", "Expected a number between 0 and 1000000, actual -1"],
        ["/match/pageNumber", "Expected an integer, actual 1.5"],
        ["/match/body/a..b", `expected a field path such as rows[0].query.owner, not "a..b"`]
      ])

      // Each refusal carries the schema's message for its field, and nothing is injected.
      const refusals = [
        [
          `{"target":"search","status":418,"match":{"body":{"__proto__":null}}}`,
          "/match/body/__proto__",
          "__proto__ is no name a record can keep"
        ],
        [`{"target":"search","status":418,"match":{"body":{"rows[0":"x"}}}`, "/match/body/rows[0", "a field path"],
        [`{"target":"page","status":418,"headers":{"content-length":"1"}}`, "/headers/content-length", "by the server"],
        [`{"target":"design","status":418,"match":{"pageNumber":2}}`, "/match/pageNumber", "no design request"]
      ] as const
      for (const [text, pointer, says] of refusals) {
        const refused = yield* post(JSON.parse(text))
        expect(refused.status).toBe(422)
        expect(refused.body).toMatchObject({ errors: [{ code: "INVALID_FIELD", source: { pointer } }] })
        expect(JSON.stringify(refused.body)).toContain(says)
      }
      expect(yield* outcomes([client.quickSearch({ query: "chair" })])).toEqual(["ok"])
    })))
})
