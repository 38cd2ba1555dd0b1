/**
 * The Effect 4 edition's in-process sandbox, through a raw `HttpClient`: the token endpoint, the
 * API's answers and errors, the dataset, faults, `touch`, and `Sandbox.layer`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as DesignSearchConfig from "../../src/DesignSearchConfig.js"
import * as Sandbox from "../../src/Sandbox.js"
import {
  api,
  base,
  bearer,
  call,
  goodForm,
  pointers,
  send,
  tokenRequest,
  tokenUrl,
  withSandbox
} from "./support/rawSandbox.js"

const { bottle, chair, wristWatch } = Sandbox.fixedNumbers

describe("Sandbox token endpoint (spec 4.1, 5.3)", () => {
  it.effect("issues a JWT shaped like the real ones, valid for 3600 seconds", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const r = yield* send(client, tokenRequest(goodForm))
        expect(r.status).toBe(200)
        expect(r.headers["cache-control"]).toBe("no-store")
        expect(r.json).toMatchObject({ expires_in: 3600, token_type: "Bearer" })
        const [, payload] = String(r.json?.["access_token"]).split(".")
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>
        expect(Object.keys(claims).sort()).toEqual(
          ["auth_time", "client_id", "exp", "iat", "iss", "jti", "scope", "sub", "token_use"]
        )
        expect(Number(claims["exp"]) - Number(claims["iat"])).toBe(3600)
      })
    ))

  it.effect("answers bad credentials, grants and bodies with RFC 6749 errors, and issues nothing", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const wrongSecret = yield* send(client, tokenRequest({ ...goodForm, client_secret: "nope" }))
        expect(wrongSecret.status).toBe(401)
        expect(wrongSecret.json).toMatchObject({ error: "invalid_client" })
        const wrongGrant = yield* send(client, tokenRequest({ ...goodForm, grant_type: "password" }))
        expect([wrongGrant.status, wrongGrant.json?.["error"]]).toEqual([400, "unsupported_grant_type"])
        const missing = yield* send(client, tokenRequest({ grant_type: "client_credentials" }))
        expect(missing.json).toMatchObject({ error: "invalid_request" })
        const json = yield* send(
          client,
          HttpClientRequest.post(tokenUrl).pipe(HttpClientRequest.bodyJsonUnsafe(goodForm))
        )
        expect(json.status).toBe(400)
        const get = yield* send(client, HttpClientRequest.get(tokenUrl))
        expect([get.status, get.headers["allow"]]).toEqual([405, "POST"])
        expect((yield* sandbox.control.stats).tokensIssued).toBe(0)
      })
    ))
})

describe("Sandbox API", () => {
  it.effect("a missing, malformed, forged, expired or revoked token is a 401 with an errors body", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const design = HttpClientRequest.get(`${api}/design/${chair}`)
        const as = (authorization: string) =>
          send(client, HttpClientRequest.setHeader(design, "authorization", authorization))
        const good = yield* bearer(client)
        const forged = good.slice(0, -4) + (good.endsWith("AAAA") ? "BBBB" : "AAAA")
        for (
          const r of [yield* send(client, design), yield* as("Basic abc"), yield* as("Bearer x"), yield* as(forged)]
        ) {
          expect(r.status).toBe(401)
          expect(r.headers["www-authenticate"]).toBe(`Bearer error="invalid_token"`)
          expect(r.json).toMatchObject({ errors: [{ code: "UNAUTHORIZED" }] })
        }
        expect((yield* as(good)).status).toBe(200)
        yield* TestClock.adjust("3601 seconds")
        expect((yield* as(good)).json).toMatchObject({ errors: [{ detail: "access token expired" }] })
        const fresh = yield* bearer(client)
        yield* sandbox.control.revokeTokens
        expect((yield* as(fresh)).json).toMatchObject({ errors: [{ detail: "access token revoked" }] })
      })
    ))

  it.effect("400 for JSON that is not well-formed, 422 with a pointer per offending field", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const malformed = yield* call(client, "/search/quick", "{\"query\": ")
        expect(malformed.status).toBe(400)
        expect(malformed.json).toMatchObject({ errors: [{ code: "MALFORMED_JSON", source: { parameter: "body" } }] })
        expect((malformed.json?.["errors"] as Array<{ id?: string }>)[0]?.id).toMatch(/^sbx-/)
        const invalid = yield* call(client, "/search/quick", {
          changedSinceDate: "yesterday",
          filters: { statusFilter: "REGISTERED" }
        })
        expect(invalid.status).toBe(422)
        expect(pointers(invalid)).toEqual(["/changedSinceDate", "/filters/statusFilter", "/query"])
        const rows = yield* call(client, "/search/advanced", {
          rows: [{ op: "XOR", query: { owner: "ltd" } }, { op: "AND", query: {} }],
          changedSinceDate: "soon"
        })
        expect(pointers(rows)).toEqual(["/changedSinceDate", "/rows/0/op", "/rows/1/query"])
        const dateType = yield* call(client, "/search/advanced", {
          rows: [{ op: "AND", query: { date: { type: "RENEWAL_DUE", from: "2020-01-01" } } }]
        })
        expect([dateType.status, pointers(dateType)]).toEqual([422, ["/rows/0/query/date/type"]])
        const owners = { rows: [{ op: "AND", query: { owner: "ltd" } }] }
        for (
          const [pageNumber, pageSize, pointer] of [[0, 0, "/pageSize"], [0, 101, "/pageSize"], [-1, 5, "/pageNumber"]]
        ) {
          expect(pointers(yield* call(client, "/page/advanced", { ...owners, pageNumber, pageSize }))).toEqual([
            pointer
          ])
        }
        expect(pointers(yield* call(client, "/page/advanced", owners))).toEqual(["/pageNumber", "/pageSize"])
        const get = yield* call(client, "/page/advanced")
        expect([get.status, get.headers["allow"]]).toEqual([405, "POST"])
      })
    ))

  it.effect("a malformed design number is a 400 naming ipRightIdentifier; an unknown one a 404; an unknown route a 404", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        for (const bad of ["..%2F..%2Fetc", "a%20b", "1234567890123", "%E2%82%AC"]) {
          const r = yield* call(client, `/design/${bad}`)
          expect(r.status).toBe(400)
          expect(r.json).toMatchObject({ errors: [{ source: { parameter: "ipRightIdentifier" } }] })
        }
        expect((yield* call(client, "/design/999999999")).json).toMatchObject({ errors: [{ code: "NOT_FOUND" }] })
        const nowhere = yield* send(client, HttpClientRequest.get(`${base}/nowhere`))
        expect(nowhere.status).toBe(404)
        expect(nowhere.json).toMatchObject({ errors: [{ code: "NOT_FOUND", detail: "no route for GET /nowhere" }] })
      })
    ))

  it.effect("HEAD is answered like GET, with the same status and headers and no body", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        for (const [number, status] of [[chair, 200], ["000000000", 404]] as const) {
          const as = (request: HttpClientRequest.HttpClientRequest) =>
            send(client, HttpClientRequest.setHeader(request, "authorization", authorization))
          const head = yield* as(HttpClientRequest.head(`${api}/design/${number}`))
          const get = yield* as(HttpClientRequest.get(`${api}/design/${number}`))
          expect([get.status, head.status, head.text]).toEqual([status, status, ""])
          expect(head.headers).toEqual(get.headers)
          expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(get.text)))
          expect(head.headers["content-type"]).toBe("application/json")
        }
        const token = yield* send(client, HttpClientRequest.head(tokenUrl))
        expect([token.status, token.headers["allow"], token.text]).toEqual([405, "POST", ""])
      })
    ))
})

describe("Sandbox dataset and search", () => {
  it.effect("the same seed gives the same designs; another seed others", () =>
    Effect.gen(function*() {
      const search = (seed: number) =>
        withSandbox((sandbox, client) =>
          Effect.map(call(client, "/search/quick", { query: "chair" }), (r) => [sandbox.designCount, r.json]), {
          seed,
          designs: 300
        })
      const [count, seven] = yield* search(7)
      expect(count).toBe(300)
      expect(yield* search(7)).toEqual([300, seven])
      expect((yield* search(8))[1]).not.toEqual(seven)
    }))

  it.effect("a page holds each design as get sends it; results name their numbers as configured", () =>
    Effect.gen(function*() {
      const owners = { rows: [{ op: "AND", query: { owner: "ltd" } }] }
      for (const resultField of Sandbox.resultFields) {
        yield* withSandbox((_, client) =>
          Effect.gen(function*() {
            const search = yield* call(client, "/search/advanced", owners)
            const numbers = search.json?.[resultField] as Array<string>
            expect(Object.keys(search.json ?? {}).sort()).toEqual(["aggregations", "count", resultField].sort())
            expect(numbers).toHaveLength(search.json?.["count"] as number)
            expect((yield* call(client, "/search/quick", { query: "chair" })).json?.[resultField]).toContain(chair)
            const page = yield* call(client, "/page/advanced", { ...owners, pageNumber: 1, pageSize: 3 })
            expect(page.json).toMatchObject({
              count: search.json?.["count"],
              aggregations: search.json?.["aggregations"]
            })
            const records = page.json?.["designs"] as Array<{ number: string }>
            expect(records.map((d) => d.number)).toEqual(numbers.slice(3, 6))
            for (const record of records) expect(record).toEqual((yield* call(client, `/design/${record.number}`)).json)
          }), { resultField })
      }
    }))

  it.effect("unknown criteria are ignored and named; a capped search says so", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const unknown = yield* call(client, "/search/advanced", {
          rows: [{ op: "AND", query: { owner: "ltd", colour: "red", size: 3 } }]
        })
        const messages = unknown.json?.["messages"] as Array<{ code: string; detail: string; severity: string }>
        expect(messages.map((m) => [m.code, m.severity])).toEqual([["UNKNOWN_CRITERION", "information"]])
        expect(messages[0]?.detail).toContain("colour, size")
        const plain = yield* call(client, "/search/advanced", { rows: [{ op: "AND", query: { owner: "ltd" } }] })
        expect(unknown.json?.["data"]).toEqual(plain.json)
        const capped = yield* call(client, "/search/advanced", { rows: [{ op: "AND_NOT", query: { owner: "zzz" } }] })
        expect((capped.json?.["data"] as { designNumbers: Array<string> }).designNumbers).toHaveLength(40)
        expect(capped.json?.["messages"]).toMatchObject([{ code: "RESULT_LIMIT", severity: "warning" }])
      }), { designs: 60, resultCap: 40 }))

  it.effect("options that are not options are a ConfigError naming them", () =>
    Effect.gen(function*() {
      const refused = [
        [{ resultField: "ids" as Sandbox.ResultField }, "resultField"],
        [{ clientSecret: "" }, "must not be empty"],
        [{ designs: 0 }, "designs must be a positive integer"],
        [{ journalSize: 1.5 }, "journalSize must be a positive integer"]
      ] as const
      for (const [options, says] of refused) {
        const error = yield* Effect.flip(Sandbox.make(options))
        expect(error._tag).toBe("ConfigError")
        expect(error.message).toContain(says)
      }
    }))
})

describe("SandboxControl.touch", () => {
  const dec2 = Date.UTC(2026, 11, 2)

  it.effect("amends each title and sets lastChanged to the sandbox's today: searches by changedSinceDate find exactly those", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(dec2 + 15 * 3_600_000)
        const before = (yield* call(client, `/design/${chair}`)).json
        yield* sandbox.control.touch([chair, bottle])
        const after = (yield* call(client, `/design/${chair}`)).json
        expect(after).toEqual({ ...before, title: `${String(before?.["title"])} (amended)`, lastChanged: "2026-12-02" })
        const everything = { rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }] }
        const since = (day: string) =>
          Effect.map(call(client, "/search/advanced", { ...everything, changedSinceDate: day }), (r) => r.json)
        expect(yield* since("2026-12-02")).toMatchObject({ count: 2, designNumbers: [chair, bottle] })
        expect(yield* since("2026-12-03")).toMatchObject({ count: 0 })
        expect((yield* call(client, "/search/quick", { query: "amended" })).json).toMatchObject({ count: 2 })
      })
    ))

  it.effect("an unknown number fails with UnknownDesignsError naming it, and nothing is touched", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          sandbox.control.touch([wristWatch, "999999999", "x1"]).pipe(Effect.catchTag("SchemaError", Effect.die))
        )
        expect(error).toBeInstanceOf(Sandbox.UnknownDesignsError)
        expect([error._tag, error.numbers, error.message]).toEqual([
          "UnknownDesignsError",
          ["999999999", "x1"],
          "no design numbered 999999999, x1"
        ])
        expect((yield* call(client, "/search/quick", { query: "amended" })).json).toMatchObject({ count: 0 })
      })
    ))
})

describe("Sandbox.layer", () => {
  it.effect("provides an HttpClient to the sandbox, its control, and a DesignSearchConfig that points at it", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const control = yield* Sandbox.SandboxControl
      const config = yield* DesignSearchConfig.DesignSearchConfig
      expect([config.clientId, config.tokenUrl, config.apiBaseUrl]).toEqual(["a", tokenUrl, api])
      const form = { ...goodForm, client_id: "a", client_secret: "b-secret" }
      expect((yield* send(client, tokenRequest(form))).status).toBe(200)
      expect((yield* control.stats).tokensIssued).toBe(1)
      const refused = Effect.flatMap(Sandbox.SandboxControl, (other) => other.stats)
      expect(yield* Effect.flip(Effect.provide(refused, Sandbox.layer({ designs: 0 })))).toMatchObject({
        _tag: "ConfigError"
      })
    }).pipe(Effect.provide(Sandbox.layer({ clientId: "a", clientSecret: "b-secret", designs: 20 }))))
})

describe("faults", () => {
  it.effect("go to their target only, count by count, answered with the status's spec-shaped error; reset drops them", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        yield* sandbox.control.injectFault({ target: "design", status: 500, count: 2 })
        yield* sandbox.control.injectFault({ target: "page", status: 503 })
        const statuses = [0, 1, 2].map(() => Effect.map(call(client, `/design/${chair}`), (r) => r.status))
        expect(yield* Effect.all(statuses)).toEqual([500, 500, 200])
        const first = (yield* sandbox.control.requests({ target: "design" })).entries[0]
        expect(first).toMatchObject({ status: 500, fault: { index: 0, fault: { target: "design", count: 2 } } })
        expect(yield* sandbox.control.stats).toEqual({
          tokensIssued: 3,
          requests: { token: 3, search: 0, design: 3, advanced: 0, page: 0 },
          abandoned: 0
        })
        yield* sandbox.control.reset
        expect(yield* sandbox.control.stats).toEqual({
          tokensIssued: 0,
          requests: { token: 0, search: 0, design: 0, advanced: 0, page: 0 },
          abandoned: 0
        })
        const page = yield* call(client, "/page/advanced", {
          rows: [{ op: "AND", query: { owner: "x" } }],
          pageNumber: 0,
          pageSize: 1
        })
        expect(page.status).toBe(200)
      })
    ))

  it.effect("answer with their body as text or JSON, their headers, or no body for a 204, after their delay", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const { control } = sandbox
        yield* control.injectFault({ target: "search", status: 500 })
        const spec = yield* call(client, "/search/quick", { query: "chair" })
        expect(spec.json).toMatchObject({ errors: [{ code: "500", detail: "Internal Server Error" }] })
        yield* control.injectFault({
          target: "search",
          status: 200,
          body: "<html/>",
          headers: { "content-type": "text/html" }
        })
        const text = yield* call(client, "/search/quick", { query: "chair" })
        expect([text.status, text.text, text.headers["content-type"]]).toEqual([200, "<html/>", "text/html"])
        yield* control.injectFault({ target: "search", status: 429, body: { a: 1 }, headers: { "Retry-After": "5" } })
        const json = yield* call(client, "/search/quick", { query: "chair" })
        expect([json.status, json.text, json.headers["retry-after"]]).toEqual([429, `{"a":1}`, "5"])
        yield* control.injectFault({ target: "search", status: 204, delayMs: 2000 })
        const fiber = yield* Effect.forkChild(call(client, "/search/quick", { query: "chair" }))
        yield* TestClock.adjust("1999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        const empty = yield* Fiber.await(fiber)
        expect(empty._tag === "Success" && [empty.value.status, empty.value.text]).toEqual([204, ""])
      })
    ))

  it.effect("a reset is a TransportError; resetMidBody sends the headers and fails the body half-way", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        const get = HttpClientRequest.get(`${api}/design/${chair}`).pipe(
          HttpClientRequest.setHeader("authorization", authorization)
        )
        yield* sandbox.control.injectFault({ target: "design", status: 200, kind: "reset" })
        const reset = yield* Effect.flip(client.execute(get))
        expect([reset._tag, reset.reason._tag]).toEqual(["HttpClientError", "TransportError"])
        yield* sandbox.control.injectFault({
          target: "design",
          status: 200,
          kind: "resetMidBody",
          body: { number: chair }
        })
        const response = yield* client.execute(get)
        expect(response.status).toBe(200)
        expect(response.headers["x-sandbox-reset"]).toBeUndefined()
        const cut = yield* Effect.flip(response.text)
        expect(cut.reason._tag).toBe("DecodeError")
        expect((yield* send(client, get)).status).toBe(200)
      })
    ))

  it.effect("a fault that is not a fault is refused, naming the field and why", () =>
    withSandbox((sandbox) =>
      Effect.gen(function*() {
        const refused = [
          [{ target: "elsewhere", status: 500 }, "target"],
          [{ target: "any", status: 99 }, "status"],
          [{ target: "any", status: 500, count: 0 }, "count"],
          [{ target: "page", status: 500, after: -1 }, "after"],
          [{ target: "page", status: 500, match: { pagenumber: 2 } }, "pagenumber"],
          [{ target: "page", status: 204, body: "x" }, "a 204 answer has no body"],
          [{ target: "design", status: 503, match: { pageNumber: 2 } }, "no design request has a pageNumber"],
          [{ target: "search", status: 503, match: { body: { "rows[0": "x" } } }, "expected a field path"],
          [
            { target: "search", status: 503, headers: { "Content-Length": "1" } },
            "Content-Length is set by the server itself"
          ],
          [{ target: "search", status: 503, headers: { "x-a": "\n" } }, "without control characters"],
          [
            JSON.parse(`{"target":"search","status":503,"match":{"body":{"__proto__":null}}}`),
            "__proto__ is no name a record can keep"
          ]
        ] as const
        for (const [fault, says] of refused) {
          const error = yield* Effect.flip(sandbox.control.injectFault(fault as never))
          expect(error._tag).toBe("SchemaError")
          expect(error.message, JSON.stringify(fault)).toContain(says)
        }
        expect((yield* sandbox.control.requests()).entries).toEqual([])
      })
    ))
})
