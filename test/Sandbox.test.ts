import type { HttpClient } from "@effect/platform"
import { HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Schema, TestClock } from "effect"
import { Designs, DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"

const base = Sandbox.inProcessUrl
const api = base + DesignSearchConfig.apiPath
const tokenUrl = base + DesignSearchConfig.tokenPath

/** A sandbox and a raw client to it: what the sandbox answers, byte for byte. */
const withSandbox = <A, E>(
  f: (sandbox: Sandbox.Sandbox, client: HttpClient.HttpClient) => Effect.Effect<A, E>,
  options: Sandbox.Options = {}
) => Effect.flatMap(Effect.orDie(Sandbox.make(options)), (sandbox) => f(sandbox, Sandbox.httpClient(sandbox.app)))

const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(client.execute(request), (response) =>
    Effect.map(response.text, (text) => ({
      status: response.status,
      headers: response.headers,
      text,
      json: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>)
    })))

const tokenRequest = (form: Record<string, string>) =>
  HttpClientRequest.post(tokenUrl).pipe(HttpClientRequest.bodyUrlParams(form))

const goodForm = { grant_type: "client_credentials", client_id: "sandbox-client", client_secret: "sandbox-secret" }

const bearer = (client: HttpClient.HttpClient) =>
  Effect.map(send(client, tokenRequest(goodForm)), (r) => `Bearer ${String(r.json?.access_token)}`)

describe("Sandbox token endpoint (spec 4.1, 5.3)", () => {
  it.effect("issues a JWT shaped like the real ones, valid for 3600 seconds", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const r = yield* send(client, tokenRequest(goodForm))
        expect(r.status).toBe(200)
        expect(r.json).toMatchObject({ expires_in: 3600, token_type: "Bearer" })
        const [, payload] = String(r.json?.access_token).split(".")
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>
        expect(Object.keys(claims).sort()).toEqual(
          ["auth_time", "client_id", "exp", "iat", "iss", "jti", "scope", "sub", "token_use"]
        )
        expect(claims.token_use).toBe("access")
        expect(Number(claims.exp) - Number(claims.iat)).toBe(3600)
      })
    ))

  it.effect("answers bad credentials, grants and bodies with RFC 6749 errors", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const wrongSecret = yield* send(client, tokenRequest({ ...goodForm, client_secret: "nope" }))
        expect(wrongSecret.status).toBe(401)
        expect(wrongSecret.json).toMatchObject({ error: "invalid_client" })
        const wrongGrant = yield* send(client, tokenRequest({ ...goodForm, grant_type: "password" }))
        expect(wrongGrant.status).toBe(400)
        expect(wrongGrant.json).toMatchObject({ error: "unsupported_grant_type" })
        const missing = yield* send(client, tokenRequest({ grant_type: "client_credentials" }))
        expect(missing.json).toMatchObject({ error: "invalid_request" })
        const json = yield* send(
          client,
          HttpClientRequest.post(tokenUrl).pipe(HttpClientRequest.bodyUnsafeJson(goodForm))
        )
        expect(json.status).toBe(400)
        const get = yield* send(client, HttpClientRequest.get(tokenUrl))
        expect(get.status).toBe(405)
        expect((yield* sandbox.control.stats).tokensIssued).toBe(0)
      })
    ))
})

describe("Sandbox API", () => {
  it.effect("a missing, malformed, forged, expired or revoked token is a 401 with an errors body", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const design = `${api}/design/${Sandbox.fixedNumbers.chair}`
        const good = yield* bearer(client)
        const forged = good.slice(0, -4) + (good.endsWith("AAAA") ? "BBBB" : "AAAA")
        for (const authorization of [undefined, "Basic abc", "Bearer not-a-jwt", forged]) {
          const request = HttpClientRequest.get(design)
          const r = yield* send(
            client,
            authorization === undefined ? request : HttpClientRequest.setHeader(request, "authorization", authorization)
          )
          expect(r.status).toBe(401)
          expect(r.headers["www-authenticate"]).toContain("Bearer")
          expect(r.json).toMatchObject({ errors: [{ code: "UNAUTHORIZED" }] })
        }
        const ok = yield* send(
          client,
          HttpClientRequest.get(design).pipe(HttpClientRequest.setHeader("authorization", good))
        )
        expect(ok.status).toBe(200)
        yield* TestClock.adjust("3601 seconds")
        const expired = yield* send(
          client,
          HttpClientRequest.get(design).pipe(HttpClientRequest.setHeader("authorization", good))
        )
        expect(expired.json).toMatchObject({ errors: [{ detail: "access token expired" }] })
        const fresh = yield* bearer(client)
        yield* sandbox.control.revokeTokens
        const revoked = yield* send(
          client,
          HttpClientRequest.get(design).pipe(HttpClientRequest.setHeader("authorization", fresh))
        )
        expect(revoked.json).toMatchObject({ errors: [{ detail: "access token revoked" }] })
      })
    ))

  it.effect("400 for JSON that is not well-formed, 422 with a pointer per offending field", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        const post = (body: string) =>
          send(
            client,
            HttpClientRequest.post(`${api}/search/quick`).pipe(
              HttpClientRequest.setHeader("authorization", authorization),
              HttpClientRequest.bodyText(body, "application/json")
            )
          )
        const malformed = yield* post("{\"query\": ")
        expect(malformed.status).toBe(400)
        expect(malformed.json).toMatchObject({ errors: [{ code: "MALFORMED_JSON", source: { parameter: "body" } }] })
        expect((malformed.json?.errors as Array<{ id?: string }>)[0]?.id).toBeTypeOf("string")
        const invalid = yield* post(
          JSON.stringify({ changedSinceDate: "yesterday", filters: { statusFilter: "REGISTERED" } })
        )
        expect(invalid.status).toBe(422)
        const pointers = (invalid.json?.errors as Array<{ source: { pointer: string } }>).map((e) => e.source.pointer)
        expect(pointers.sort()).toEqual(["/changedSinceDate", "/filters/statusFilter", "/query"])
      })
    ))

  it.effect("a malformed design number is a 400 naming ipRightIdentifier; an unknown one a 404", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        const get = (n: string) =>
          send(
            client,
            HttpClientRequest.get(`${api}/design/${n}`).pipe(
              HttpClientRequest.setHeader("authorization", authorization)
            )
          )
        for (const bad of ["..%2F..%2Fetc", "a%20b", "1234567890123", "%E2%82%AC"]) {
          const r = yield* get(bad)
          expect(r.status).toBe(400)
          expect(r.json).toMatchObject({ errors: [{ source: { parameter: "ipRightIdentifier" } }] })
        }
        const unknown = yield* get("999999999")
        expect(unknown.status).toBe(404)
        expect(unknown.json).toMatchObject({ errors: [{ code: "NOT_FOUND" }] })
      })
    ))

  it.effect("an injected 500 carries code \"500\"; faults go to their target only, count by count", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        yield* sandbox.control.injectFault({ target: "design", status: 500, count: 2 })
        const get = send(
          client,
          HttpClientRequest.get(`${api}/design/${Sandbox.fixedNumbers.chair}`).pipe(
            HttpClientRequest.setHeader("authorization", authorization)
          )
        )
        yield* bearer(client)
        const statuses = [(yield* get).status, (yield* get).status, (yield* get).status]
        expect(statuses).toEqual([500, 500, 200])
        const stats = yield* sandbox.control.stats
        expect(stats).toEqual({ tokensIssued: 2, requests: { token: 2, search: 0, design: 3 }, abandoned: 0 })
        yield* sandbox.control.reset
        expect(yield* sandbox.control.stats).toEqual({
          tokensIssued: 0,
          requests: { token: 0, search: 0, design: 0 },
          abandoned: 0
        })
      })
    ))

  it.effect("a fault that is not a fault is refused", () =>
    withSandbox((sandbox) =>
      Effect.gen(function*() {
        const bad = [
          { target: "elsewhere", status: 500 },
          { target: "any", status: 99 },
          { target: "any", status: 500, count: 0 }
        ]
        for (const fault of bad) {
          const exit = yield* Effect.exit(sandbox.control.injectFault(fault as Sandbox.Fault))
          expect(exit._tag).toBe("Failure")
        }
      })
    ))

  it.effect("HEAD is answered like GET, with the same status and headers and no body", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        for (const [number, status] of [[Sandbox.fixedNumbers.chair, 200], ["000000000", 404]] as const) {
          const url = `${api}/design/${number}`
          const head = yield* send(
            client,
            HttpClientRequest.head(url).pipe(HttpClientRequest.setHeader("authorization", authorization))
          )
          const get = yield* send(
            client,
            HttpClientRequest.get(url).pipe(HttpClientRequest.setHeader("authorization", authorization))
          )
          expect(get.status).toBe(status)
          expect(head.status).toBe(status)
          expect(head.text).toBe("")
          // Error ids count up from answer to answer, one character each this early: the same length.
          expect(head.headers).toEqual(get.headers)
          expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(get.text)))
        }
        const token = yield* send(client, HttpClientRequest.head(tokenUrl))
        expect(token.status).toBe(405)
        expect(token.headers["allow"]).toBe("POST")
        expect(token.text).toBe("")
      })
    ))

  it.effect("unknown routes are a 404 with an errors body", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const r = yield* send(client, HttpClientRequest.get(`${base}/nowhere`))
        expect(r.status).toBe(404)
        expect(r.json).toMatchObject({ errors: [{ code: "NOT_FOUND" }] })
      })
    ))
})

describe("Sandbox dataset and search", () => {
  it.effect("the same seed gives the same designs; another seed others", () =>
    Effect.gen(function*() {
      const search = (seed: number) =>
        Effect.map(Effect.orDie(Sandbox.make({ seed, designs: 300 })), (s) => s.designCount)
      expect(yield* search(1)).toBe(300)
      const designs = (seed: number) =>
        withSandbox((_, client) =>
          Effect.gen(function*() {
            const authorization = yield* bearer(client)
            const r = yield* send(
              client,
              HttpClientRequest.post(`${api}/search/quick`).pipe(
                HttpClientRequest.setHeader("authorization", authorization),
                HttpClientRequest.bodyUnsafeJson({ query: "chair" })
              )
            )
            return r.json
          }), { seed, designs: 300 })
      expect(yield* designs(7)).toEqual(yield* designs(7))
      expect(yield* designs(7)).not.toEqual(yield* designs(8))
    }))

  it.effect("every design is consistent: nine-digit year-first numbers, filing ≤ registration ≤ expiry, lastChanged after filing", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const authorization = yield* bearer(client)
        const search = (query: string) =>
          send(
            client,
            HttpClientRequest.post(`${api}/search/quick`).pipe(
              HttpClientRequest.setHeader("authorization", authorization),
              HttpClientRequest.bodyUnsafeJson({ query })
            )
          )
        const numbers = new Set<string>()
        for (const word of ["pty", "ltd", "limited", "inc", "gmbh", "co"]) {
          const r = yield* search(word)
          for (const n of r.json?.designNumbers as Array<string>) numbers.add(n)
        }
        expect(numbers.size).toBeGreaterThan(200)
        for (const n of numbers) {
          const r = yield* send(
            client,
            HttpClientRequest.get(`${api}/design/${n}`).pipe(
              HttpClientRequest.setHeader("authorization", authorization)
            )
          )
          const design = Schema.decodeUnknownSync(Designs.Design)(r.json)
          expect(design.number).toMatch(/^(19|20)\d{7}$/)
          expect(Number(design.number.slice(0, 4))).toBe(DateTime.getPartUtc(design.filingDate!, "year"))
          const filing = design.filingDate!.epochMillis
          if (design.registrationDate) expect(design.registrationDate.epochMillis).toBeGreaterThanOrEqual(filing)
          if (design.expiryDate) {
            expect(design.expiryDate.epochMillis).toBeGreaterThan(design.registrationDate!.epochMillis)
          }
          expect(design.lastChanged!.epochMillis).toBeGreaterThanOrEqual(filing)
          expect(design.classifications?.[0]?.code).toMatch(/^\d{2}-\d{2}$/)
        }
      }), { designs: 400 }))
})

describe("Sandbox quick search filters", () => {
  const fetchAll = (numbers: ReadonlyArray<string>) =>
    Effect.flatMap(
      DesignSearchClient.DesignSearchClient,
      (client) => Effect.forEach(numbers, (n) => Effect.map(client.getDesign(n), (r) => r.data))
    )

  it.effect("status, classification prefix and changed-since filters all hold, and sort reverses", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const all = yield* client.quickSearch({ query: "ltd" })
      const filtered = yield* client.quickSearch({
        query: "ltd",
        changedSinceDate: "2015-01-01",
        filters: { statusFilter: ["registered", "CERTIFIED"], classificationFilter: ["06", "0202c"] }
      })
      expect(filtered.data.count).toBeGreaterThan(0)
      expect(filtered.data.count).toBeLessThan(all.data.count)
      for (const design of yield* fetchAll(filtered.data.designNumbers)) {
        expect(["REGISTERED", "CERTIFIED"]).toContain(design.status)
        expect(design.classifications?.[0]?.code).toMatch(/^(06-|02-02)/)
        expect(design.lastChanged!.epochMillis).toBeGreaterThanOrEqual(Date.UTC(2015, 0, 1))
      }
      // the filter is exact: every design of the unfiltered search that passes it is listed
      const passing = (yield* fetchAll(all.data.designNumbers)).filter((d) =>
        ["REGISTERED", "CERTIFIED"].includes(d.status ?? "") &&
        /^(06-|02-02)/.test(d.classifications?.[0]?.code ?? "") &&
        d.lastChanged!.epochMillis >= Date.UTC(2015, 0, 1)
      )
      expect(filtered.data.designNumbers).toEqual(passing.map((d) => d.number))
      const ascending = all.data.designNumbers
      expect([...ascending].sort()).toEqual(ascending)
      const descending = yield* client.quickSearch({ query: "ltd", sort: { field: "NUMBER", direction: "DESCENDING" } })
      expect(descending.data.designNumbers).toEqual([...ascending].reverse())
    }).pipe(Effect.provide(clientLayer())))

  it.effect("all words of the query must match, in any field", () =>
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      const both = yield* client.quickSearch({ query: "Wattle Chair" })
      expect(both.data.designNumbers).toContain(Sandbox.fixedNumbers.chair)
      for (const design of yield* fetchAll(both.data.designNumbers)) {
        const text = JSON.stringify(design).toLowerCase()
        expect(text).toContain("wattle")
        expect(text).toContain("chair")
      }
      expect((yield* client.quickSearch({ query: "zzzzqqq" })).data).toEqual({ count: 0, designNumbers: [] })
    }).pipe(Effect.provide(clientLayer())))
})
