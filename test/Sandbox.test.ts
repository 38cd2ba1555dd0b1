/**
 * The in-process sandbox, through a raw `HttpClient` and through the client: the token endpoint,
 * the API's answers and errors, the dataset and its searches, faults, `touch`, and `Sandbox.layer`.
 */
import { clientErrorReason, dateTimeUnsafe, forkChild, HttpClient } from "#edition/internal/seam"
import { HttpClientRequest } from "#edition/internal/seam"
import { poll, schemaErrorTag, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Fiber, Option, Schema } from "effect"
import fc from "fast-check"
import { generateDesigns } from "../src/core/sandbox/dataset.js"
import * as SearchIndex from "../src/core/sandbox/searchIndex.js"
import type { Design } from "../src/core/wire/wire.js"
import { Designs, DesignSearchClient, DesignSearchConfig, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"
import { api, base, bearer, call, counters, goodForm, pointers, send } from "./support/rawSandbox.js"
import { tokenRequest, tokenUrl, withSandbox } from "./support/rawSandbox.js"

const { bottle, chair, wristWatch } = Sandbox.fixedNumbers
const owners = { rows: [{ op: "AND", query: { owner: "ltd" } }] }

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
        expect(claims["token_use"]).toBe("access")
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
          HttpClientRequest.bodyText(HttpClientRequest.post(tokenUrl), JSON.stringify(goodForm), "application/json")
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
        for (
          const [path, text] of [["/search/quick", "{\"query\": "], ["/search/advanced", "{\"rows\": ["], [
            "/page/advanced",
            "{\"rows\": ["
          ]]
        ) {
          const malformed = yield* call(client, path!, text)
          expect(malformed.status).toBe(400)
          expect(malformed.json).toMatchObject({ errors: [{ code: "MALFORMED_JSON", source: { parameter: "body" } }] })
          expect((malformed.json?.["errors"] as Array<{ id?: string }>)[0]?.id).toMatch(/^sbx-/)
        }
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
        expect([rows.status, pointers(rows)]).toEqual([422, ["/changedSinceDate", "/rows/0/op", "/rows/1/query"]])
        const dateType = yield* call(client, "/search/advanced", {
          rows: [{ op: "AND", query: { date: { type: "RENEWAL_DUE", from: "2020-01-01" } } }]
        })
        expect([dateType.status, pointers(dateType)]).toEqual([422, ["/rows/0/query/date/type"]])
        for (
          const [pageNumber, pageSize, pointer] of [[0, 0, "/pageSize"], [0, 101, "/pageSize"], [-1, 5, "/pageNumber"]]
        ) {
          const page = yield* call(client, "/page/advanced", { ...owners, pageNumber, pageSize })
          expect([page.status, pointers(page)]).toEqual([422, [pointer]])
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
        const unknown = yield* call(client, "/design/999999999")
        expect([unknown.status, unknown.json]).toMatchObject([404, { errors: [{ code: "NOT_FOUND" }] }])
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
          // Error ids count up from answer to answer, one character each this early: the same length.
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

  it.effect("every design is consistent: nine-digit year-first numbers, filing ≤ registration ≤ expiry, lastChanged after filing", () =>
    withSandbox((_, client) =>
      Effect.gen(function*() {
        const numbers = new Set<string>()
        for (const word of ["pty", "ltd", "limited", "inc", "gmbh", "co"]) {
          const r = yield* call(client, "/search/quick", { query: word })
          for (const n of r.json?.["designNumbers"] as Array<string>) numbers.add(n)
        }
        expect(numbers.size).toBeGreaterThan(200)
        for (const n of numbers) {
          const design = Schema.decodeUnknownSync(Designs.Design)((yield* call(client, `/design/${n}`)).json)
          expect(design.number).toMatch(/^(19|20)\d{7}$/)
          expect(Number(design.number.slice(0, 4))).toBe(DateTime.getPartUtc(design.filingDate!, "year"))
          const [filing, registered, expires, changed] = [
            design.filingDate,
            design.registrationDate,
            design.expiryDate,
            design.lastChanged
          ].map((date) => date && DateTime.toEpochMillis(date))
          if (registered !== undefined) expect(registered).toBeGreaterThanOrEqual(filing!)
          if (expires !== undefined) expect(expires).toBeGreaterThan(registered!)
          expect(changed).toBeGreaterThanOrEqual(filing!)
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
        expect(DateTime.toEpochMillis(design.lastChanged!)).toBeGreaterThanOrEqual(Date.UTC(2015, 0, 1))
      }
      // the filter is exact: every design of the unfiltered search that passes it is listed
      const passing = (yield* fetchAll(all.data.designNumbers)).filter((d) =>
        ["REGISTERED", "CERTIFIED"].includes(d.status ?? "") &&
        /^(06-|02-02)/.test(d.classifications?.[0]?.code ?? "") &&
        DateTime.toEpochMillis(d.lastChanged!) >= Date.UTC(2015, 0, 1)
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
      { minLength: 1, maxLength: 4 }
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

  it.effect("a page holds each design as get sends it; results name their numbers as configured", () =>
    Effect.gen(function*() {
      for (const resultField of Sandbox.resultFields) {
        yield* withSandbox((_, client) =>
          Effect.gen(function*() {
            const search = yield* call(client, "/search/advanced", owners)
            expect(search.status).toBe(200)
            const numbers = search.json?.[resultField] as Array<string>
            expect(Object.keys(search.json ?? {}).sort()).toEqual(["aggregations", "count", resultField].sort())
            expect(numbers).toHaveLength(search.json?.["count"] as number)
            const statusCounts = (search.json?.["aggregations"] as { status: Record<string, number> }).status
            expect(Object.values(statusCounts).reduce((a, b) => a + b, 0)).toBe(search.json?.["count"])
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

  it.effect("unknown criteria are ignored and named; a capped advanced search says so; faults hit their target only", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const unknown = yield* call(client, "/search/advanced", {
          rows: [{ op: "AND", query: { owner: "ltd", colour: "red", size: 3 } }]
        })
        const messages = unknown.json?.["messages"] as Array<{ code: string; detail: string; severity: string }>
        expect(messages.map((m) => [m.code, m.severity])).toEqual([["UNKNOWN_CRITERION", "information"]])
        expect(messages[0]?.detail).toContain("colour, size")
        expect(unknown.json?.["data"]).toEqual((yield* call(client, "/search/advanced", owners)).json)
        const capped = yield* call(client, "/search/advanced", { rows: [{ op: "AND_NOT", query: { owner: "zzz" } }] })
        expect((capped.json?.["data"] as { designNumbers: Array<string> }).designNumbers).toHaveLength(40)
        expect(capped.json?.["messages"]).toMatchObject([{ code: "RESULT_LIMIT", severity: "warning" }])

        yield* sandbox.control.injectFault({ target: "page", status: 503 })
        yield* sandbox.control.injectFault({ target: "advanced", status: 500 })
        expect((yield* call(client, "/search/quick", { query: "chair" })).status).toBe(200)
        expect((yield* call(client, "/page/advanced", { ...owners, pageNumber: 0, pageSize: 1 })).status).toBe(503)
        expect((yield* call(client, "/search/advanced", owners)).status).toBe(500)
        expect((yield* call(client, "/search/advanced", owners)).status).toBe(200)
        expect((yield* sandbox.control.stats).requests).toMatchObject({ search: 1, advanced: 5, page: 1 })
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
        expect(String(error)).toContain(says)
      }
    }))
})

describe("SandboxControl.touch", () => {
  const dec2 = Date.UTC(2026, 11, 2)

  it.effect("amends each title, sets lastChanged to the sandbox's today, and every search by changedSinceDate finds exactly those", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(dec2 + 15 * 3_600_000)
      const client = yield* DesignSearchClient.DesignSearchClient
      const control = yield* Sandbox.SandboxControl
      const before = (yield* client.getDesign(chair)).data
      yield* control.touch([chair, bottle])
      const after = (yield* client.getDesign(chair)).data
      expect(after.title).toBe(`${before.title} (amended)`)
      expect(after.lastChanged).toEqual(dateTimeUnsafe(dec2))
      expect({ ...after, title: before.title, lastChanged: before.lastChanged }).toEqual(before)

      const everything: Designs.AdvancedSearchRequest = {
        rows: [{ op: "AND", query: { date: { type: "FILING", from: "1900-01-01" } } }]
      }
      const since = (changedSinceDate: string) => client.advancedSearch({ ...everything, changedSinceDate })
      expect((yield* since("2026-12-02")).data.designNumbers).toEqual([chair, bottle])
      expect((yield* since("2026-12-03")).data.count).toBe(0)
      expect((yield* since("2026-12-01")).data.count).toBe(2)
      const page = yield* client.searchPage({
        ...everything,
        changedSinceDate: "2026-12-02",
        pageNumber: 0,
        pageSize: 10
      })
      const amended = [[chair, true], [bottle, true]]
      expect(page.data.designs.map((d) => [d.number, d.title?.endsWith(" (amended)")])).toEqual(amended)
      // The title's new word is indexed; the day before finds more, the next day none.
      expect((yield* client.quickSearch({ query: "amended" })).data.designNumbers).toEqual([chair, bottle])
      expect((yield* client.quickSearch({ query: "amended", changedSinceDate: "2026-12-02" })).data.count).toBe(2)
      expect((yield* client.quickSearch({ query: "amended", changedSinceDate: "2026-12-03" })).data.count).toBe(0)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("an unknown number fails with UnknownDesignsError naming it, and nothing is touched", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          sandbox.control.touch([wristWatch, "999999999", "x1"]).pipe(Effect.catchTag(schemaErrorTag, Effect.die))
        )
        expect(error).toBeInstanceOf(Sandbox.UnknownDesignsError)
        expect([error._tag, error.numbers, error.message]).toEqual([
          "UnknownDesignsError",
          ["999999999", "x1"],
          "no design numbered 999999999, x1"
        ])
        expect(String((yield* call(client, `/design/${wristWatch}`)).json?.["title"])).not.toMatch(/amended/)
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
        expect(yield* sandbox.control.stats).toEqual(counters({ token: 3, design: 3 }))
        yield* sandbox.control.reset
        expect(yield* sandbox.control.stats).toEqual(counters())
        const page = yield* call(client, "/page/advanced", { ...owners, pageNumber: 0, pageSize: 1 })
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
        const fiber = yield* forkChild(call(client, "/search/quick", { query: "chair" }))
        yield* TestClock.adjust("1999 millis")
        expect(Option.isNone(yield* poll(fiber))).toBe(true)
        yield* TestClock.adjust("1 millis")
        const empty = yield* Fiber.await(fiber)
        expect(empty._tag === "Success" && [empty.value.status, empty.value.text]).toEqual([204, ""])
      })
    ))

  it.effect("a reset is a transport error; resetMidBody sends the headers and fails the body half-way", () =>
    withSandbox((sandbox, client) =>
      Effect.gen(function*() {
        const get = HttpClientRequest.get(`${api}/design/${chair}`).pipe(
          HttpClientRequest.setHeader("authorization", yield* bearer(client))
        )
        yield* sandbox.control.injectFault({ target: "design", status: 200, kind: "reset" })
        expect(clientErrorReason(yield* Effect.flip(client.execute(get))).name).toBe("Transport")
        yield* sandbox.control.injectFault({
          target: "design",
          status: 200,
          kind: "resetMidBody",
          body: { number: chair }
        })
        const response = yield* client.execute(get)
        expect(response.status).toBe(200)
        expect(response.headers["x-sandbox-reset"]).toBeUndefined()
        expect(clientErrorReason(yield* Effect.flip(response.text)).name).toBe("Decode")
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
          expect(error._tag).toBe(schemaErrorTag)
          expect(error.message, JSON.stringify(fault)).toContain(says)
        }
        expect((yield* sandbox.control.requests()).entries).toEqual([])
      })
    ))
})
