/**
 * Cassettes in the Effect 4 edition (`Sandbox.layerCassette`; the format and matching are core's,
 * tested with the Effect 3 edition): a recording of a served sandbox replays the same answers with
 * no request to the service, a request the cassette lacks gets a 501 naming the closest recorded
 * one, faults and counters work over it, and the file holds no secret or token.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Core from "../../src/core/sandbox/cassette.js"
import * as CassetteFile from "../../src/core/sandbox/cassetteFile.js"
import * as DesignSearchConfig from "../../src/DesignSearchConfig.js"
import * as Sandbox from "../../src/Sandbox.js"

const tempFile: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "design-search-cassette-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  ),
  (dir) => path.join(dir, "cassette.json")
)

type Services = HttpClient.HttpClient | DesignSearchConfig.DesignSearchConfig

/** A token from the sandbox in context, then one API exchange with it: its status and JSON body. */
const exchange = (apiPath: string, body?: unknown) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const { apiBaseUrl, clientId, clientSecret, tokenUrl } = yield* DesignSearchConfig.DesignSearchConfig
    const send = (request: HttpClientRequest.HttpClientRequest) =>
      Effect.flatMap(http.execute(request), (response) =>
        Effect.map(response.json, (json) => ({ status: response.status, json: json as Record<string, unknown> })))
    const form = { grant_type: "client_credentials", client_id: clientId, client_secret: Redacted.value(clientSecret) }
    const token = yield* send(HttpClientRequest.post(tokenUrl).pipe(HttpClientRequest.bodyUrlParams(form)))
    const request = body === undefined
      ? HttpClientRequest.get(apiBaseUrl + apiPath)
      : HttpClientRequest.post(apiBaseUrl + apiPath).pipe(HttpClientRequest.bodyJsonUnsafe(body))
    const bearer = `Bearer ${String(token.json["access_token"])}`
    return { token, answer: yield* send(HttpClientRequest.setHeader(request, "authorization", bearer)) }
  })

const quick = (query: string) => Effect.map(exchange("/search/quick", { query }), ({ answer }) => answer)

const work: Effect.Effect<ReadonlyArray<unknown>, unknown, Services> = Effect.all([
  quick("chair"),
  Effect.map(exchange(`/design/${Sandbox.fixedNumbers.chair}`), ({ answer }) => answer),
  Effect.map(
    exchange("/page/advanced", {
      rows: [{ op: "AND", query: { owner: Sandbox.samples.owners[0] } }],
      pageNumber: 0,
      pageSize: 5
    }),
    ({ answer }) => answer
  )
])

/** The cassette at `file`, recording from `served` (over `fetch`) or replaying. */
const cassette = (file: string, mode: "record" | "replay" | "auto", served: Sandbox.Served) =>
  Sandbox.layerCassette(file, { mode }).pipe(Layer.provide(DesignSearchConfig.layer(served.clientOptions)), Layer.orDie)

describe("Sandbox.layerCassette (Effect 4)", () => {
  it.live("records a service once and replays it with no request to it; a miss is a 501 naming the closest request", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const served = yield* Sandbox.serve({ port: 0, clientSecret: "real-secret-81d" })
      const recorded = yield* Effect.provide(work, cassette(file, "record", served))
      assert.deepStrictEqual((yield* served.control.stats).requests, {
        token: 3,
        search: 1,
        design: 1,
        advanced: 0,
        page: 1
      })
      const text = fs.readFileSync(file, "utf8")
      assert.notInclude(text, "real-secret-81d")
      assert.include(text, `"access_token": "${Core.placeholderToken}"`)
      assert.notMatch(text, /authorization/i)
      assert.lengthOf((CassetteFile.read(text) as Core.Cassette).exchanges, 4)

      // Replayed with the service up and a network client at hand: neither is asked anything.
      let sent = 0
      const network = HttpClient.make((request) =>
        Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, description: `${++sent}` })
          })
        )
      )
      const replay = Sandbox.layerCassette(file, { mode: "replay" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, network)),
        Layer.orDie
      )
      assert.deepStrictEqual(yield* Effect.provide(work, replay), recorded)
      const missed = yield* Effect.provide(quick("table"), replay)
      assert.strictEqual(missed.status, 501)
      const [miss] = missed.json["errors"] as ReadonlyArray<{ readonly code: string; readonly detail: string }>
      assert.strictEqual(miss?.code, "CASSETTE_MISS")
      assert.include(miss?.detail, `exchange 2 (POST ${DesignSearchConfig.apiPath}/search/quick)`)
      assert.include(miss?.detail, `query: recorded "chair", sent "table"`)
      assert.strictEqual(sent, 0)
      assert.strictEqual((yield* served.control.stats).requests.search, 1)

      // Faults and counters work over the replayed answers; reset replays from the first answer.
      yield* Effect.gen(function*() {
        const control = yield* Sandbox.SandboxControl
        yield* control.injectFault({ target: "search", status: 503 })
        assert.strictEqual((yield* quick("chair")).status, 503)
        assert.strictEqual((yield* control.stats).requests.search, 1)
        yield* control.reset
        assert.strictEqual((yield* control.stats).requests.search, 0)
        assert.deepStrictEqual(yield* quick("chair"), recorded[0])
      }).pipe(Effect.provide(replay))
    }))

  it.live("auto replays what the file holds and records only what it lacks", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const served = yield* Sandbox.serve({ port: 0 })
      const auto = cassette(file, "auto", served)
      yield* Effect.provide(quick("chair"), auto)
      yield* Effect.provide(Effect.all([quick("chair"), quick("lamp")]), auto)
      assert.strictEqual((yield* served.control.stats).requests.search, 2)
      const { exchanges } = CassetteFile.read(fs.readFileSync(file, "utf8")) as Core.Cassette
      assert.deepStrictEqual(exchanges.map((e) => e.request.path), [
        DesignSearchConfig.tokenPath,
        `${DesignSearchConfig.apiPath}/search/quick`,
        `${DesignSearchConfig.apiPath}/search/quick`
      ])
    }))

  it.live("options it cannot use, a path that is not a regular file, a file it cannot replay or a second recording are a ConfigError naming them", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const refusal = (at: string, options: unknown) =>
        Effect.map(
          Effect.flip(Layer.build(Sandbox.layerCassette(at, options as Sandbox.CassetteOptions))),
          (error) => `${error._tag}: ${error.message}`
        )
      fs.writeFileSync(file, `{"version":1,"exchanges":[]}`)
      assert.include(
        yield* refusal(file, { mode: "bogus" }),
        `mode: expected "record", "replay" or "auto", found "bogus"`
      )
      assert.include(yield* refusal(path.dirname(file), { mode: "replay" }), "it is not a regular file")
      fs.writeFileSync(
        file,
        `{"version":1,"exchanges":[{"request":{"method":"GET","path":"/x"},"response":{"status":200,"headers":{"x":"a\\r\\nb: c"},"text":"hi"}}]}`
      )
      const why = yield* refusal(file, { mode: "replay" })
      assert.match(why, /^ConfigError: /)
      assert.include(why, `cassette ${file}: exchange 1: response.headers["x"]: expected a text of one line`)
      const served = yield* Sandbox.serve({ port: 0 })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(cassette(file, "record", served))
        assert.strictEqual(fs.readFileSync(`${file}.lock`, "utf8"), String(process.pid))
        const second = Layer.build(
          Sandbox.layerCassette(file, { mode: "auto" }).pipe(
            Layer.provide(DesignSearchConfig.layer(served.clientOptions))
          )
        )
        assert.include(
          (yield* Effect.flip(second)).message,
          `another recording into it runs (process ${process.pid}`
        )
      }))
      assert.isFalse(fs.existsSync(`${file}.lock`))
    }))
})
