/**
 * The served sandbox (`Sandbox.serve`): over loopback HTTP on an ephemeral port it answers the same
 * bytes as in process and the client reaches it, the `/__sandbox/*` control routes drive it, bad
 * control input gets spec-shaped errors without stopping it, and closing its scope stops it.
 */
import { catchDefect, clientErrorReason, FetchHttpClient, HttpClient } from "#edition/internal/seam"
import { HttpClientRequest, timeoutFail } from "#edition/internal/seam"
import { NodeHttpClient } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema, Stream } from "effect"
import * as Net from "node:net"
import { request as undiciRequest } from "undici"
import { ApiError, DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import * as Server from "../src/internal/sandbox/Server.js"
import { servedClient } from "./support/layers.js"
import { onSocket } from "./support/loopback.js"
import { call as callIn, counters, goodForm, send, tokenRequest } from "./support/rawSandbox.js"

const chair = Sandbox.fixedNumbers.chair
const form = new URLSearchParams(goodForm).toString()
const [owner] = Sandbox.samples.owners

/** `text` as JSON, or as it is when it is no JSON; nothing for an empty body. */
const parsed = (text: string): unknown => {
  if (text === "") return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: unknown
}

/** One raw HTTP exchange with the served sandbox. */
const call = (
  target: Sandbox.Served | string,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body?: string | Stream.Stream<Uint8Array>,
  headers: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)((typeof target === "string" ? target : target.url) + path, { headers })
    const request = body === undefined
      ? base
      : typeof body === "string"
      ? HttpClientRequest.bodyText(base, body, "application/json")
      : HttpClientRequest.bodyStream(base, body, { contentType: "application/json" })
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, headers: response.headers, body: parsed(text) } satisfies Answer
  }).pipe(Effect.provide(NodeHttpClient.layerUndici))

/**
 * One exchange with exactly the headers given (`host` and `content-type` included, none added but
 * `content-length` for a body): what a browser or a hostile page would send.
 */
const raw = (
  served: Sandbox.Served,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string
) =>
  Effect.promise(async () => {
    const response = await undiciRequest(served.url + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body })
    })
    const text = await response.body.text()
    const flat = Object.fromEntries(
      Object.entries(response.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v])
    )
    return { status: response.statusCode, headers: flat, body: parsed(text), text } satisfies Answer & { text: string }
  })

/** A token from the served sandbox's token endpoint, over HTTP. */
const tokenOf = (served: Sandbox.Served) =>
  Effect.map(
    raw(served, "POST", DesignSearchConfig.tokenPath, { "content-type": "application/x-www-form-urlencoded" }, form),
    (answer) => String((answer.body as { readonly access_token: string }).access_token)
  )

const decodeErrors = Schema.decodeUnknownSync(ApiError.ErrorPayload)

/** The spec-shaped errors of an answer: every object has an id, a code and a detail. */
const errorsOf = (answer: Answer) => {
  const { errors } = decodeErrors(answer.body)
  expect(errors.length).toBeGreaterThan(0)
  for (const error of errors) expect(typeof error.id).toBe("string")
  return errors
}

/** The exchanges compared: a token (less the token), searches, a design, a miss and refusals, with the sandbox at `at`. */
const exchanges = (client: HttpClient.HttpClient, at: string) =>
  Effect.map(
    Effect.all([
      send(client, tokenRequest(goodForm, at)),
      callIn(client, "/search/quick", { query: "chair", filters: { statusFilter: ["REGISTERED"] } }, at),
      callIn(client, "/page/advanced", { rows: [{ op: "AND", query: { owner } }], pageNumber: 0, pageSize: 5 }, at),
      callIn(client, `/design/${chair}`, undefined, at),
      callIn(client, "/design/ZZZ999", undefined, at),
      callIn(client, "/search/quick", { query: 1, colour: "red" }, at),
      send(client, HttpClientRequest.get(at + DesignSearchConfig.apiPath + "/search/quick"))
    ]),
    (answers) =>
      answers.map(({ headers, json, status, text }, i) => ({
        status,
        contentType: headers["content-type"],
        contentLength: headers["content-length"],
        text: i === 0 ? JSON.stringify({ ...json, access_token: undefined }) : text
      }))
  )

const statsOf = (served: Sandbox.Served) =>
  Effect.map(call(served, "GET", "/__sandbox/stats"), (answer) => {
    expect(answer.status).toBe(200)
    return answer.body as Sandbox.Stats
  })

describe("Sandbox.serve", () => {
  it.live("serves the sandbox on an ephemeral loopback port; the client searches and gets over HTTP", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      expect(served.port).toBeGreaterThan(0)
      expect(served.url).toBe(`http://127.0.0.1:${served.port}`)
      expect(served.baseUrl).toBe(served.url + DesignSearchConfig.apiPath)
      const client = yield* servedClient(served)
      const { data } = yield* client.quickSearch({ query: "chair" })
      expect(data.designNumbers).toContain(chair)
      const { data: design } = yield* client.getDesign(chair)
      expect(design).toMatchObject({ number: chair, title: "Chair", status: "REGISTERED" })
      expect(yield* statsOf(served)).toEqual(counters({ token: 1, search: 1, design: 1 }))
    })))

  it.live("answers the same bytes over loopback as in process, on the port it reports", () =>
    Effect.scoped(Effect.gen(function*() {
      const inProcess = yield* Sandbox.make()
      const expected = yield* exchanges(Sandbox.httpClient(inProcess.app), Sandbox.inProcessUrl)
      const served = yield* Server.serve(yield* Sandbox.make(), { port: 0 })
      expect(served.clientOptions).toEqual({
        clientId: "sandbox-client",
        clientSecret: "sandbox-secret",
        authUrl: served.url,
        baseUrl: served.baseUrl
      })
      const got = yield* exchanges(yield* HttpClient.HttpClient, served.url)
      expect(got.map((e) => e.status)).toEqual([200, 200, 200, 200, 404, 422, 401])
      expect(got[1]?.contentLength).toBe(String(Buffer.byteLength(got[1]?.text ?? "")))
      expect(got).toEqual(expected)
    })).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("a reset drops the connection before a byte; a reset mid-body sends the headers and half the body", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const get = `GET ${DesignSearchConfig.apiPath}/design/${chair} HTTP/1.1\r\nhost: 127.0.0.1:${served.port}\r\n\r\n`
      yield* served.control.injectFault({ target: "design", status: 503, kind: "reset" })
      expect(yield* onSocket(served.port, get)).toBe("")
      yield* served.control.injectFault({ target: "design", status: 503, kind: "resetMidBody" })
      const [head, body] = (yield* onSocket(served.port, get)).split("\r\n\r\n")
      const length = Number(/content-length: (\d+)/i.exec(head ?? "")?.[1])
      expect(head).toMatch(/^HTTP\/1\.1 503 /)
      expect(length).toBeGreaterThan(0)
      expect(body?.length).toBe(Math.floor(length / 2))
      expect((yield* served.control.stats).requests.design).toBe(2)
    })))

  it.live("a fault injected over HTTP reaches the client as its typed error, once", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const client = yield* servedClient(served)
      const injected = yield* call(
        served,
        "POST",
        "/__sandbox/faults",
        JSON.stringify({ target: "design", status: 500 })
      )
      expect(injected.status).toBe(201)
      expect(injected.body).toEqual({ data: { target: "design", status: 500, count: 1 } })
      const error = yield* Effect.flip(client.getDesign(chair))
      expect(error._tag).toBe("ServerError")
      if (error._tag === "ServerError") {
        expect(error.status).toBe(500)
        expect(error.errors[0]).toMatchObject({ code: "500" })
      }
      expect((yield* client.getDesign(chair)).data.number).toBe(chair)

      yield* call(served, "POST", "/__sandbox/faults", JSON.stringify({ target: "search", status: 403, count: 1 }))
      const forbidden = yield* Effect.flip(client.quickSearch({ query: "chair" }))
      expect(forbidden._tag).toBe("ForbiddenError")
    })))

  it.live("stats count the work; revoking tokens makes the client fetch a new one; reset drops faults and counters", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const client = yield* servedClient(served)
      yield* client.quickSearch({ query: "chair" })
      expect(yield* statsOf(served)).toEqual(counters({ token: 1, search: 1 }))
      expect(yield* statsOf(served)).toEqual(yield* served.control.stats)

      const revoked = yield* call(served, "POST", "/__sandbox/revoke-tokens")
      expect(revoked.status).toBe(204)
      yield* client.quickSearch({ query: "chair" })
      // The revoked token got a 401; the client fetched a second token and tried again.
      expect(yield* statsOf(served)).toEqual(counters({ token: 2, search: 3 }))

      yield* call(served, "POST", "/__sandbox/faults", JSON.stringify({ target: "any", status: 503, count: 100 }))
      const reset = yield* call(served, "POST", "/__sandbox/reset")
      expect(reset.status).toBe(204)
      expect(yield* statsOf(served)).toEqual(counters())
      // The fault is gone, and so is the token: the client is answered 401, refreshes, and succeeds.
      const { data } = yield* client.getDesign(chair)
      expect(data.number).toBe(chair)
      expect((yield* statsOf(served)).tokensIssued).toBe(1)
    })))

  it.live("POST /__sandbox/touch amends the designs named; an unknown one is a 422 naming it, other bodies 415 or 422", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const client = yield* servedClient(served)
      const bottle = Sandbox.fixedNumbers.bottle
      const touched = yield* call(served, "POST", "/__sandbox/touch", JSON.stringify({ numbers: [chair] }))
      expect(touched.status).toBe(204)
      expect((yield* client.getDesign(chair)).data.title).toMatch(/ \(amended\)$/)
      const today = new Date().toISOString().slice(0, 10)
      expect((yield* client.quickSearch({ query: "amended", changedSinceDate: today })).data.designNumbers)
        .toEqual([chair])

      const unknown = yield* call(served, "POST", "/__sandbox/touch", JSON.stringify({ numbers: [bottle, "123"] }))
      expect(unknown.status).toBe(422)
      expect(unknown.body).toMatchObject({
        errors: [{ code: "UNKNOWN_DESIGN", detail: "no design numbered 123", source: { pointer: "/numbers/1" } }]
      })
      expect((yield* client.getDesign(bottle)).data.title).not.toMatch(/amended/)
      const extra = yield* call(served, "POST", "/__sandbox/touch", JSON.stringify({ numbers: [], also: 1 }))
      expect(extra.status).toBe(422)
      const plain = yield* raw(served, "POST", "/__sandbox/touch", { "content-type": "text/plain" }, "{\"numbers\":[]}")
      expect(plain.status).toBe(415)
    })))

  it.live("bad control input gets a spec-shaped error with a fitting status, and the server keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const faults = (body: string | Stream.Stream<Uint8Array>) => call(served, "POST", "/__sandbox/faults", body)
      const code = (code: string) => (errors: ReadonlyArray<ApiError.ErrorObject>) =>
        expect(errors[0]).toMatchObject({ code })
      const pointers = (...pointers: Array<string>) => (errors: ReadonlyArray<ApiError.ErrorObject>) =>
        expect(errors.map((e) => e.source?.pointer).sort()).toEqual(pointers)
      const allow = (methods: string) => (_: unknown, answer: Answer) => expect(answer.headers["allow"]).toBe(methods)
      const chunks = Array.from({ length: 32 }, () => new TextEncoder().encode("y".repeat(64 * 1024)))
      type Check = (errors: ReadonlyArray<ApiError.ErrorObject>, answer: Answer) => void
      const cases: ReadonlyArray<readonly [string, Effect.Effect<Answer, unknown>, number, Check]> = [
        ["broken JSON", faults("{\"target\": \"search\", "), 400, code("MALFORMED_JSON")],
        ["unknown target", faults(JSON.stringify({ target: "teapot", status: 500 })), 422, pointers("/target")],
        [
          "status out of range and an unknown field",
          faults(JSON.stringify({ target: "search", status: 99, colour: "red" })),
          422,
          pointers("/colour", "/status")
        ],
        ["huge body with Content-Length", faults("x".repeat(2 * 1024 * 1024)), 413, code("PAYLOAD_TOO_LARGE")],
        ["huge chunked body", faults(Stream.fromIterable(chunks)), 413, () => undefined],
        ["wrong method on faults", call(served, "GET", "/__sandbox/faults"), 405, allow("POST")],
        ["wrong method on stats", call(served, "DELETE", "/__sandbox/stats"), 405, allow("GET, HEAD")],
        ["unknown control route", call(served, "POST", "/__sandbox/explode"), 404, () => undefined]
      ]
      for (const [name, sent, status, check] of cases) {
        const answer = yield* sent
        expect(answer.status, name).toBe(status)
        check(errorsOf(answer), answer)
        // Still serving, and nothing was injected.
        expect((yield* statsOf(served)).requests, name).toEqual(counters().requests)
      }
      const client = yield* servedClient(served)
      expect((yield* client.getDesign(chair)).data.number).toBe(chair)
    })))

  it.live("the service routes keep their own body limit when served", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, maxRequestBytes: 1024 })
      const authorization = `Bearer ${yield* tokenOf(served)}`
      const search = (query: string) =>
        call(served, "POST", DesignSearchConfig.apiPath + "/search/quick", JSON.stringify({ query }), { authorization })
      const answer = yield* search("x".repeat(4096))
      expect(answer.status).toBe(413)
      expect(errorsOf(answer)[0]).toMatchObject({ code: "PAYLOAD_TOO_LARGE" })
      expect((yield* search("chair")).status).toBe(200)
    })))

  it.live("only loopback hosts and real ports are accepted", () =>
    Effect.scoped(Effect.gen(function*() {
      for (const host of ["0.0.0.0", "example.com", "10.0.0.1"]) {
        const error = yield* Effect.flip(Sandbox.serve({ port: 0, host }))
        expect(error._tag).toBe("ConfigError")
        expect(String(error)).toContain("loopback")
      }
      const badPort = yield* Effect.flip(Sandbox.serve({ port: 70_000 }))
      expect(badPort._tag).toBe("ConfigError")
      expect(String(badPort)).toContain("port must be an integer from 0 to 65535, got 70000")
      const served = yield* Sandbox.serve({ port: 0, host: "127.0.0.2" })
      expect(served.url).toBe(`http://127.0.0.2:${served.port}`)
      const six = yield* Sandbox.serve({ port: 0, host: "[::1]" })
      expect(six.url).toBe(`http://[::1]:${six.port}`)
    })))

  it.live("a port in use is a ServeError", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      expect((yield* Effect.flip(Sandbox.serve({ port: served.port })))._tag).toBe("ServeError")
      const other = yield* Sandbox.serve({ port: 0, host: "127.0.0.2" })
      expect((yield* Effect.flip(Sandbox.serve({ port: other.port, host: "127.0.0.2" })))._tag).toBe("ServeError")
    })))

  it.live("closing the scope stops the server promptly, even with a keep-alive connection open", () =>
    Effect.scoped(Effect.gen(function*() {
      // This client outlives the server, so its pooled connection is still open when the server closes.
      const http = Layer.succeed(HttpClient.HttpClient, yield* HttpClient.HttpClient)
      const url = yield* Effect.scoped(
        Effect.gen(function*() {
          const served = yield* Sandbox.serve({ port: 0 })
          const client = Context.get(
            yield* Layer.build(
              DesignSearchClient.layer().pipe(
                Layer.provide(DesignSearchConfig.layer(served.clientOptions)),
                Layer.provide(http)
              )
            ),
            DesignSearchClient.DesignSearchClient
          )
          yield* client.quickSearch({ query: "chair" })
          return served.url
        })
      ).pipe(
        timeoutFail({ duration: "2 seconds", onTimeout: () => "the server did not close within 2 seconds" })
      )
      const after = yield* Effect.flip(call(url, "GET", "/__sandbox/stats"))
      expect(clientErrorReason(after).name).toBe("Transport")
      const refused = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          const socket = Net.connect(Number(new URL(url).port), "127.0.0.1", () => resolve("connected"))
          socket.on("error", (error: Error & { code?: string }) => resolve(error.code ?? "error"))
        })
      )
      expect(refused).toBe("ECONNREFUSED")
    })).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("Sandbox.serve answers only its own address, and control only from no page but its own", () => {
  const designPath = (number: string) => `${DesignSearchConfig.apiPath}/design/${number}`
  const json = { "content-type": "application/json" }
  const faultBody = JSON.stringify({ target: "design", status: 503 })

  /** Every route, as a page would reach it: each with what it needs to succeed but the right Host or Origin. */
  interface Route {
    readonly method: string
    readonly path: string
    readonly headers: Record<string, string>
    readonly body?: string
  }

  const everyRoute = (token: string): ReadonlyArray<Route> => {
    const bearer = { authorization: `Bearer ${token}` }
    return [
      { method: "POST", path: "/__sandbox/reset", headers: {} },
      { method: "POST", path: "/__sandbox/revoke-tokens", headers: {} },
      { method: "POST", path: "/__sandbox/faults", headers: json, body: faultBody },
      { method: "POST", path: "/__sandbox/touch", headers: json, body: JSON.stringify({ numbers: [chair] }) },
      { method: "GET", path: "/__sandbox/stats", headers: {} },
      { method: "GET", path: designPath(chair), headers: bearer },
      {
        method: "POST",
        path: DesignSearchConfig.apiPath + "/search/quick",
        headers: { ...bearer, ...json },
        body: JSON.stringify({ query: "chair" })
      },
      {
        method: "POST",
        path: DesignSearchConfig.tokenPath,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form
      }
    ]
  }

  /** Nothing was reset, revoked or injected: the token still reads the design, with no fault in the way. */
  const untouched = (served: Sandbox.Served, token: string) =>
    Effect.gen(function*() {
      expect((yield* served.control.stats).tokensIssued).toBe(1)
      const design = yield* raw(served, "GET", designPath(chair), { authorization: `Bearer ${token}` })
      expect(design.status).toBe(200)
    })

  it.live("a Host other than the sandbox's address (DNS rebinding) gets a spec-shaped 421 on every route", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const token = yield* tokenOf(served)
      const foreign = ["evil.example", `evil.example:${served.port}`, `192.168.0.10:${served.port}`, "127.0.0.1"]
        .concat("localhost", "127.0.0.1:1", `localhost.evil.example:${served.port}`)
      for (const host of foreign) {
        for (const route of everyRoute(token)) {
          const answer = yield* raw(served, route.method, route.path, { ...route.headers, host }, route.body)
          const what = `${route.method} ${route.path} with Host ${host}`
          expect(answer.status, what).toBe(421)
          expect(answer.headers["content-type"], what).toMatch(/^application\/json/)
          expect(errorsOf(answer)[0], what).toMatchObject({ code: "MISDIRECTED_REQUEST" })
        }
      }
      // None of them reached the sandbox: no request counted, nothing reset, revoked or injected.
      expect((yield* served.control.stats).requests).toEqual(counters({ token: 1 }).requests)
      yield* untouched(served, token)
      for (const host of [`127.0.0.1:${served.port}`, `localhost:${served.port}`, `LocalHost:${served.port}`]) {
        expect((yield* raw(served, "GET", "/__sandbox/stats", { host })).status, host).toBe(200)
      }
    })))

  it.live("a request without Host, or whose absolute-form target names another authority, gets a spec-shaped 421", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const own = `127.0.0.1:${served.port}`
      for (
        const request of [
          `GET /__sandbox/stats HTTP/1.1\r\nconnection: close\r\n\r\n`,
          `GET http://evil.example/__sandbox/stats HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
          `GET http://evil.example:${served.port}${
            designPath(chair)
          } HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
          // a user or another scheme in the target is not the sandbox's address, whatever Host says
          `GET http://user@${own}/__sandbox/stats HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
          `GET http://@${own}/__sandbox/stats HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
          `GET http://:@${own}/__sandbox/stats HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
          `POST https://${own}/__sandbox/reset HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
          `POST https://${own}/__sandbox/reset HTTP/1.1\r\nhost: evil.example\r\nconnection: close\r\n\r\n`
        ]
      ) {
        const answer = yield* onSocket(served.port, request)
        expect(answer, request).toMatch(/^HTTP\/1\.1 421 /)
        expect(answer, request).toContain("MISDIRECTED_REQUEST")
      }
      const absolute = yield* onSocket(
        served.port,
        `GET http://${own}/__sandbox/stats HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`
      )
      expect(absolute).toMatch(/^HTTP\/1\.1 200 /)
    })))

  it.live("a CONNECT gets a spec-shaped 405, and the sandbox keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const own = `127.0.0.1:${served.port}`
      const answer = yield* onSocket(served.port, `CONNECT ${own} HTTP/1.1\r\nhost: ${own}\r\n\r\n`)
      expect(answer).toMatch(/^HTTP\/1\.1 405 /)
      expect(answer).toContain("METHOD_NOT_ALLOWED")
      const stats = yield* onSocket(
        served.port,
        `GET /__sandbox/stats HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`
      )
      expect(stats).toMatch(/^HTTP\/1\.1 200 /)
    })))

  it.live("a request naming its Host twice is a spec-shaped 400, whichever comes first", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const own = `127.0.0.1:${served.port}`
      for (const [first, second] of [[own, "evil.example"], ["evil.example", own], [own, own]]) {
        const request =
          `GET /__sandbox/stats HTTP/1.1\r\nhost: ${first}\r\nhost: ${second}\r\nconnection: close\r\n\r\n`
        const answer = yield* onSocket(served.port, request)
        expect(answer, request).toMatch(/^HTTP\/1\.1 400 /)
        expect(answer, request).toContain("DUPLICATE_HOST")
      }
      expect((yield* raw(served, "GET", "/__sandbox/stats")).status).toBe(200)
    })))

  it.live("a fault whose JSON body nests 5,000 levels is a spec-shaped 422, and the sandbox keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const deep = "[".repeat(5000) + "]".repeat(5000)
      const answer = yield* raw(
        served,
        "POST",
        "/__sandbox/faults",
        { "content-type": "application/json" },
        `{"target":"search","status":500,"body":${deep}}`
      )
      expect(answer.status).toBe(422)
      expect(errorsOf(answer)[0]).toMatchObject({
        detail: "body nests deeper than 1000 levels; send a deeper one as a string",
        source: { pointer: "/body" }
      })
      expect((yield* raw(served, "GET", "/__sandbox/stats")).status).toBe(200)
      const asText = yield* raw(
        served,
        "POST",
        "/__sandbox/faults",
        { "content-type": "application/json" },
        JSON.stringify({ target: "search", status: 500, body: deep })
      )
      expect(asText.status).toBe(201)
    })))

  it.live("the address bound and [::1] with the bound port are the sandbox's own Host", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, host: "127.0.0.2" })
      for (const host of [`127.0.0.2:${served.port}`, `[::1]:${served.port}`, `127.0.0.1:${served.port}`]) {
        expect((yield* raw(served, "GET", "/__sandbox/stats", { host })).status, host).toBe(200)
      }
      expect((yield* raw(served, "GET", "/__sandbox/stats", { host: `127.0.0.3:${served.port}` })).status).toBe(421)
    })))

  it.live("a control request from a page (an Origin other than the sandbox's own) gets a spec-shaped 403", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const token = yield* tokenOf(served)
      const foreign = ["http://evil.example", "null", "http://127.0.0.1:1", `https://127.0.0.1:${served.port}`]
      const control = everyRoute(token).filter((route) => route.path.startsWith("/__sandbox/"))
      for (const origin of foreign) {
        for (const route of control) {
          const answer = yield* raw(served, route.method, route.path, { ...route.headers, origin }, route.body)
          const what = `${route.method} ${route.path} from ${origin}`
          expect(answer.status, what).toBe(403)
          expect(errorsOf(answer)[0], what).toMatchObject({ code: "FORBIDDEN_ORIGIN" })
        }
        // A simple cross-origin form POST, as a page sends it without asking.
        const form = yield* raw(served, "POST", "/__sandbox/reset", {
          origin,
          "content-type": "application/x-www-form-urlencoded"
        }, "a=b")
        expect(form.status).toBe(403)
      }
      yield* untouched(served, token)
      // The sandbox's own origin, under any of its names, and no Origin at all (a tool, not a page) are served.
      for (const origin of [`http://127.0.0.1:${served.port}`, `http://localhost:${served.port}`]) {
        expect((yield* raw(served, "POST", "/__sandbox/faults", { ...json, origin }, faultBody)).status).toBe(201)
      }
      expect((yield* raw(served, "POST", "/__sandbox/reset")).status).toBe(204)
      expect((yield* served.control.stats).tokensIssued).toBe(0)
    })))

  it.live("faults takes application/json only (parameters allowed): any other body is a spec-shaped 415", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const token = yield* tokenOf(served)
      const types = ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded"]
        .concat("multipart/form-data; boundary=x", "application/jsonp", "application/problem+json", "")
      const refused: ReadonlyArray<Record<string, string>> = [{}, ...types.map((type) => ({ "content-type": type }))]
      for (const headers of refused) {
        const answer = yield* raw(served, "POST", "/__sandbox/faults", headers, faultBody)
        const what = `Content-Type ${JSON.stringify(headers["content-type"])}`
        expect(answer.status, what).toBe(415)
        expect(errorsOf(answer)[0], what).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" })
      }
      yield* untouched(served, token)
      for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"]) {
        expect((yield* raw(served, "POST", "/__sandbox/faults", { "content-type": type }, faultBody)).status, type)
          .toBe(201)
      }
    })))
})

describe("Sandbox.serve answers HEAD like GET", () => {
  const designPath = (number: string) => `${DesignSearchConfig.apiPath}/design/${number}`

  it.live("the same status and headers, Content-Length included, and no body, on every GET route", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const token = yield* tokenOf(served)
      const bearer = { authorization: `Bearer ${token}` }
      const routes: ReadonlyArray<{ path: string; headers: Record<string, string>; status: number }> = [
        { path: "/__sandbox/stats", headers: {}, status: 200 },
        { path: designPath(chair), headers: bearer, status: 200 },
        { path: designPath("000000000"), headers: bearer, status: 404 },
        { path: designPath("not-a-number"), headers: bearer, status: 400 },
        { path: designPath(chair), headers: {}, status: 401 }
      ]
      for (const route of routes) {
        const head = yield* raw(served, "HEAD", route.path, route.headers)
        const get = yield* raw(served, "GET", route.path, route.headers)
        expect(get.status, route.path).toBe(route.status)
        expect(head.status, route.path).toBe(get.status)
        expect(head.text, route.path).toBe("")
        for (const name of ["content-type", "cache-control", "www-authenticate"]) {
          expect(head.headers[name], `${route.path}: ${name}`).toBe(get.headers[name])
        }
        // Error ids count up (sbx-2, sbx-3, ...), one character each this early: the same length.
        expect(head.headers["content-length"], route.path).toMatch(/^[1-9]\d*$/)
        expect(head.headers["content-length"], route.path).toBe(get.headers["content-length"])
      }
      // A HEAD is a request like a GET: counted the same.
      expect((yield* served.control.stats).requests.design).toBe(8)
      const faults = yield* raw(served, "HEAD", "/__sandbox/faults")
      expect(faults.status).toBe(405)
      expect(faults.headers["allow"]).toBe("POST")
      expect(faults.text).toBe("")
    })))

  it.live("a reset fault drops a HEAD's connection as it drops a GET's; a reset mid-body sends its headers", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const head = raw(served, "HEAD", designPath(chair)).pipe(
        Effect.map((answer) => answer.status),
        catchDefect((defect) => Effect.succeed(String(defect)))
      )
      yield* served.control.injectFault({ target: "design", status: 503, kind: "reset" })
      expect(yield* head).toMatch(/other side closed/)
      yield* served.control.injectFault({ target: "design", status: 503, kind: "resetMidBody" })
      expect(yield* head).toBe(503)
      expect(yield* head).toBe(401)
      expect((yield* raw(served, "GET", "/__sandbox/stats")).status).toBe(200)
    })))
})
