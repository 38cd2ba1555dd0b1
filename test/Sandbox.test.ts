import type { HttpClient } from "@effect/platform"
import { HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, FastCheck as fc, Schema, TestClock } from "effect"
import { generateDesigns } from "../src/core/sandbox/dataset.js"
import * as SearchIndex from "../src/core/sandbox/searchIndex.js"
import type { Design } from "../src/core/wire/wire.js"
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
        expect(stats).toEqual({
          tokensIssued: 2,
          requests: { token: 2, search: 0, design: 3, advanced: 0, page: 0 },
          abandoned: 0
        })
        yield* sandbox.control.reset
        expect(yield* sandbox.control.stats).toEqual({
          tokensIssued: 0,
          requests: { token: 0, search: 0, design: 0, advanced: 0, page: 0 },
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

  it.effect("each sample owner, product and class finds designs, in a dataset of any size and seed", () =>
    Effect.gen(function*() {
      const { classes, owners, products } = Sandbox.samples
      for (const list of [owners, products, classes]) expect(list.length).toBeGreaterThanOrEqual(3)
      const criteria: ReadonlyArray<Designs.Criteria> = [
        ...owners.map((owner) => ({ owner })),
        ...products.map((productName) => ({ productName })),
        ...classes.map((classification) => ({ classification }))
      ]
      for (const options of [{ designs: 1 }, {}, { designs: 50, seed: 7 }]) {
        const counts = yield* Effect.forEach(criteria, (query) =>
          Effect.gen(function*() {
            const client = yield* DesignSearchClient.DesignSearchClient
            const advanced = yield* client.advancedSearch({ rows: [{ op: "AND", query }] })
            // A class is a filter of the quick search, not its words.
            if (query.classification !== undefined) return advanced.data.count
            const quick = yield* client.quickSearch({ query: query.owner ?? query.productName ?? "" })
            return Math.min(quick.data.count, advanced.data.count)
          })).pipe(Effect.provide(clientLayer({ sandbox: options })))
        expect(counts.every((count) => count > 0), JSON.stringify({ options, counts })).toBe(true)
      }
    }))
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

describe("Sandbox advanced and paged search", () => {
  const designs = generateDesigns(400, 7)
  const index = SearchIndex.make(designs)
  const ordered = designs.map((d) => d.number).sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
  const byNumber = new Map(designs.map((d) => [d.number, d]))

  /** The criteria of a row, evaluated on one design as the README says, with no index. */
  const holds = (design: Design, criteria: Designs.Criteria): boolean => {
    const hasWords = (texts: ReadonlyArray<string>, wanted: string) => {
      const have = new Set(SearchIndex.words(texts.join(" ")))
      return SearchIndex.words(wanted).every((w) => have.has(w))
    }
    const dateOf: Record<string, string | undefined> = {
      FILING: design.filingDate,
      PRIORITY: design.filingDate,
      REGISTRATION: design.registrationDate,
      EXPIRY: design.expiryDate,
      LAST_CHANGED: design.lastChanged
    }
    const day = (date: string | undefined) => date?.slice(0, 10)
    const code = (c: string) => c.toLowerCase().replace(/[^0-9a-z]/g, "")
    const { classification, date, designNumber, designer, owner, productName, statuses } = criteria
    const onDay = date === undefined ? undefined : day(dateOf[date.type])
    return (owner === undefined || hasWords((design.owners ?? []).map((o) => o.name), owner)) &&
      (designer === undefined || hasWords((design.designers ?? []).map((o) => o.name), designer)) &&
      (productName === undefined || hasWords(design.productNames ?? [], productName)) &&
      (designNumber === undefined || design.number === designNumber) &&
      (classification === undefined ||
        code(classification) !== "" &&
          (design.classifications ?? []).some((c) =>
            code(c.code).startsWith(code(classification)) || code(classification).startsWith(code(c.code))
          )) &&
      (statuses === undefined || statuses.some((s) => s.toUpperCase() === design.status)) &&
      (date === undefined ||
        onDay !== undefined && (date.from === undefined || date.from <= onDay) &&
          (date.to === undefined || onDay <= date.to))
  }

  /** The numbers an advanced search should list, in its order. */
  const expected = (request: Designs.AdvancedSearchRequest): Array<string> => {
    const numbers = ordered.filter((n) => {
      const design = byNumber.get(n)!
      let kept = false
      request.rows.forEach((row, i) => {
        const m = holds(design, row.query)
        kept = i === 0
          ? (row.op === "AND_NOT" ? !m : m)
          : row.op === "AND"
          ? kept && m
          : row.op === "OR"
          ? kept || m
          : kept && !m
      })
      const since = request.changedSinceDate
      return kept && (since === undefined || design.lastChanged!.slice(0, 10) >= since)
    })
    return request.sort?.direction === "DESCENDING" ? numbers.reverse() : numbers
  }

  // Days of the dataset's own dates (a range's bounds are inclusive), and days between them.
  const days = [...new Set(designs.flatMap((d) => [d.filingDate, d.registrationDate, d.expiryDate, d.lastChanged]))]
    .flatMap((date) => date === undefined ? [] : [date.slice(0, 10)])
  const year = fc.oneof(
    fc.integer({ min: 1999, max: 2036 }).map((y) => `${y}-0${1 + (y % 9)}-1${y % 10}`),
    fc.constantFrom(...days)
  )
  const criterion = {
    owner: fc.constantFrom("ltd", "pty ltd", "coastal", "harbour designs", "wattle furniture", "zzz"),
    designer: fc.constantFrom("chen", "olivia", "smith", "jack nguyen"),
    productName: fc.constantFrom("chair", "chairs", "bottle", "lamp", "table"),
    designNumber: fc.constantFrom(Sandbox.fixedNumbers.chair, ordered[17]!, ordered[300]!, "999999999"),
    classification: fc.constantFrom("06", "06-01", "0202c", "09", "10-02", "32", "((((", "-"),
    statuses: fc.subarray(["registered", "FILED", "CERTIFIED", "EXPIRED", "LAPSED"], { minLength: 1 }),
    date: fc.record({ type: fc.constantFrom(...Designs.knownDateTypes), from: year, to: year }, {
      requiredKeys: ["type"]
    })
      .filter((r) => (r.from !== undefined || r.to !== undefined) && !(r.from! > r.to!)),
    colour: fc.constant("red")
  }
  // One or two criteria a row, any of them: more would rarely match anything.
  const criteria: fc.Arbitrary<Designs.Criteria> = fc.tuple(
    fc.record(criterion),
    fc.shuffledSubarray(Object.keys(criterion) as Array<keyof typeof criterion>, { minLength: 1, maxLength: 2 })
  ).map(([all, names]) => Object.fromEntries(names.map((name) => [name, all[name]])))
  const request: fc.Arbitrary<Designs.AdvancedSearchRequest> = fc.record({
    rows: fc.array(
      fc.record({ op: fc.constantFrom("AND" as const, "OR" as const, "AND_NOT" as const), query: criteria }),
      {
        minLength: 1,
        maxLength: 4
      }
    ),
    changedSinceDate: year,
    sort: fc.record({
      field: fc.constant("NUMBER"),
      direction: fc.constantFrom("ASCENDING" as const, "DESCENDING" as const)
    })
  }, { requiredKeys: ["rows"] })

  it("lists exactly the designs whose rows, joined left to right, hold; any window of them; statuses counted", () => {
    let nonEmpty = 0
    fc.assert(
      fc.property(request, fc.nat(60), fc.integer({ min: 1, max: 50 }), (request, offset, limit) => {
        const want = expected(request)
        const hits = index.advanced(request, offset, limit)
        expect(hits.count).toBe(want.length)
        expect(hits.designs.map((d) => d.number)).toEqual(want.slice(offset, offset + limit))
        const statuses: Record<string, number> = {}
        for (const n of want) statuses[byNumber.get(n)!.status!] = (statuses[byNumber.get(n)!.status!] ?? 0) + 1
        expect(hits.statuses).toEqual(statuses)
        if (want.length > 0) nonEmpty++
      }),
      { numRuns: 400 }
    )
    // The generators reach searches with matches, not only empty ones.
    expect(nonEmpty).toBeGreaterThan(100)
  })

  const post = (client: HttpClient.HttpClient, path: string, body: unknown) =>
    Effect.flatMap(bearer(client), (authorization) =>
      send(
        client,
        HttpClientRequest.post(`${api}${path}`).pipe(
          HttpClientRequest.setHeader("authorization", authorization),
          HttpClientRequest.bodyText(typeof body === "string" ? body : JSON.stringify(body), "application/json")
        )
      ))
  const owners = { rows: [{ op: "AND", query: { owner: "ltd" } }] }

  it.effect("bad requests are spec-shaped: 400 for JSON that is not, 422 with a pointer per problem", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        for (const path of ["/search/advanced", "/page/advanced"]) {
          const malformed = yield* post(client, path, "{\"rows\": [")
          expect(malformed.status).toBe(400)
          expect(malformed.json).toMatchObject({ errors: [{ code: "MALFORMED_JSON", source: { parameter: "body" } }] })
        }
        const pointers = (r: { readonly json?: Record<string, unknown> | undefined }) =>
          (r.json?.errors as Array<{ source: { pointer: string } }>).map((e) => e.source.pointer).sort()
        const rows = yield* post(client, "/search/advanced", {
          rows: [{ op: "XOR", query: { owner: "ltd" } }, { op: "AND", query: {} }],
          changedSinceDate: "soon"
        })
        expect(rows.status).toBe(422)
        expect(pointers(rows)).toEqual(["/changedSinceDate", "/rows/0/op", "/rows/1/query"])
        const dateType = yield* post(client, "/search/advanced", {
          rows: [{ op: "AND", query: { date: { type: "RENEWAL_DUE", from: "2020-01-01" } } }]
        })
        expect(dateType.status).toBe(422)
        expect(pointers(dateType)).toEqual(["/rows/0/query/date/type"])
        for (
          const [pageNumber, pageSize, pointer] of [[0, 0, "/pageSize"], [0, 101, "/pageSize"], [-1, 5, "/pageNumber"]]
        ) {
          const page = yield* post(client, "/page/advanced", { ...owners, pageNumber, pageSize })
          expect(page.status).toBe(422)
          expect(pointers(page)).toEqual([pointer])
        }
        const missing = yield* post(client, "/page/advanced", owners)
        expect(pointers(missing)).toEqual(["/pageNumber", "/pageSize"])
        const get = yield* send(
          client,
          HttpClientRequest.get(`${api}/page/advanced`).pipe(
            HttpClientRequest.setHeader("authorization", yield* bearer(client))
          )
        )
        expect(get.status).toBe(405)
        expect(get.headers["allow"]).toBe("POST")
      })
    ))

  it.effect("a page holds each design as get sends it; results name their numbers as configured", () =>
    Effect.gen(function*() {
      for (const resultField of Sandbox.resultFields) {
        yield* withSandbox((_, client) =>
          Effect.gen(function*() {
            const search = yield* post(client, "/search/advanced", owners)
            expect(search.status).toBe(200)
            const numbers = search.json?.[resultField] as Array<string>
            expect(Object.keys(search.json ?? {}).sort()).toEqual(["aggregations", "count", resultField].sort())
            expect(numbers).toHaveLength(search.json?.count as number)
            const statusCounts = (search.json?.aggregations as { status: Record<string, number> }).status
            expect(Object.values(statusCounts).reduce((a, b) => a + b, 0)).toBe(search.json?.count)
            const quick = yield* post(client, "/search/quick", { query: "chair" })
            expect(quick.json?.[resultField]).toContain(Sandbox.fixedNumbers.chair)

            const page = yield* post(client, "/page/advanced", { ...owners, pageNumber: 1, pageSize: 3 })
            expect(page.json).toMatchObject({ count: search.json?.count, aggregations: search.json?.aggregations })
            const records = page.json?.designs as Array<{ number: string }>
            expect(records.map((d) => d.number)).toEqual(numbers.slice(3, 6))
            const authorization = yield* bearer(client)
            for (const record of records) {
              const got = yield* send(
                client,
                HttpClientRequest.get(`${api}/design/${record.number}`).pipe(
                  HttpClientRequest.setHeader("authorization", authorization)
                )
              )
              expect(record).toEqual(got.json)
            }
          }), { resultField })
      }
    }))

  it.effect("unknown criteria are ignored and named; a capped advanced search says so; faults hit their target only", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const unknown = yield* post(client, "/search/advanced", {
          rows: [{ op: "AND", query: { owner: "ltd", colour: "red", size: 3 } }]
        })
        const messages = unknown.json?.messages as Array<{ code: string; detail: string; severity: string }>
        expect(messages.map((m) => [m.code, m.severity])).toEqual([["UNKNOWN_CRITERION", "information"]])
        expect(messages[0]?.detail).toContain("colour, size")
        const plain = yield* post(client, "/search/advanced", owners)
        expect(unknown.json?.data).toEqual(plain.json)

        const capped = yield* post(client, "/search/advanced", { rows: [{ op: "AND_NOT", query: { owner: "zzz" } }] })
        expect((capped.json?.data as { count: number; designNumbers: Array<string> }).designNumbers).toHaveLength(40)
        expect(capped.json?.messages).toMatchObject([{ code: "RESULT_LIMIT", severity: "warning" }])

        yield* sandbox.control.injectFault({ target: "page", status: 503 })
        yield* sandbox.control.injectFault({ target: "advanced", status: 500 })
        expect((yield* post(client, "/search/quick", { query: "chair" })).status).toBe(200)
        expect((yield* post(client, "/page/advanced", { ...owners, pageNumber: 0, pageSize: 1 })).status).toBe(503)
        expect((yield* post(client, "/search/advanced", owners)).status).toBe(500)
        expect((yield* post(client, "/search/advanced", owners)).status).toBe(200)
        expect((yield* sandbox.control.stats).requests).toMatchObject({ search: 1, advanced: 5, page: 1 })
      }), { designs: 60, resultCap: 40 }))

  it.effect("a resultField that is neither name is a ConfigError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Sandbox.make({ resultField: "ids" as Sandbox.ResultField }))
      expect(String(error)).toContain("resultField")
    }))
})

describe("SandboxControl.touch", () => {
  const dec2 = Date.UTC(2026, 11, 2)
  const { bottle, chair, wristWatch } = Sandbox.fixedNumbers

  it.effect("amends each title, sets lastChanged to the sandbox's today, and every search by changedSinceDate finds exactly those", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(dec2 + 15 * 3_600_000)
      const client = yield* DesignSearchClient.DesignSearchClient
      const control = yield* Sandbox.SandboxControl
      const before = (yield* client.getDesign(chair)).data
      yield* control.touch([chair, bottle])
      const after = (yield* client.getDesign(chair)).data
      expect(after.title).toBe(`${before.title} (amended)`)
      expect(after.lastChanged).toEqual(DateTime.unsafeMake(dec2))
      expect({ ...after, title: before.title, lastChanged: before.lastChanged }).toEqual(before)

      const since = { changedSinceDate: "2026-12-02" }
      const everything: Designs.AdvancedSearchRequest = {
        rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
      }
      expect((yield* client.advancedSearch({ ...everything, ...since })).data.designNumbers).toEqual([chair, bottle])
      const page = (yield* client.searchPage({ ...everything, ...since, pageNumber: 0, pageSize: 10 })).data
      expect(page.designs.map((d) => [d.number, d.title?.endsWith(" (amended)")])).toEqual([[chair, true], [
        bottle,
        true
      ]])
      // The title's new word is indexed; the day before finds more, the next day none.
      expect((yield* client.quickSearch({ query: "amended" })).data.designNumbers).toEqual([chair, bottle])
      expect((yield* client.quickSearch({ query: "amended", ...since })).data.count).toBe(2)
      expect((yield* client.quickSearch({ query: "amended", changedSinceDate: "2026-12-03" })).data.count).toBe(0)
      expect((yield* client.advancedSearch({ ...everything, changedSinceDate: "2026-12-01" })).data.count)
        .toBe(2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("an unknown number fails with UnknownDesignsError naming it, and nothing is touched", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(dec2)
      const client = yield* DesignSearchClient.DesignSearchClient
      const control = yield* Sandbox.SandboxControl
      const error = yield* Effect.flip(
        control.touch([wristWatch, "999999999", "x1"]).pipe(Effect.catchTag("ParseError", Effect.die))
      )
      expect(error).toBeInstanceOf(Sandbox.UnknownDesignsError)
      expect(error.numbers).toEqual(["999999999", "x1"])
      expect((yield* client.getDesign(wristWatch)).data.title).not.toMatch(/amended/)
      expect((yield* client.quickSearch({ query: "amended" })).data.count).toBe(0)
    }).pipe(Effect.provide(clientLayer())))
})
