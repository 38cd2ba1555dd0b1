/**
 * The sandbox's request journal (`SandboxControl.requests`, `GET /__sandbox/requests`): what it
 * keeps of each request, in process and served, bounded, cleared by `reset`, and never a client
 * secret or a token, whatever a request carries; and the sandbox-wide latency on its `Clock`.
 */
import { forkChild, HttpClient, HttpClientRequest, NoSuchElement, Result, toResult } from "#edition/internal/seam"
import { configErrorPath, failureOption, NodeHttpClient, poll, schemaErrorTag } from "#test-edition/support/seam"
import { TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Fiber, Layer, Option } from "effect"
import fc from "fast-check"
import { masked, maskOf } from "../src/core/mask/mask.js"
import { DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import { clientLayer, servedClient } from "./support/layers.js"
import { call, goodForm, withSandbox } from "./support/rawSandbox.js"

const Client = DesignSearchClient.DesignSearchClient
const chair = Sandbox.fixedNumbers.chair
const quickPath = `${DesignSearchConfig.apiPath}/search/quick`

/** One exchange with `base` through `http`: status and body text. */
const send = (
  http: HttpClient.HttpClient,
  url: string,
  options: { readonly method?: "GET" | "POST"; readonly headers?: Record<string, string>; readonly body?: string } = {}
) =>
  Effect.gen(function*() {
    const base = HttpClientRequest.make(options.method ?? "POST")(url, { headers: options.headers ?? {} })
    const request = options.body === undefined
      ? base
      : HttpClientRequest.bodyText(base, options.body, options.headers?.["content-type"] ?? "application/json")
    const response = yield* http.execute(request)
    return { status: response.status, text: yield* response.text }
  })

/** An undici `HttpClient` for the rest of the scope. */
const undici = Effect.map(Layer.build(NodeHttpClient.layerUndici), Context.get(HttpClient.HttpClient))

describe("the journal, in process", () => {
  it.effect("keeps method, path, query, parsed body, headers with Authorization's scheme only, status, fault and time", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 11, 1))
      const client = yield* Client
      const control = yield* Sandbox.SandboxControl
      yield* client.quickSearch({ query: "chair", filters: { statusFilter: ["REGISTERED"] } })
      yield* control.injectFault({ target: "design", status: 404 })
      yield* Effect.flip(client.getDesign(chair))

      const { dropped, entries } = yield* control.requests()
      expect(dropped).toBe(0)
      expect(entries.map((e) => [e.method, e.target, e.status])).toEqual([
        ["POST", "token", 200],
        ["POST", "search", 200],
        ["GET", "design", 404]
      ])
      const [token, search, design] = entries
      expect(token?.body).toEqual({
        grant_type: "client_credentials",
        client_id: "sandbox-client",
        client_secret: masked
      })
      expect(search).toMatchObject({
        path: quickPath,
        query: {},
        body: { query: "chair", filters: { statusFilter: ["REGISTERED"] } },
        time: Date.UTC(2026, 11, 1)
      })
      expect(search?.headers["authorization"]).toBe("Bearer")
      expect(search?.fault).toBeUndefined()
      expect(design?.fault).toEqual({ index: 0, fault: { target: "design", status: 404, count: 1 } })

      // The one-line assertions: a filter over the entries, or an Effect that fails saying what it saw.
      expect((yield* control.requests({ target: "search" })).entries).toEqual([search])
      const sent = yield* control.expectRequest({ target: "search", body: { "filters.statusFilter[0]": "REGISTERED" } })
      expect(sent).toEqual(search)
      const missing = yield* Effect.flip(control.expectRequest({ target: "search", body: { query: "table" } }))
      expect(missing._tag).toBe(new NoSuchElement()._tag)
      expect(missing.message).toContain(`no request matches {"target":"search","body":{"query":"table"}}`)
      expect(missing.message).toContain(`the last was GET ${DesignSearchConfig.apiPath}/design/${chair}`)

      yield* control.reset
      expect(yield* control.requests()).toEqual({ entries: [], dropped: 0 })
    }).pipe(Effect.provide(clientLayer())))

  it.effect("keeps the last journalSize requests, and counts those it dropped", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const control = yield* Sandbox.SandboxControl
      for (const query of ["a", "b", "c", "d"]) yield* client.quickSearch({ query })
      // The token, then four searches: the first two are dropped.
      const { dropped, entries } = yield* control.requests()
      expect(dropped).toBe(2)
      expect(entries.map((e) => (e.body as { query: string }).query)).toEqual(["b", "c", "d"])
      yield* control.reset
      expect((yield* control.requests()).dropped).toBe(0)
    }).pipe(Effect.provide(clientLayer({ sandbox: { journalSize: 3 } }))))

  it.effect("keeps at most journalBytes of entries as UTF-8 JSON text, the oldest dropped, and none heavier alone", () =>
    withSandbox((sandbox, http) =>
      Effect.gen(function*() {
        // Each call journals a token request, then a search of about 6,000 characters.
        for (let i = 0; i < 10; i++) yield* call(http, "/search/quick", { query: "chair", note: `${i}`.repeat(6000) })
        const { dropped, entries } = yield* sandbox.control.requests()
        expect(JSON.stringify(entries).length).toBeLessThanOrEqual(24_000)
        expect(entries.length + dropped).toBe(20)
        expect(entries.filter((e) => e.target === "search")).toHaveLength(3)
        expect(entries.at(-1)?.body).toEqual({ query: "chair", note: "9".repeat(6000) })
        // One entry over journalBytes alone is not kept, and the others stay.
        yield* call(http, "/search/quick", { query: "chair", note: "x".repeat(30_000) })
        const after = yield* sandbox.control.requests()
        expect(after.entries.length + after.dropped).toBe(22)
        expect(after.entries.at(-1)?.target).toBe("token")
        expect(after.entries.slice(0, -1)).toEqual(entries.slice(entries.length + 1 - after.entries.length))
        expect(after.entries.filter((e) => e.target === "search").length).toBeGreaterThanOrEqual(2)
        // bytes, not characters: text of three bytes a character keeps a third as many
        for (let i = 0; i < 10; i++) yield* call(http, "/search/quick", { query: "chair", note: "椅".repeat(2000) })
        const wide = (yield* sandbox.control.requests()).entries
        expect(Buffer.byteLength(JSON.stringify(wide))).toBeLessThanOrEqual(24_000)
        expect(wide.filter((e) => e.target === "search")).toHaveLength(3)
      }), { designs: 10, journalBytes: 24_000 }))

  it.effect("a request refused before it authenticates keeps a preview of its masked body and its size in bytes", () =>
    withSandbox((sandbox, http) =>
      Effect.gen(function*() {
        const quick = Sandbox.inProcessUrl + quickPath
        const body = JSON.stringify({
          query: "chair sandbox-secret",
          password: "hunter2-hunter2",
          filler: "é".repeat(32_000)
        })
        const shown = JSON.stringify({ query: `chair ${masked}`, password: masked, filler: "é".repeat(300) }).slice(
          0,
          256
        )
        // 40 searches without Authorization, one with a token the sandbox never issued: each a 401.
        for (let i = 0; i < 40; i++) expect((yield* send(http, quick, { body })).status).toBe(401)
        const badToken = { authorization: "Bearer not-a-token", "content-type": "application/json" }
        expect((yield* send(http, quick, { body, headers: badToken })).status).toBe(401)
        // A token request with the wrong secret: a 401 too.
        const form = new URLSearchParams({ ...goodForm, client_secret: "wrong-secret-0123", note: "n".repeat(300) })
        const tokenUrl = Sandbox.inProcessUrl + DesignSearchConfig.tokenPath
        const formType = { "content-type": "application/x-www-form-urlencoded" }
        expect((yield* send(http, tokenUrl, { body: form.toString(), headers: formType })).status).toBe(401)

        const { dropped, entries } = yield* sandbox.control.requests()
        expect(JSON.stringify(entries).length).toBeLessThanOrEqual(10_000)
        expect(dropped).toBeGreaterThan(0)
        expect(entries.length + dropped).toBe(42)
        const searches = entries.slice(0, -1)
        for (const entry of searches) {
          expect(entry).toMatchObject({
            target: "search",
            status: 401,
            bodyPreview: shown,
            bodyBytes: Buffer.byteLength(body)
          })
          expect(entry.body).toBeUndefined()
        }
        const token = entries.at(-1)
        expect(token).toMatchObject({ target: "token", status: 401, bodyBytes: form.toString().length })
        expect(token?.bodyPreview).toBe(
          JSON.stringify({ ...goodForm, client_secret: masked, note: "n".repeat(300) }).slice(0, 256)
        )
        expect(JSON.stringify(entries)).not.toMatch(/sandbox-secret|hunter2|wrong-secret/)

        // Authenticated, or answered by a fault before it authenticates, a body is kept whole.
        yield* sandbox.control.injectFault({ target: "search", status: 503 })
        expect((yield* send(http, quick, { body: `{"query":"chair"}` })).status).toBe(503)
        yield* call(http, "/search/quick", { query: "chair" })
        const [faulted, , searched] = (yield* sandbox.control.requests()).entries.slice(-3)
        expect(faulted).toMatchObject({ status: 503, body: { query: "chair" } })
        expect(searched).toMatchObject({ status: 200, body: { query: "chair" } })
        expect([faulted?.bodyPreview, searched?.bodyPreview, searched?.bodyBytes]).toEqual([
          undefined,
          undefined,
          undefined
        ])
      }), { designs: 10, journalBytes: 10_000 }))

  it.effect("keeps what has no route, what is not JSON, and a body it could not read", () =>
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      const control = yield* Sandbox.SandboxControl
      yield* send(http, `${Sandbox.inProcessUrl}/nowhere?x=1&y=2`, {
        body: "not json",
        headers: { "content-type": "text/plain" }
      })
      yield* send(http, Sandbox.inProcessUrl + DesignSearchConfig.tokenPath, { body: "x".repeat(200) })
      const [unrouted, tooLarge] = (yield* control.requests()).entries
      expect(unrouted).toMatchObject({ path: "/nowhere", query: { x: "1", y: "2" }, body: "not json", status: 404 })
      expect(unrouted?.target).toBeUndefined()
      expect(tooLarge).toMatchObject({ target: "token", status: 413 })
      expect(tooLarge?.body).toBeUndefined()
    }).pipe(Effect.provide(clientLayer({ sandbox: { maxRequestBytes: 100 } }))))

  it.effect("a reset fault is journaled with no status, its fault saying the connection dropped", () =>
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      const control = yield* Sandbox.SandboxControl
      yield* control.injectFault({ target: "any", status: 500, kind: "reset" })
      const sent = yield* toResult(send(http, `${Sandbox.inProcessUrl}${quickPath}`, { body: "{}" }))
      expect(Result.isFailure(sent)).toBe(true)
      const [entry] = (yield* control.requests()).entries
      expect(entry?.fault?.fault.kind).toBe("reset")
      expect(entry && "status" in entry).toBe(false)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a short Authorization credential is not looked for elsewhere; a long one is, and a header's name is masked", () =>
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      const control = yield* Sandbox.SandboxControl
      const design = `${DesignSearchConfig.apiPath}/design/${chair}`
      yield* control.injectFault({ target: "design", status: 418, match: { path: design } })
      // With `Bearer t`, the path keeps its "t"s, and a fault matches it as sent.
      const short = yield* send(http, Sandbox.inProcessUrl + design, {
        method: "GET",
        headers: { authorization: "Bearer t", "content-type": "text/plain" }
      })
      expect(short.status).toBe(418)
      const long = "credential-0123"
      yield* send(http, `${Sandbox.inProcessUrl}/echo/${long}?q=${long}`, {
        method: "GET",
        headers: { authorization: `Bearer ${long}`, [`x-${long}`]: "1", "x-sandbox-secret": "sandbox-secret" }
      })
      const [first, second] = (yield* control.requests()).entries
      expect(first).toMatchObject({ path: design, headers: { authorization: "Bearer", "content-type": "text/plain" } })
      expect(second).toMatchObject({ path: `/echo/${masked}`, query: { q: masked } })
      // A name that holds a secret, in any case, is masked whole; two such names keep both values (each names a credential, so each is masked too).
      expect(second?.headers[masked]).toBe(`${masked}, ${masked}`)
      expect(JSON.stringify(second)).not.toMatch(/credential-0123|sandbox-secret/)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a name sent twice, or __proto__, keeps every value, in the query and a form alike", () =>
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      const control = yield* Sandbox.SandboxControl
      yield* send(http, `${Sandbox.inProcessUrl}/echo?q=a&q=b&__proto__=p`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "f=1&f=2&__proto__=p"
      })
      const [entry] = (yield* control.requests()).entries
      expect(Object.entries(entry?.query ?? {})).toEqual([["q", "a, b"], ["__proto__", "p"]])
      expect(Object.entries(entry?.body ?? {})).toEqual([["f", "1, 2"], ["__proto__", "p"]])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("requests checks its filter as injectFault checks a match: a decode error naming the field", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const bad = [
        [{ body: { "rows[0": 1 } }, "expected a field path"],
        [{ target: "bogus" }, "bogus"],
        [{ target: "search", designNumber: chair }, "no search request has a designNumber"],
        [{ pagenumber: 2 }, "pagenumber"],
        [{ target: "search", body: { pageToken: "abc" } }, "pageToken names a credential"],
        [{ body: { "rows[0].query.apiKey": "x" } }, "rows[0].query.apiKey names a credential"]
      ] as const
      for (const [filter, says] of bad) {
        const error = yield* Effect.flip(control.requests(filter as never))
        expect(error._tag).toBe(schemaErrorTag)
        expect(error.message).toContain(says)
        expect((yield* Effect.flip(control.expectRequest(filter as never)))._tag).toBe(schemaErrorTag)
      }
    }).pipe(Effect.provide(clientLayer())))

  it("refuses a journalSize or a journalBytes that is not a positive integer", async () => {
    for (const name of ["journalSize", "journalBytes"] as const) {
      for (const value of [0, -1, 1.5]) {
        const error = await Effect.runPromise(Effect.flip(Sandbox.make({ [name]: value })))
        expect(String(error)).toContain(`${name} must be a positive integer`)
        expect(configErrorPath(error)).toEqual([name])
      }
    }
  })

  it.effect("a filter or a fault nested 50,000 levels deep is refused in one line naming the field; showing it never throws", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      let deep: unknown = []
      for (let i = 0; i < 50_000; i++) deep = [deep]
      const fault = { target: "search", status: 500 } as const
      const refusals = [
        [control.requests({ body: { x: deep } } as never), "body.x nests deeper than 64 levels"],
        [control.expectRequest({ path: deep } as never), "path nests deeper than 64 levels"],
        [
          control.injectFault({ ...fault, match: { body: { x: deep } } } as never),
          "match.body nests deeper than 64 levels"
        ],
        [control.injectFault({ ...fault, headers: { x: deep } } as never), "headers.x nests deeper than 64 levels"],
        [
          control.injectFault({ ...fault, body: deep }),
          "body nests deeper than 1000 levels; send a deeper one as a string"
        ]
      ] as const
      for (const [refused, message] of refusals) {
        const error = yield* Effect.flip(refused)
        expect(error._tag).toBe(schemaErrorTag)
        expect(error.message).toBe(message)
        const pretty = Cause.pretty(Cause.fail(error))
        expect(pretty.split("\n")[0]).toContain(message)
        expect(pretty.length).toBeLessThan(5000)
      }
      // Within the limit, a filter is refused for what it holds, as before.
      const shallow = yield* Effect.flip(control.requests({ body: { x: [[["a"]]] } } as never))
      expect(shallow.message).not.toContain("nests deeper")
      expect((yield* control.requests()).entries).toEqual([])
    }).pipe(Effect.provide(clientLayer())))
})

/** An effect that checks `check` on `runs` records drawn from `arbitraries`. */
const property = <T extends Record<string, unknown>>(
  arbitraries: { readonly [K in keyof T]: fc.Arbitrary<T[K]> },
  check: (values: T) => Effect.Effect<unknown, unknown>,
  runs: number
) =>
  Effect.promise(() =>
    fc.assert(fc.asyncProperty(fc.record(arbitraries), (values) => Effect.runPromise(Effect.asVoid(check(values)))), {
      numRuns: runs
    })
  )

/** Characters each encoding writes its own way. */
const tricky = [..."aZ09-._~!*'() /+=&%?#\"\\<>"].concat("é", "😀")
const secretOf = fc.array(fc.constantFrom(...tricky), { minLength: 10, maxLength: 30 }).map((cs) => cs.join(""))

describe("the journal never holds the client secret or a token", () => {
  it.effect("whatever form a request carries them in", () =>
    property({
      secret: secretOf,
      encode: fc.constantFrom<(s: string) => string>(
        (s) => s,
        encodeURIComponent,
        (s) => new URLSearchParams({ s }).toString().slice(2),
        (s) => JSON.stringify(s).slice(1, -1),
        (s) => Buffer.from(s).toString("base64")
      ),
      where: fc.constantFrom("body", "query", "header", "path")
    }, ({ encode, secret, where }) =>
      Effect.gen(function*() {
        const sandbox = yield* Sandbox.make({ designs: 10, clientSecret: secret })
        const http = Sandbox.httpClient(sandbox.app)
        const form = { "content-type": "application/x-www-form-urlencoded" }
        const tokenUrl = Sandbox.inProcessUrl + DesignSearchConfig.tokenPath
        const grant = new URLSearchParams({ grant_type: "client_credentials", client_id: "sandbox-client" })
        // The secret in the form, as is and percent-encoded by hand, and in a Basic header.
        const answer = yield* send(http, tokenUrl, {
          headers: form,
          body: `${grant}&client_secret=${encodeURIComponent(secret)}`
        })
        yield* send(http, tokenUrl, { headers: form, body: `${grant}&client_secret=${secret}` })
        const basic = Buffer.from(`sandbox-client:${secret}`).toString("base64")
        yield* send(http, tokenUrl, { headers: { ...form, authorization: `Basic ${basic}` }, body: `${grant}` })
        const token = (JSON.parse(answer.text) as { access_token: string }).access_token
        // A search that echoes both, where the property says.
        const echo = encode(`${secret} ${token}`)
        const url = Sandbox.inProcessUrl + quickPath + (where === "path" ? `/${encodeURIComponent(echo)}` : "") +
          (where === "query" ? `?q=${encodeURIComponent(echo)}` : "")
        // A header carries Latin-1 only: other text is percent-encoded.
        const header = /^[\x20-\x7e]*$/.test(echo) ? echo : encodeURIComponent(echo)
        yield* send(http, url, {
          headers: { authorization: `Bearer ${token}`, ...(where === "header" ? { "x-echo": header } : {}) },
          body: where === "body" ? JSON.stringify({ query: echo, note: `${secret}`, token }) : `{"query":"chair"}`
        })
        const { entries } = yield* sandbox.control.requests()
        expect(entries).toHaveLength(4)
        const journal = JSON.stringify(entries)
        expect(journal).not.toContain(token)
        expect(maskOf([secret, `sandbox-client:${secret}`, token]).text(journal)).toBe(journal)
      }), 60))
})

/** Names that say their value is a credential, as applications and OAuth clients write them. */
const credentialNames = ["client_secret", "password", "access_token", "refresh_token", "id_token", "client_assertion"]
  .concat("x-api-key", "apiKey", "cookie", "credentials", "authorization", "passwd")

describe("the journal never holds a value named as a credential, though the sandbox was never told it", () => {
  it.effect("in JSON at any depth, a form with or without Content-Type, multipart, the query, a header, or text", () =>
    property({
      value: fc.stringMatching(/^[A-Za-z0-9]{8,20}$/).map((v) => `unknown-${v}`),
      name: fc.tuple(fc.constantFrom(...credentialNames), fc.boolean()).map(([n, up]) => up ? n.toUpperCase() : n),
      depth: fc.array(fc.boolean(), { maxLength: 4 }),
      where: fc.constantFrom("json", "form", "bare form", "multipart", "query", "header", "text")
    }, ({ depth, name, value, where }) =>
      Effect.gen(function*() {
        const sandbox = yield* Sandbox.make({ designs: 10 })
        const http = Sandbox.httpClient(sandbox.app)
        // Nested in objects and arrays, as the booleans say.
        const json = depth.reduce<unknown>((inner, inArray) => inArray ? [inner] : { nested: inner }, {
          [name]: value,
          query: "chair"
        })
        const form = `grant_type=client_credentials&${encodeURIComponent(name)}=${value}`
        const multipart = `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n--B--\r\n`
        const containers: Record<string, readonly [string, string]> = {
          json: ["application/json", JSON.stringify(json)],
          form: ["application/x-www-form-urlencoded", form],
          "bare form": ["", form],
          multipart: ["multipart/form-data; boundary=B", multipart],
          text: ["text/plain", `${name}: ${value}`]
        }
        const [type, body] = containers[where] ?? ["application/json", "{}"]
        const query = where === "query" ? `?${encodeURIComponent(name)}=${value}` : ""
        yield* send(http, Sandbox.inProcessUrl + quickPath + query, {
          headers: { "content-type": type, ...(where === "header" ? { [name]: value } : {}) },
          body
        })
        const { entries } = yield* sandbox.control.requests()
        expect(entries).toHaveLength(1)
        expect(JSON.stringify(entries)).not.toContain(value)
      }), 80))
})

describe("the journal, served", () => {
  it.live("GET /__sandbox/requests answers the journal as SandboxControl.requests does, by target if asked", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const client = yield* servedClient(served)
      yield* client.quickSearch({ query: "chair" })
      const http = yield* undici
      const get = (query: string) =>
        Effect.map(
          send(http, `${served.url}/__sandbox/requests${query}`, { method: "GET" }),
          ({ status, text }) => ({ status, body: JSON.parse(text) as unknown })
        )
      const all = yield* get("")
      expect(all.status).toBe(200)
      expect(all.body).toEqual(JSON.parse(JSON.stringify(yield* served.control.requests())))
      const { body } = all as { body: Sandbox.Journal<Sandbox.Entry> }
      expect(body.entries.map((e) => e.target)).toEqual(["token", "search"])
      expect(body.entries[1]?.headers["authorization"]).toBe("Bearer")
      expect(body.entries[0]?.body).toMatchObject({ client_secret: masked })
      // Control requests are not journaled: the journal is what an application sent.
      expect((yield* get("?target=search")).body).toMatchObject({ entries: [{ target: "search" }], dropped: 0 })
      // The filter of SandboxControl.requests, its fields as parameters: body as JSON.
      const bodyParam = (match: object) => encodeURIComponent(JSON.stringify(match))
      expect((yield* get(`?target=search&body=${bodyParam({ query: "chair" })}`)).body).toMatchObject({
        entries: [{ target: "search" }]
      })
      expect((yield* get(`?body=${bodyParam({ query: "table" })}`)).body).toEqual({ entries: [], dropped: 0 })
      const refusals = [
        ["?target=nowhere", "/target", "nowhere"],
        ["?target=design&pageNumber=1", "/pageNumber", "no design request has a pageNumber"],
        ["?pageNumber=first", "/pageNumber", `Unable to decode "first" into a number`],
        ["?pageNumber=-2", "/pageNumber", "Expected a non-negative number, actual -2"],
        ["?body=notjson", "/body", "is not valid JSON"],
        [`?body=${bodyParam({ "rows[0": 1 })}`, "/body/rows[0", "expected a field path"],
        [`?body=${encodeURIComponent(`{"__proto__":1}`)}`, "/body/__proto__", "__proto__"]
      ] as const
      for (const [query, pointer, says] of refusals) {
        const bad = yield* get(query)
        expect(bad.status, query).toBe(422)
        const [error] = (bad.body as { errors: ReadonlyArray<{ detail: string; source: unknown }> }).errors
        expect(error?.source).toEqual({ pointer })
        expect(error?.detail).toContain(says)
      }
      // A reset drops the connection: no status is journaled.
      yield* served.control.injectFault({ target: "search", status: 500, kind: "reset" })
      expect(Result.isFailure(yield* toResult(send(http, served.baseUrl + "/search/quick", { body: "{}" })))).toBe(
        true
      )
      const reset = (yield* served.control.requests({ target: "search" })).entries.at(-1)
      expect(reset?.fault?.fault.kind).toBe("reset")
      expect(reset?.status).toBeUndefined()
      yield* send(http, `${served.url}/__sandbox/reset`, { body: "" })
      expect((yield* get("")).body).toEqual({ entries: [], dropped: 0 })
    })))
})

describe("latency", () => {
  it.effect("each answer waits the latency on the sandbox's Clock: a client timeout fires under TestClock", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const fiber = yield* forkChild(toResult(client.quickSearch({ query: "chair" })))
      // The token's answer waits 2 seconds, the search's too: within the 5-second timeout.
      yield* TestClock.adjust("4 seconds")
      expect(Result.isSuccess(yield* Fiber.join(fiber))).toBe(true)
      // A client gone while its answer waits is counted.
      const gone = yield* forkChild(send(yield* HttpClient.HttpClient, `${Sandbox.inProcessUrl}/nowhere`))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(gone)
      expect((yield* (yield* Sandbox.SandboxControl).stats).abandoned).toBe(1)
    }).pipe(
      Effect.provide(clientLayer({ sandbox: { latency: "2 seconds" }, config: { requestTimeout: "5 seconds" } }))
    ))

  it.effect("a latency over the client's timeout is a TransportError once its retries are spent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const control = yield* Sandbox.SandboxControl
      const fiber = yield* forkChild(Effect.flip(client.quickSearch({ query: "chair" })))
      yield* TestClock.adjust("10 minutes")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TransportError")
      expect(error.message).toContain("no complete response within 5s")
      // The searches that timed out were received, none answered before the client gave up.
      const searches = (yield* control.requests({ target: "search" })).entries
      expect(searches.length).toBeGreaterThan(1)
    }).pipe(
      Effect.provide(
        clientLayer({
          sandbox: { latency: "30 seconds" },
          config: { requestTimeout: "5 seconds", tokenTimeout: "60 seconds" }
        })
      )
    ))

  it.effect("a range is drawn from a source seeded by seed: the same seed, the same latencies, within the range", () =>
    Effect.gen(function*() {
      /** How long each of five answers took, on the TestClock, to 10 milliseconds. */
      const latencies = (seed: number) =>
        Effect.gen(function*() {
          const sandbox = yield* Sandbox.make({ designs: 10, seed, latency: { min: "100 millis", max: "900 millis" } })
          const http = Sandbox.httpClient(sandbox.app)
          return yield* Effect.forEach([1, 2, 3, 4, 5], () =>
            Effect.gen(function*() {
              const fiber = yield* forkChild(send(http, `${Sandbox.inProcessUrl}/nowhere`, { method: "GET" }))
              let waited = 0
              while (Option.isNone(yield* poll(fiber))) {
                yield* TestClock.adjust("10 millis")
                waited += 10
              }
              return waited
            }))
        })
      const first = yield* latencies(7)
      expect(first.every((ms) => ms >= 100 && ms <= 910), String(first)).toBe(true)
      expect(new Set(first).size).toBeGreaterThan(1)
      expect(yield* latencies(7)).toEqual(first)
      expect(yield* latencies(8)).not.toEqual(first)
    }))

  it("refuses, with a ConfigError naming latency, one that is no finite non-negative duration or a range without both ends in order", async () => {
    const bad = ([-1, "-1 second", [-1, 0], Number.NaN, Infinity, "soon", null] as Array<unknown>)
      .concat({ min: "2 seconds", max: "1 second" }, { min: "1 second" }, { max: "1 second" }, { min: -1, max: 5 })
    for (const latency of bad) {
      const exit = await Effect.runPromiseExit(Effect.suspend(() => Sandbox.make({ latency: latency as never })))
      const error = Exit.isFailure(exit) ? failureOption(exit.cause) : Option.none()
      expect(Option.map(error, configErrorPath), JSON.stringify(latency)).toEqual(Option.some(["latency"]))
    }
  })

  it.live("served, each answer waits the latency", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, latency: "300 millis" })
      const http = yield* undici
      const start = Date.now()
      const { status } = yield* send(http, `${served.url}/nowhere`, { method: "GET" })
      expect(status).toBe(404)
      expect(Date.now() - start).toBeGreaterThanOrEqual(300)
    })))
})
