/**
 * Cassettes (`Sandbox.layerCassette`, `src/core/sandbox/cassette.ts`, `cassetteFile.ts`): a served sandbox stands in for the
 * service; what is recorded replays the same answers with no request to it, a request the cassette
 * lacks names the closest recorded one, and no cassette holds the secret or a token, whatever the
 * service echoes. The CLI's `record` and `sandbox --cassette`: cassette.effect3.test.ts.
 */
import { HttpClient, HttpClientRequest, HttpClientResponse, requestError } from "#edition/internal/seam"
import { configErrorPath, edition, withEnv } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schedule } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as path from "node:path"
import { maskOf } from "../src/core/mask/mask.js"
import * as Core from "../src/core/sandbox/cassette.js"
import * as CassetteFile from "../src/core/sandbox/cassetteFile.js"
import { DesignSearchClient, DesignSearchConfig, Sandbox, TokenService } from "../src/index.js"
import { listening } from "./support/loopback.js"
import { tempFile } from "./support/rawSandbox.js"

/** A configuration that points at `origin` with `secret`. */
const configAt = (origin: string, clientId: string, clientSecret: string) =>
  DesignSearchConfig.layer({ clientId, clientSecret, authUrl: origin, baseUrl: origin + DesignSearchConfig.apiPath })

/** A `ConfigError`'s path and message, as `toMatchObject` compares them. */
const refusalOf = (error: Parameters<typeof configErrorPath>[0]) => ({
  _tag: error._tag,
  path: configErrorPath(error),
  message: error.message
})

/** A client over `cassette` that tries nothing twice. */
const clientOver = (
  cassette: Layer.Layer<HttpClient.HttpClient | Sandbox.SandboxControl | DesignSearchConfig.DesignSearchConfig, unknown>
) =>
  Layer.effect(DesignSearchClient.DesignSearchClient, DesignSearchClient.make({ retrySchedule: Schedule.recurs(0) }))
    .pipe(
      Layer.provideMerge(TokenService.layer({ retrySchedule: Schedule.recurs(0) })),
      Layer.provideMerge(Layer.orDie(cassette))
    )

const client = DesignSearchClient.DesignSearchClient
const work = Effect.flatMap(client, (c) =>
  Effect.all([
    c.quickSearch({ query: "chair", filters: { statusFilter: ["REGISTERED"] } }),
    c.getDesign(Sandbox.fixedNumbers.chair),
    c.searchPage({ rows: [{ op: "AND", query: { owner: Sandbox.samples.owners[0] } }], pageNumber: 0, pageSize: 5 })
  ]))

describe("core/cassette", () => {
  it("matches by canonical JSON, ignores the named fields, and names the closest request on a miss", () => {
    expect(Core.canonical({ b: [{ d: 1, c: 2 }], a: "x" })).toBe(`{"a":"x","b":[{"c":2,"d":1}]}`)
    const recorded = Core.requestOf("POST", "/s", JSON.stringify({ query: "chair", changedSinceDate: "2020-01-01" }))
    const player = Core.player({ version: 1, exchanges: [] }, new Set(["changedSinceDate"]))
    expect(player.add({ request: recorded, response: { status: 200, headers: {}, body: { n: 1 } } })).toBe(true)
    expect(player.add({ request: recorded, response: { status: 200, headers: {}, body: { n: 1 } } })).toBe(false)
    player.add({ request: recorded, response: { status: 200, headers: {}, body: { n: 2 } } })
    const again = { method: "POST", path: "/s", body: { changedSinceDate: "2024-05-05", query: "chair" } }
    expect([player.play(again), player.play(again), player.play(again)].map((e) => e?.response.body)).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 2 }
    ])
    player.rewind()
    expect(player.play(again)?.response.body).toEqual({ n: 1 })
    const table = { method: "POST", path: "/s", body: { query: "table" } }
    expect(player.play(table)).toBeUndefined()
    expect(Core.missOf(player.cassette(), table, new Set(["changedSinceDate"]))).toBe(
      "the cassette holds no POST /s with this body; the closest, exchange 1 (POST /s), differs at " +
        `query: recorded "chair", sent "table"`
    )
    expect(Core.missOf(player.cassette(), { method: "GET", path: "/t" }, new Set())).toContain(
      "; path: recorded /s, sent /t"
    )
  })

  it("reads only version 1 files whose answers can be sent, and writes one exchange per entry", () => {
    expect(CassetteFile.read(`{"version":2,"exchanges":[]}`)).toContain("version")
    expect(CassetteFile.read("nope")).toContain("not JSON")
    const good = {
      version: 1,
      exchanges: [{ request: { method: "GET", path: "/" }, response: { status: 204, headers: {} } }]
    }
    expect(CassetteFile.read(CassetteFile.write(good as Core.Cassette))).toEqual(good)
    expect(CassetteFile.write(good as Core.Cassette).split("\n").length).toBeGreaterThan(10)
    const [first] = good.exchanges as ReadonlyArray<Core.Exchange>
    const second: Core.Exchange = {
      request: { method: "GET", path: "/x" },
      response: { status: 200, headers: {}, text: "ok" }
    }
    const both: Core.Cassette = { version: 1, exchanges: [first!, second] }
    const { cut, text } = CassetteFile.appended(second)
    expect(CassetteFile.write(good as Core.Cassette).slice(0, -cut) + text).toBe(CassetteFile.write(both))
    expect(JSON.parse(CassetteFile.write(both))).toEqual(both)
  })
})

describe("core/cassette, the file's checks and the recording's rules", () => {
  const file = (exchange: object, top: object = {}) =>
    JSON.stringify({
      version: 1,
      exchanges: [{ request: { method: "GET", path: "/x" }, response: { status: 200, headers: {} }, ...exchange }],
      ...top
    })
  const answer = (response: object) => file({ response: { status: 200, headers: {}, ...response } })

  it("names the exchange, the field and the reason of a file that cannot be replayed as it is", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [answer({ status: 999 }), "exchange 1: response.status: expected a status from 200 to 599, found 999"],
      [answer({ status: 204, body: { a: 1 } }), "exchange 1: response: a 204 answer has no body and no text"],
      [answer({ body: {}, text: "t" }), "exchange 1: response: holds a body and a text"],
      [answer({ zzz: 2 }), "exchange 1: response.zzz: not a field a cassette has (only status, headers, body, text)"],
      [file({ response: { status: 200 } }), "exchange 1: response.headers: missing"],
      [answer({ text: 1 }), "exchange 1: response.text: expected a text"],
      [file({ request: { method: "get", path: "/x" } }), "exchange 1: request.method: expected a method in capitals"],
      [file({ request: { method: "GET", path: "x" } }), "exchange 1: request.path: expected a path that starts with /"],
      [
        file({ request: { method: "GET", path: "/x", headers: { authorization: "Bearer t" } } }),
        "exchange 1: request.headers: not a field a cassette has (only method, path, body)"
      ],
      [file({}, { extra: 1 }), "extra: not a field a cassette has"],
      [answer({ headers: { x: "a\r\nb: c" } }), `exchange 1: response.headers["x"]: expected a text of one line`],
      [answer({ headers: { x: "\u2603" } }), `exchange 1: response.headers["x"]: expected a text of one line`],
      [answer({ headers: { "bad name": "a" } }), `response.headers["bad name"]: expected a header name in lower case`],
      [answer({ headers: { "Content-Type": "a" } }), "expected a header name in lower case"],
      [answer({ headers: { "set-cookie": "sid=1" } }), `response.headers["set-cookie"]: never replayed`],
      [answer({ headers: { "content-length": "9" } }), `response.headers["content-length"]: never replayed`],
      [answer({ headers: { x: 1 } }), `response.headers["x"]: expected a text`],
      [answer({ body: JSON.parse("[".repeat(2000) + "]".repeat(2000)) }), "nests deeper than 1000 levels"]
    ]
    for (const [text, why] of cases) expect(CassetteFile.read(text), text.slice(0, 200)).toContain(why)
    const good = answer({ headers: { "content-type": "text/plain; charset=é" }, text: "hi" })
    expect(CassetteFile.read("\uFEFF" + good)).toEqual(JSON.parse(good))
  })

  it("matches a query whatever the order of its parameters, the values of a repeated one in their order", () => {
    const player = Core.player({ version: 1, exchanges: [] }, new Set())
    player.add({
      request: { method: "GET", path: "/x?b=2&a=1&a=0" },
      response: { status: 200, headers: {}, text: "hit" }
    })
    expect(player.play({ method: "GET", path: "/x?a=1&b=2&a=0" })?.response.text).toBe("hit")
    expect(player.play({ method: "GET", path: "/x?a=0&a=1&b=2" })).toBeUndefined()
    expect(Core.missOf(player.cassette(), { method: "GET", path: "/x?a=1&a=0&b=3" }, new Set())).toContain(
      "path: recorded /x?b=2&a=1&a=0, sent /x?a=1&a=0&b=3"
    )
  })

  it("a miss names the body sent when it is not JSON", () => {
    const player = Core.player({ version: 1, exchanges: [] }, new Set())
    player.add({
      request: { method: "POST", path: "/s", body: { query: "chair" } },
      response: { status: 204, headers: {} }
    })
    const sent = Core.requestOf("POST", "/s", "not json at all")
    expect(player.play(sent)).toBeUndefined()
    expect(Core.missOf(player.cassette(), sent, new Set(), "not json at all")).toBe(
      "the cassette holds no POST /s with this body; the closest, exchange 1 (POST /s), differs at " +
        `body: recorded {"query":"chair"}, sent "not json at all", not JSON`
    )
  })

  it("every token field of an answer is the placeholder, and its token is masked after, twice encoded too", () => {
    const answer = JSON.stringify({
      access_token: "acc-1",
      refresh_token: "ref-2",
      id_token: "idt-3",
      token_type: "Bearer",
      session: { token: "ses-4", idToken: "idt-5" }
    })
    expect(Core.tokensOf(answer)).toEqual(["acc-1", "ref-2", "idt-3", "ses-4", "idt-5"])
    expect(Core.responseOf(200, {}, answer).body).toEqual({
      access_token: Core.placeholderToken,
      refresh_token: Core.placeholderToken,
      id_token: Core.placeholderToken,
      token_type: "Bearer",
      session: { token: Core.placeholderToken, idToken: Core.placeholderToken }
    })
    const secret = "Zq9+Secret/Value=="
    const form = new URLSearchParams({ client_secret: secret, refresh_token: "ref-2" }).toString()
    const reflected = `https://service.example/x?form=${encodeURIComponent(form)}`
    expect(reflected).toContain("Zq9%252BSecret")
    const masked = maskOf([secret, "ref-2"]).text(reflected)
    expect(masked).not.toMatch(/Zq9|ref-2/)
  })
})

describe("Sandbox.layerCassette", () => {
  it.live("records a service once and replays it with no request to it, faults and stats over it", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const served = yield* Sandbox.serve({ port: 0, clientSecret: "real-secret-81d" })
      // The configuration from the variables (`DesignSearchConfig.layerConfig`), as none is given to the layer.
      const recorded = yield* Effect.provide(work, clientOver(Sandbox.layerCassette(file, { mode: "record" }))).pipe(
        withEnv({
          IPAUSTRALIA_CLIENT_ID: served.sandbox.clientId,
          IPAUSTRALIA_CLIENT_SECRET: served.sandbox.clientSecret,
          IPAUSTRALIA_AUTH_URL: served.url,
          IPAUSTRALIA_BASE_URL: served.baseUrl
        })
      )
      const asked = yield* served.control.stats
      expect(asked.requests).toMatchObject({ token: 1, search: 1, design: 1, page: 1 })
      const text = fs.readFileSync(file, "utf8")
      expect(text).not.toContain("real-secret-81d")
      expect(text).toContain(`"access_token": "${Core.placeholderToken}"`)
      expect(text).not.toMatch(/authorization/i)
      expect((CassetteFile.read(text) as Core.Cassette).exchanges).toHaveLength(4)

      // Replayed with the service still up and a network client at hand: neither is asked anything.
      let sent = 0
      const network = HttpClient.make((request) =>
        Effect.fail(requestError(request, "Transport", { description: `${++sent}` }))
      )
      const replay = clientOver(
        Sandbox.layerCassette(file, { mode: "replay" }).pipe(
          Layer.provide(Layer.merge(configAt(served.url, "x", "y"), Layer.succeed(HttpClient.HttpClient, network)))
        )
      )
      expect(yield* Effect.provide(work, replay)).toEqual(recorded)
      const missed = yield* Effect.flip(
        Effect.provide(Effect.flatMap(client, (c) => c.quickSearch({ query: "table" })), replay)
      )
      expect(missed).toMatchObject({
        _tag: "ServerError",
        status: 501,
        errors: [{
          code: "CASSETTE_MISS",
          detail: expect.stringContaining(`query: recorded "chair", sent "table"`)
        }]
      })
      expect(missed).toMatchObject({
        errors: [{ detail: expect.stringContaining(`exchange 2 (POST ${DesignSearchConfig.apiPath}/search/quick)`) }]
      })
      expect(yield* served.control.stats).toEqual(asked)
      expect(sent).toBe(0)

      // Faults and counters work over the replayed answers.
      yield* Effect.gen(function*() {
        const control = yield* Sandbox.SandboxControl
        yield* control.injectFault({ target: "search", status: 503 })
        const failed = yield* Effect.flip(Effect.flatMap(client, (c) => c.quickSearch({ query: "chair" })))
        expect(failed).toMatchObject({ _tag: "ServerError", status: 503 })
        expect((yield* control.stats).requests.search).toBe(1)
        expect(yield* Effect.flip(control.touch([Sandbox.fixedNumbers.chair]))).toMatchObject({
          _tag: "UnknownDesignsError"
        })
        yield* control.revokeTokens
        yield* control.reset
        expect((yield* control.stats).requests.search).toBe(0)
        expect((yield* work)[0]).toEqual(recorded[0])
      }).pipe(Effect.provide(replay))
    })))

  it.live("auto replays what the file holds and records only what it lacks", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const served = yield* Sandbox.serve({ port: 0 })
      const auto = clientOver(
        Sandbox.layerCassette(file, { mode: "auto" }).pipe(
          Layer.provide(DesignSearchConfig.layer(served.clientOptions))
        )
      )
      const quick = Effect.flatMap(client, (c) => c.quickSearch({ query: "chair" }))
      yield* Effect.provide(quick, auto)
      yield* Effect.provide(Effect.all([quick, Effect.flatMap(client, (c) => c.quickSearch({ query: "lamp" }))]), auto)
      expect((yield* served.control.stats).requests.search).toBe(2)
      const { exchanges } = CassetteFile.read(fs.readFileSync(file, "utf8")) as Core.Cassette
      expect(exchanges.map((e) => e.request.path)).toEqual([
        DesignSearchConfig.tokenPath,
        `${DesignSearchConfig.apiPath}/search/quick`,
        `${DesignSearchConfig.apiPath}/search/quick`
      ])
    })))

  it.live("a recording that cannot reach the service, or write its file, says so and records nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const port = yield* Effect.scoped(listening(createServer()))
      const unreachable = Sandbox.layerCassette(file, { mode: "record" }).pipe(
        Layer.provide(configAt(`http://127.0.0.1:${port}`, "id", "secret"))
      )
      const quick = Effect.flatMap(client, (c) => c.quickSearch({ query: "chair" }))
      expect(yield* Effect.flip(Effect.provide(quick, clientOver(unreachable)))).toMatchObject({
        _tag: "TokenError",
        detail: expect.stringContaining("CASSETTE_UPSTREAM")
      })
      expect(fs.existsSync(file)).toBe(false)
      const served = yield* Sandbox.serve({ port: 0 })
      const env = DesignSearchConfig.layer(served.clientOptions)
      const nowhere = Sandbox.layerCassette(path.join(file, "no-such-folder", "c.json"), { mode: "record" })
      expect(refusalOf(yield* Effect.flip(Layer.build(Layer.provide(nowhere, env))))).toMatchObject({
        path: ["cassette"],
        message: expect.stringContaining("cannot record into it")
      })
      // The file turns into a folder once the recording has started.
      const recording = yield* Layer.build(
        clientOver(Sandbox.layerCassette(file, { mode: "record" }).pipe(Layer.provide(env)))
      )
      fs.mkdirSync(file)
      expect(yield* Effect.flip(Effect.provide(quick, recording))).toMatchObject({
        detail: expect.stringContaining("CASSETTE_UNWRITABLE")
      })
    })))

  it.live("options it cannot use, a path that is not a regular file, or a field it cannot replay are a ConfigError naming them", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const refusal = (at: string, options: unknown) =>
        Effect.map(Effect.flip(Layer.build(Sandbox.layerCassette(at, options as Sandbox.CassetteOptions))), refusalOf)
      fs.writeFileSync(file, `{"version":1,"exchanges":[]}`)
      expect(yield* refusal(file, undefined)).toMatchObject({ path: ["options"] })
      expect(yield* refusal(file, { mode: "bogus" })).toMatchObject({
        path: ["mode"],
        message: expect.stringContaining(`mode: expected "record", "replay" or "auto", found "bogus"`)
      })
      expect(yield* refusal(file, { mode: "replay", ignore: "changedSinceDate" })).toMatchObject({ path: ["ignore"] })
      expect(yield* refusal("", { mode: "replay" })).toMatchObject({ path: ["path"] })
      const fifo = path.join(path.dirname(file), "fifo")
      execFileSync("mkfifo", [fifo])
      for (const at of ["/dev/zero", fifo, path.dirname(file)]) {
        for (const mode of ["replay", "auto", "record"]) {
          // Effect 4's ConfigError tells its SchemaError's text with the path
          const says = `cassette ${at}: it is not a regular file`
          expect(yield* refusal(at, { mode })).toMatchObject({
            path: ["cassette"],
            message: edition === 3 ? says : expect.stringContaining(says)
          })
          expect(fs.existsSync(`${at}.lock`)).toBe(false)
        }
      }
      fs.writeFileSync(
        file,
        `{"version":1,"exchanges":[{"request":{"method":"GET","path":"/x"},"response":{"status":200,"headers":{"x":"a\\r\\nb: c"},"text":"hi"}}]}`
      )
      const why = `cassette ${file}: exchange 1: response.headers["x"]: expected a text of one line`
      expect(yield* refusal(file, { mode: "replay" })).toMatchObject({
        _tag: "ConfigError",
        message: expect.stringContaining(why)
      })
      expect(yield* Effect.flip(Sandbox.serve({ port: 0, cassette: file }))).toMatchObject({
        message: expect.stringContaining(why)
      })
    })))

  it.live("a replayed miss names a body that is not JSON as sent, masked of the secret", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const exchange = {
        request: { method: "POST", path: "/s", body: { query: "chair" } },
        response: { status: 204, headers: {} }
      }
      fs.writeFileSync(file, JSON.stringify({ version: 1, exchanges: [exchange] }))
      const layer = Sandbox.layerCassette(file, { mode: "replay" })
      const answer = yield* Effect.gen(function*() {
        const { clientSecret } = yield* DesignSearchConfig.DesignSearchConfig
        const request = HttpClientRequest.post(`${Sandbox.inProcessUrl}/s`).pipe(
          HttpClientRequest.bodyText(`query=chair&secret=${Redacted.value(clientSecret)}`, "text/plain")
        )
        return yield* Effect.flatMap(HttpClient.execute(request), (response) => response.text)
      }).pipe(Effect.provide(layer))
      expect(answer).toContain(
        `differs at body: recorded {\\"query\\":\\"chair\\"}, sent \\"query=chair&secret=[redacted]\\", not JSON`
      )
    })))

  it.live("one recording into a file at a time: a second is refused until the first ends; a crashed one's lock is taken over", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const lock = `${file}.lock`
      const env = configAt("http://127.0.0.1:9", "id", "secret")
      const recording = (mode: "record" | "auto") =>
        Layer.build(Layer.provide(Sandbox.layerCassette(file, { mode }), env))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* recording("record")
        expect(fs.readFileSync(lock, "utf8")).toBe(String(process.pid))
        expect(yield* Effect.flip(recording("auto"))).toMatchObject({
          message: expect.stringContaining(`another recording into it runs (process ${process.pid}; its lock ${lock}`)
        })
      }))
      expect(fs.existsSync(lock)).toBe(false)
      const ended = spawnSync(process.execPath, ["-e", ""]).pid
      fs.writeFileSync(lock, String(ended))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* recording("auto")
        expect(fs.readFileSync(lock, "utf8")).toBe(String(process.pid))
      }))
      expect(fs.existsSync(lock)).toBe(false)
      // Our own pid left by a crashed run (pids repeat: PID 1 in a container), an empty lock, a lock that is no pid.
      for (const left of [String(process.pid), "", "x"]) {
        fs.writeFileSync(lock, left)
        yield* Effect.scoped(Effect.gen(function*() {
          yield* recording("record")
          expect(fs.readFileSync(lock, "utf8")).toBe(String(process.pid))
          expect(yield* Effect.flip(recording("auto"))).toMatchObject({
            message: expect.stringContaining(`another recording into it runs (process ${process.pid}`)
          })
        }))
        expect(fs.readdirSync(path.dirname(file)).filter((f) => f.includes(".lock"))).toEqual([])
      }
    })))

  it.live("U+2028, U+2029 and numbers JSON.parse would change replay byte for byte", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const origin = "https://service.invalid"
      const settings = DesignSearchConfig.layer({
        clientId: "id",
        clientSecret: "secret",
        authUrl: origin,
        baseUrl: origin + DesignSearchConfig.apiPath
      })
      const answers: Record<string, string> = {
        "/design/1": `{"note":"a\u2028 b","k\u2029 ":[" \u2029"]}`,
        "/design/2": `{"n":1e400,"m":12345678901234567890123,"f":0.10000000000000000001}`,
        "/design/3": `{"n":1.5e3,"f":0.10}`
      }
      const service = HttpClient.make((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(
          request,
          new Response(answers[new URL(request.url).pathname.slice(DesignSearchConfig.apiPath.length)] ?? "{}", {
            headers: { "content-type": "application/json" }
          })
        ))
      )
      const requests = [
        ...Object.keys(answers).map((p) => HttpClientRequest.get(p)),
        HttpClientRequest.bodyText(
          HttpClientRequest.post("/search/quick"),
          `[1,"\u2029","\u2028 "]`,
          "application/json"
        ),
        HttpClientRequest.bodyText(HttpClientRequest.post("/search/quick"), `{"q\u2028 ":1}`, "application/json")
      ]
      const texts = Effect.flatMap(
        HttpClient.HttpClient,
        (http) =>
          Effect.forEach(requests, (request) =>
            Effect.flatMap(
              http.execute(HttpClientRequest.prependUrl(request, Sandbox.inProcessUrl + DesignSearchConfig.apiPath)),
              (response) => Effect.map(response.text, (text) => `${response.status} ${text}`)
            ))
      )
      const over = (mode: "record" | "replay") =>
        Sandbox.layerCassette(file, { mode }).pipe(
          Layer.provide(Layer.merge(settings, Layer.succeed(HttpClient.HttpClient, service)))
        )
      const recorded = yield* Effect.provide(texts, over("record"))
      expect(recorded.slice(0, 3)).toEqual(Object.values(answers).map((text) => `200 ${text}`))
      // A body whose numbers JSON keeps stays JSON in the file, and replays equal as JSON, written as JSON.stringify does.
      const replayed = yield* Effect.provide(texts, over("replay"))
      expect(replayed).toEqual(recorded.map((text, i) => i === 2 ? `200 {"n":1500,"f":0.1}` : text))
      expect(fs.readFileSync(file, "utf8")).toContain(`"f": 0.1`)
    })))

  it.live("every token field of a token answer, its echoes, and the secret encoded twice stay out of the file", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const secret = "Zq9+Secret/Value=="
      const tokens = [
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJjaWQifQ.c2lnbmF0dXJl",
        "rt_0paque_refresh_Value_1234",
        "idt.opaque.zzzz"
      ]
      const [access, refresh, id] = tokens
      const origin = "https://service.example"
      const service = HttpClient.make((request) =>
        Effect.sync(() => {
          const form = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          const body = new URL(request.url).pathname === DesignSearchConfig.tokenPath
            ? { access_token: access, refresh_token: refresh, id_token: id, token_type: "Bearer", expires_in: 3600 }
            : { count: 0, designNumbers: [], echo: [refresh, encodeURIComponent(id!)] }
          const headers = {
            "content-type": "application/json",
            location: `${origin}/x?form=${encodeURIComponent(form)}`,
            "x-echo": `${refresh} ${id}`
          }
          return HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { headers }))
        })
      )
      const config = DesignSearchConfig.layer({
        clientId: "cid",
        clientSecret: secret,
        authUrl: origin,
        baseUrl: origin + DesignSearchConfig.apiPath
      })
      const cassette = Sandbox.layerCassette(file, { mode: "record" }).pipe(
        Layer.provide(Layer.merge(config, Layer.succeed(HttpClient.HttpClient, service)))
      )
      yield* Effect.provide(Effect.flatMap(client, (c) => c.quickSearch({ query: "chair" })), clientOver(cassette))
      const text = fs.readFileSync(file, "utf8")
      expect(text).toContain("client_secret%3D[redacted]")
      expect(CassetteFile.read(text)).toMatchObject({
        exchanges: [{ response: { body: { refresh_token: Core.placeholderToken } } }, {}]
      })
      for (const value of [secret, ...tokens]) {
        for (const form of [value, encodeURIComponent(value), encodeURIComponent(encodeURIComponent(value))]) {
          expect(text).not.toContain(form)
        }
      }
    })))

  it.live("a replay of a missing or malformed file is a ConfigError naming it", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = yield* tempFile
      const missing = yield* Effect.flip(Layer.build(Sandbox.layerCassette(file, { mode: "replay" })))
      expect(refusalOf(missing)).toMatchObject({ path: ["cassette"], message: expect.stringContaining(file) })
      fs.writeFileSync(file, `{"version": 2}`)
      const wrong = yield* Effect.flip(Layer.build(Sandbox.layerCassette(file, { mode: "replay" })))
      expect(wrong.message).toContain("\"version\": 1")
    })))
})

/** A secret and a token with characters each encoding writes its own way (as in hostileAnswers.test.ts). */
const secret = "s3cr3t/+= é&x\"y"
const tokenValue = "tok.Echo-Me_9f2c~d+e/f=="
const base64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
const encoders = [
  (t: string) => t,
  (t: string) => t.replace(/\//g, "\\/"),
  (t: string) => t.replace(/\+/g, "\\u002B").replace(/&/g, "\\u0026"),
  (t: string) => t.replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"))
]

/** The service's answers: the token endpoint's, then the API's, each echoing what it was sent. */
const echoes: ReadonlyArray<readonly [string, (body: string) => string, (auth: string) => string]> = [
  ...encoders.map((encode, i) =>
    [
      `the token endpoint's form and the Authorization header echoed, JSON encoder ${i}`,
      (form: string) =>
        encode(JSON.stringify({ access_token: tokenValue, token_type: "Bearer", expires_in: 3600, echo: form })),
      (auth: string) => encode(JSON.stringify({ errors: [{ code: "500", detail: `headers: ${auth}` }], echo: auth }))
    ] as const
  ),
  [
    "the form, id:secret and the header in base64 and percent-encoded",
    (form) =>
      JSON.stringify({
        access_token: tokenValue,
        token_type: "Bearer",
        expires_in: 3600,
        form: base64(form),
        basic: `Basic ${base64(`echo-client:${secret}`)}`
      }),
    (auth) =>
      JSON.stringify({
        data: { count: 0, designNumbers: [] },
        messages: [{ detail: encodeURIComponent(auth) }],
        b: base64(auth)
      })
  ],
  [
    "an HTML page reflecting the form, and a text answer quoting the token",
    (form) => `<html><pre>${form}</pre></html>`,
    (auth) => `token ${auth.slice(7)} refused`
  ]
]

describe("a cassette holds no secret and no token", () => {
  for (const [name, token, api] of echoes) {
    it.live(name, () =>
      Effect.scoped(Effect.gen(function*() {
        const file = yield* tempFile
        const port = yield* listening(createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            const toToken = (req.url ?? "").startsWith(DesignSearchConfig.tokenPath)
            const body = toToken ? token(Buffer.concat(chunks).toString("utf8")) : api(req.headers.authorization ?? "")
            res.writeHead(toToken && body.startsWith("{") ? 200 : 500, {
              "content-type": body.startsWith("{") ? "application/json" : "text/html",
              "x-echo": base64(req.headers.authorization ?? "none")
            }).end(body)
          })
        }))
        const cassette = Sandbox.layerCassette(file, { mode: "record" }).pipe(
          Layer.provide(configAt(`http://127.0.0.1:${port}`, "echo-client", secret))
        )
        yield* Effect.exit(
          Effect.provide(Effect.flatMap(client, (c) => c.quickSearch({ query: "chair" })), clientOver(cassette))
        )
        const text = fs.readFileSync(file, "utf8")
        expect(JSON.parse(text).exchanges.length).toBeGreaterThan(0)
        const read = JSON.stringify(JSON.parse(text))
        for (const s of [secret, tokenValue]) {
          const forms = [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)]
          for (const form of forms.flatMap((f) => [f, JSON.stringify(f).slice(1, -1)])) {
            expect(text).not.toContain(form)
            expect(read).not.toContain(form)
          }
          // Any base64 text left, read from each of its first four characters, holds neither.
          for (const run of read.match(/[A-Za-z0-9+/_=-]{16,}/g) ?? []) {
            for (let offset = 0; offset < 4; offset++) {
              expect(Buffer.from(run.slice(offset), "base64").toString("latin1")).not.toContain(
                Buffer.from(s, "utf8").toString("latin1")
              )
            }
          }
        }
        expect(text).not.toMatch(/authorization/i)
      })))
  }
})
