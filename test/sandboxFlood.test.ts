/**
 * A served sandbox under a flood of large requests that never authenticate: its memory stays
 * bounded, `GET /__sandbox/requests` answers in a bounded size, and it keeps serving; control input
 * nested too deep is refused in one line, pointing at the field.
 */
import { HttpClient, HttpClientRequest } from "#edition/internal/seam"
import { NodeHttpClient } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { DesignSearchConfig, Sandbox } from "../src/index.js"
import { servedClient } from "./support/layers.js"

/** A full collection: `global.gc` when node runs with `--expose-gc`, else the one V8 exposes when asked. */
const gc = (globalThis as { gc?: () => void }).gc ??
  (v8.setFlagsFromString("--expose-gc"), vm.runInNewContext("gc") as () => void)

/** The resident memory after a full collection. */
const settledRss = () => {
  gc()
  return process.memoryUsage.rss()
}

/** An undici `HttpClient` for the rest of the scope. */
const undici = Effect.map(Layer.build(NodeHttpClient.layerUndici), Context.get(HttpClient.HttpClient))

/** One exchange: status and body text. */
const exchange = (http: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(
    http.execute(request),
    (response) => Effect.map(response.text, (text) => ({ status: response.status, text }))
  )

/** A JSON body of exactly 1 MiB: `maxRequestBytes`' default, the largest a sandbox reads. */
const mebibyte = (() => {
  const frame = JSON.stringify({ query: "chair", filler: "" })
  return JSON.stringify({ query: "chair", filler: "x".repeat(Sandbox.defaults.maxRequestBytes - frame.length) })
})()

describe("a served sandbox flooded with requests that never authenticate", () => {
  it.live(
    "400 POSTs of 1 MiB JSON without Authorization: memory within 2x, a bounded journal, and it keeps serving",
    () =>
      Effect.scoped(Effect.gen(function*() {
        expect(Buffer.byteLength(mebibyte)).toBe(1024 * 1024)
        const served = yield* Sandbox.serve({ port: 0 })
        const http = yield* undici
        const quick = HttpClientRequest.post(served.baseUrl + "/search/quick").pipe(
          HttpClientRequest.bodyText(mebibyte, "application/json")
        )
        // In batches of 50, 8 at once, the resident memory measured after a collection at the end of each.
        const start = settledRss()
        let peak = start
        const settled = yield* Effect.forEach(Array.from({ length: 8 }), () =>
          Effect.map(
            Effect.forEach(Array.from({ length: 50 }), () =>
              Effect.map(exchange(http, quick), ({ status }) => {
                peak = Math.max(peak, process.memoryUsage.rss())
                // Each was read whole (not a 413) and refused for want of a token.
                expect(status).toBe(401)
              }), { concurrency: 8 }),
            settledRss
          ))
        const after = settled.at(-1) ?? 0
        const journal = yield* exchange(http, HttpClientRequest.get(`${served.url}/__sandbox/requests`))
        expect(journal.status).toBe(200)
        const size = Buffer.byteLength(journal.text)
        // A preview of each refused body: 400 entries of under 1 KiB, well within journalBytes.
        expect(size).toBeLessThanOrEqual(400 * 1024)
        expect(size).toBeLessThanOrEqual(Sandbox.defaults.journalBytes)
        const { dropped, entries } = JSON.parse(journal.text) as Sandbox.Journal<Sandbox.Entry>
        expect([entries.length, dropped]).toEqual([400, 0])
        for (const entry of entries) {
          expect(entry).toMatchObject({ status: 401, bodyBytes: 1024 * 1024, bodyPreview: mebibyte.slice(0, 256) })
        }
        const read = settledRss()
        console.log(
          `rss: start ${start >> 20} MiB, peak ${peak >> 20} MiB before collections, at most ${
            Math.max(...settled) >> 20
          } MiB after one, after ${after >> 20} MiB, after reading the journal ${read >> 20} MiB; ` +
            `/__sandbox/requests ${size} bytes`
        )
        expect(Math.max(...settled, read)).toBeLessThanOrEqual(2 * start)

        // It keeps serving.
        const client = yield* servedClient(served)
        const found = yield* client.quickSearch({ query: "chair" })
        expect(found.data.designNumbers).toContain(Sandbox.fixedNumbers.chair)
      })),
    120_000
  )
})

describe("control input nested too deep, served", () => {
  it.live("a fault whose match nests 50,000 levels is a 422 in one line pointing at the field; the sandbox keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const http = yield* undici
      const deep = "[".repeat(50_000) + "]".repeat(50_000)
      const answer = yield* exchange(
        http,
        HttpClientRequest.post(`${served.url}/__sandbox/faults`).pipe(
          HttpClientRequest.bodyText(
            `{"target":"search","status":500,"match":{"body":{"x":${deep}}}}`,
            "application/json"
          )
        )
      )
      expect(answer.status).toBe(422)
      const { errors } = JSON.parse(answer.text) as { errors: ReadonlyArray<{ detail: string; source: unknown }> }
      expect(errors).toMatchObject([{
        detail: "match.body nests deeper than 64 levels",
        source: { pointer: "/match" }
      }])
      // A filter as deep as a URL can carry is refused, bounded, at the field.
      const filter = encodeURIComponent(`{"x":${"[".repeat(2000)}${"]".repeat(2000)}}`)
      const refused = yield* exchange(http, HttpClientRequest.get(`${served.url}/__sandbox/requests?body=${filter}`))
      expect(refused.status).toBe(422)
      expect(refused.text.length).toBeLessThan(1000)
      expect(JSON.parse(refused.text)).toMatchObject({ errors: [{ source: { pointer: "/body/x" } }] })
      const token = yield* exchange(
        http,
        HttpClientRequest.post(served.url + DesignSearchConfig.tokenPath).pipe(
          HttpClientRequest.bodyUrlParams({
            grant_type: "client_credentials",
            client_id: served.sandbox.clientId,
            client_secret: served.sandbox.clientSecret
          })
        )
      )
      expect(token.status).toBe(200)
    })))
})
