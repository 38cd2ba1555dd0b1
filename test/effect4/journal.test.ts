/**
 * The Effect 4 edition's request journal (`SandboxControl.requests`, `expectRequest`): what it keeps
 * of each request, bounded, cleared by `reset`, never a secret or a token; and the latency of every
 * answer on the sandbox's `Clock`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { HttpClientRequest } from "effect/http"
import type { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { masked, maskOf } from "../../src/core/mask/mask.js"
import * as DesignSearchConfig from "../../src/DesignSearchConfig.js"
import * as Sandbox from "../../src/Sandbox.js"
import { base, bearer, call, goodForm, send, tokenRequest, tokenUrl, withSandbox } from "./support/rawSandbox.js"

const chair = Sandbox.fixedNumbers.chair
const quickPath = `${DesignSearchConfig.apiPath}/search/quick`

/** A request with its body sent as text, of `content-type` if given. */
const raw = (method: "GET" | "POST", url: string, headers: Record<string, string> = {}, body?: string) => {
  const request = HttpClientRequest.make(method)(url, { headers })
  return body === undefined ? request : HttpClientRequest.bodyText(request, body, headers["content-type"])
}

describe("the journal", () => {
  it.effect("keeps method, path, query, parsed body, Authorization's scheme only, status, fault and time", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const { control } = sandbox
        yield* TestClock.setTime(Date.UTC(2026, 11, 1))
        yield* call(client, "/search/quick?x=1", { query: "chair", filters: { statusFilter: ["REGISTERED"] } })
        yield* control.injectFault({ target: "design", status: 404 })
        yield* call(client, `/design/${chair}`)

        const { dropped, entries } = yield* control.requests()
        expect(dropped).toBe(0)
        expect(entries.map((e) => [e.method, e.target, e.status])).toEqual([
          ["POST", "token", 200],
          ["POST", "search", 200],
          ["POST", "token", 200],
          ["GET", "design", 404]
        ])
        const [token, search, , design] = entries
        expect(token?.body).toEqual({ ...goodForm, client_secret: masked })
        expect(search).toMatchObject({
          path: quickPath,
          query: { x: "1" },
          body: { query: "chair", filters: { statusFilter: ["REGISTERED"] } },
          time: Date.UTC(2026, 11, 1)
        })
        expect(search?.headers["authorization"]).toBe("Bearer")
        expect(search?.fault).toBeUndefined()
        expect(design?.fault).toEqual({ index: 0, fault: { target: "design", status: 404, count: 1 } })

        expect((yield* control.requests({ target: "search" })).entries).toEqual([search])
        const sent = yield* control.expectRequest({
          target: "search",
          body: { "filters.statusFilter[0]": "REGISTERED" }
        })
        expect(sent).toEqual(search)
        const missing = yield* Effect.flip(control.expectRequest({ target: "search", body: { query: "table" } }))
        expect(missing._tag).toBe("NoSuchElementError")
        expect(missing.message).toContain(`no request matches {"target":"search","body":{"query":"table"}}`)
        expect(missing.message).toContain(`the last was GET ${DesignSearchConfig.apiPath}/design/${chair}`)

        yield* control.reset
        expect(yield* control.requests()).toEqual({ entries: [], dropped: 0 })
      })
    ))

  it.effect("keeps the last journalSize requests, and counts those it dropped", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        for (const query of ["a", "b", "c", "d"]) {
          yield* send(client, raw("POST", base + quickPath, { authorization }, JSON.stringify({ query })))
        }
        const { dropped, entries } = yield* sandbox.control.requests()
        expect(dropped).toBe(2)
        expect(entries.map((e) => (e.body as { query: string }).query)).toEqual(["b", "c", "d"])
        yield* sandbox.control.reset
        expect((yield* sandbox.control.requests()).dropped).toBe(0)
      }), { journalSize: 3 }))

  it.effect("keeps what has no route, what is not JSON, a body it could not read, and a reset with no status", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        yield* send(client, raw("POST", `${base}/nowhere?x=1&y=2`, { "content-type": "text/plain" }, "not json"))
        yield* send(client, raw("POST", tokenUrl, {}, "x".repeat(200)))
        yield* sandbox.control.injectFault({ target: "any", status: 500, kind: "reset" })
        yield* Effect.flip(send(client, raw("POST", base + quickPath, {}, "{}")))
        const [unrouted, tooLarge, reset] = (yield* sandbox.control.requests()).entries
        expect(unrouted).toMatchObject({ path: "/nowhere", query: { x: "1", y: "2" }, body: "not json", status: 404 })
        expect(unrouted?.target).toBeUndefined()
        expect(tooLarge).toMatchObject({ target: "token", status: 413 })
        expect(tooLarge?.body).toBeUndefined()
        expect(reset?.fault?.fault.kind).toBe("reset")
        expect(reset && "status" in reset).toBe(false)
      }), { maxRequestBytes: 100 }))

  it.effect("checks its filter as injectFault checks a match: a SchemaError naming the field", () =>
    withSandbox((sandbox) =>
      Effect.gen(function*() {
        const bad = [
          [{ body: { "rows[0": 1 } }, "expected a field path"],
          [{ target: "bogus" }, `at ["target"]`],
          [{ target: "search", designNumber: chair }, "no search request has a designNumber"],
          [{ pagenumber: 2 }, "pagenumber"],
          [{ target: "search", body: { pageToken: "abc" } }, "pageToken names a credential"]
        ] as const
        for (const [filter, says] of bad) {
          const error = yield* Effect.flip(sandbox.control.requests(filter as never))
          expect(error._tag).toBe("SchemaError")
          expect(error.message).toContain(says)
          expect((yield* Effect.flip(sandbox.control.expectRequest(filter as never)))._tag).toBe("SchemaError")
        }
      })
    ))

  it.effect("never holds the client secret or a token, however a request carries them", () =>
    Effect.gen(function*() {
      const secret = "s3cr3t/+= é&?#😀"
      for (const encode of [(s: string) => s, encodeURIComponent, (s: string) => Buffer.from(s).toString("base64")]) {
        yield* withSandbox((sandbox, client) =>
          Effect.gen(function*() {
            const answer = yield* send(client, tokenRequest({ ...goodForm, client_secret: secret }))
            const basic = Buffer.from(`sandbox-client:${secret}`).toString("base64")
            yield* send(
              client,
              raw("POST", tokenUrl, { authorization: `Basic ${basic}` }, "grant_type=client_credentials")
            )
            const token = String(answer.json?.["access_token"])
            const echo = encode(`${secret} ${token}`)
            yield* send(
              client,
              raw("POST", `${base}${quickPath}/${encodeURIComponent(echo)}?q=${encodeURIComponent(echo)}`, {
                authorization: `Bearer ${token}`,
                "x-echo": encodeURIComponent(echo)
              }, JSON.stringify({ query: echo, token }))
            )
            const journal = JSON.stringify((yield* sandbox.control.requests()).entries)
            expect(journal).not.toContain(token)
            expect(maskOf([secret, `sandbox-client:${secret}`, token]).text(journal)).toBe(journal)
          }), { designs: 10, clientSecret: secret })
      }
    }))
})

/** How long an answer to `GET /nowhere` took on the TestClock, to 10 milliseconds. */
const waited = (client: HttpClient.HttpClient) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(send(client, raw("GET", `${base}/nowhere`)))
    let millis = 0
    while (fiber.pollUnsafe() === undefined) {
      yield* TestClock.adjust("10 millis")
      millis += 10
    }
    return millis
  })

describe("latency", () => {
  it.effect("each answer waits the latency on the sandbox's Clock; a client gone meanwhile is counted", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        expect(yield* waited(client)).toBe(2000)
        const fiber = yield* Effect.forkChild(send(client, raw("GET", `${base}/nowhere`)))
        yield* TestClock.adjust("1 second")
        yield* Fiber.interrupt(fiber)
        expect((yield* sandbox.control.stats).abandoned).toBe(1)
      }), { latency: "2 seconds" }))

  it.effect("a range is drawn from a source seeded by seed: the same seed, the same latencies, within the range", () =>
    Effect.gen(function*() {
      const latencies = (seed: number) =>
        withSandbox(
          (_, client) => Effect.forEach([1, 2, 3, 4, 5], () => waited(client)),
          { designs: 10, seed, latency: { min: "100 millis", max: "900 millis" } }
        )
      const first = yield* latencies(7)
      expect(first.every((ms) => ms >= 100 && ms <= 910), String(first)).toBe(true)
      expect(new Set(first).size).toBeGreaterThan(1)
      expect(yield* latencies(7)).toEqual(first)
      expect(yield* latencies(8)).not.toEqual(first)
    }))

  it.effect("one that is no finite non-negative duration, or a range without both ends in order, is a ConfigError naming latency", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<unknown> = [
        -1,
        "-1 second",
        Number.NaN,
        Infinity,
        "soon",
        null,
        { min: "2 seconds", max: "1 second" },
        { min: "1 second" },
        { min: -1, max: 5 }
      ]
      for (const latency of bad) {
        const error = yield* Effect.flip(Effect.suspend(() => Sandbox.make({ latency: latency as never })))
        expect(error._tag).toBe("ConfigError")
        expect(error.message, JSON.stringify(latency)).toContain("latency")
      }
    }))
})
