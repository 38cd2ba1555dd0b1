/**
 * `Designs`: dates, listings and designs are read as the service writes them, and requests are checked
 * before anything is sent (that its schemas describe the wire shapes of core: test/core.test.ts).
 */
import { dateTimeUnsafe, decodeUnknownResult, reportInput, Result } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { edition } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Option, Schema } from "effect"
import fc from "fast-check"
import * as Designs from "../src/Designs.js"
import { decodeSearchResult } from "../src/internal/client/operations.js"
import { checkAdvancedSearch, checkDesignNumber, checkPage, checkQuickSearch } from "../src/internal/client/requests.js"
import { parseOptions } from "../src/internal/schemaIssues.js"
import { pointerErrors } from "../src/internal/validation.js"

const decodeWireDate = decodeUnknownResult(Designs.WireDate)
const decodeIsoDate = decodeUnknownResult(Designs.IsoDate)
const decodeDesign = decodeUnknownResult(Designs.Design)
const isOk = (result: Result<unknown, unknown>) => Result.isSuccess(result)
/** The error objects of what a schema refused, none for a success; their pointers. */
const issues = (result: Result<unknown, SchemaError>) =>
  Result.match(result, { onFailure: pointerErrors, onSuccess: () => [] })
const pointers = (result: Result<unknown, SchemaError>) => issues(result).map((e) => e.source?.pointer)
const decoded = (s: string) =>
  Result.match(decodeWireDate(s), { onFailure: () => undefined, onSuccess: DateTime.toEpochMillis })

/** The plain reading of a wire date: a calendar date by regular expression, the rest by `Date`. */
const reference = (s: string): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m !== null) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    const date = new Date(Date.UTC(y, mo - 1, d))
    if (date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d) {
      return Date.parse(`${s}T00:00:00Z`)
    }
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s)) return undefined
  return Option.getOrUndefined(Option.map(DateTime.make(s), DateTime.toEpochMillis))
}

/** Strings near the `YYYY-MM-DD` form: digits, dashes and a few characters that must not pass. */
const nearDates = fc.stringOf(fc.constantFrom("0", "1", "2", "3", "9", "-", "T", " ", "٣", ":", "Z"), { maxLength: 12 })

describe("WireDate", () => {
  it("decodes calendar dates to midnight UTC and rejects dates that do not exist", () => {
    expect(decoded("2024-02-29")).toBe(Date.UTC(2024, 1, 29))
    expect(decoded("1999-12-31")).toBe(Date.UTC(1999, 11, 31))
    const notDates = ["2023-02-29", "2023-02-30", "2023-13-01", "2023-00-10", "2023-01-00", "0099-01-01"]
    for (const bad of [...notDates, "2023-1-01", "2023/01/01", "2023-01-01 ", "٢٠٢٣-01-01"]) {
      expect(decoded(bad), bad).toBeUndefined()
      expect(isOk(decodeIsoDate(bad)), bad).toBe(false)
    }
    expect(decoded("2023-01-05T10:20:30Z")).toBe(Date.UTC(2023, 0, 5, 10, 20, 30))
  })

  it("IsoDate tells a date written YYYY-MM-DD that names no day as no such day, in the same words in both editions", () => {
    const details = (s: string) => issues(decodeIsoDate(s)).map((e) => e.detail)
    expect(details("2024-02-30")).toEqual(["2024-02-30 is no such day"])
    expect(details("2023-02-29")).toEqual(["2023-02-29 is no such day"])
    expect(details("2023-13-01")).toEqual(["2023-13-01 is no such day"])
    for (const bad of ["01/10/2001", "2023-1-01", "2023-02-30x", ""]) {
      expect(details(bad), bad).toEqual(["expected a date written YYYY-MM-DD"])
    }
    expect(details("2024-02-29")).toEqual([])
  })

  it("agrees with the plain reading on any string", () => {
    const date = fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
    fc.assert(
      fc.property(fc.oneof(nearDates, fc.string(), date), (s) => {
        expect(decoded(s)).toBe(reference(s))
        expect(isOk(decodeIsoDate(s))).toBe(/^\d{4}-\d{2}-\d{2}$/.test(s) && reference(s) !== undefined)
      }),
      { numRuns: 2000 }
    )
  })

  it("round-trips", () => {
    const min = new Date(Date.UTC(1000, 0, 1))
    fc.assert(fc.property(fc.date({ min, max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), (d) => {
      const wire = Schema.encodeSync(Designs.WireDate)(dateTimeUnsafe(d.getTime()))
      expect(DateTime.toEpochMillis(Schema.decodeSync(Designs.WireDate)(wire))).toBe(d.getTime())
    }))
  })
})

describe("decodeSearchResult: tolerant of the service's names", () => {
  const numbers = fc.array(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), { maxLength: 4 })

  it("reads designIds when designNumbers is absent, as designNumbers; designNumbers wins when both are sent", () => {
    fc.assert(fc.property(fc.nat(), numbers, fc.option(numbers, { nil: undefined }), (count, ids, given) => {
      const decoded = Result.getOrUndefined(
        decodeSearchResult({ count, designIds: ids, ...(given === undefined ? {} : { designNumbers: given }) })
      )
      expect(decoded?.designNumbers).toEqual(given ?? ids)
      // Read as designNumbers, designIds is not kept beside them; sent with them, it is an unknown field.
      expect(decoded !== undefined && "designIds" in decoded).toBe(given !== undefined)
    }))
    expect(isOk(decodeSearchResult({ count: 1, designIds: ["not a number!"] }))).toBe(false)
    expect(pointers(decodeSearchResult({ count: 1 }))).toEqual(["/designNumbers"])
  })

  it("fails a listing with a bad number as an element-by-element decode does, naming where; keeps a good one as sent", () => {
    const elementwise = decodeUnknownResult(
      Schema.Struct({ designNumbers: Schema.Array(Designs.DesignNumber) }),
      reportInput
    )
    const bad = fc.oneof(fc.constant("not a number!"), fc.constant(""), fc.constant(7), fc.constant(null))
    fc.assert(fc.property(numbers, fc.nat(4), bad, (listed, at, wrong) => {
      const designNumbers = [...listed.slice(0, at), wrong, ...listed.slice(at)]
      const failed = issues(decodeSearchResult({ count: 1, designNumbers }))
      expect(failed).toEqual(issues(elementwise({ designNumbers })))
      expect(failed[0]?.source?.pointer).toEqual(`/designNumbers/${Math.min(at, listed.length)}`)
    }))
    expect(issues(decodeSearchResult({ count: 1, designNumbers: "1" }))).toEqual(
      issues(elementwise({ designNumbers: "1" }))
    )
    const all = decodeUnknownResult(Designs.SearchResult, { errors: "all" })
    expect(pointers(all({ count: 1, designNumbers: ["1", "not a number!", 7] }))).toEqual(
      [1, 2].map((i) => `/designNumbers/${i}`)
    )
    const listed = ["201915000", "A1"]
    const kept = Result.getOrUndefined(decodeSearchResult({ count: 2, designNumbers: listed }))?.designNumbers
    // Effect 3's DesignNumbers keeps a valid list in one pass; Effect 4's Schema.Array makes a copy
    if (edition === 3) expect(kept).toBe(listed)
    else expect(kept).toEqual(listed)
  })

  it("keeps the request as read and the aggregations, and holds aggregations to their shape", () => {
    const sent = {
      request: { rows: [{ op: "AND", query: { owner: "acme" } }] },
      count: 3,
      designIds: ["1", "2", "3"],
      aggregations: { status: { REGISTERED: 2, FILED: 1 } }
    }
    const { designIds: designNumbers, ...named } = sent
    expect(Result.getOrUndefined(decodeSearchResult(sent))).toEqual({ ...named, designNumbers })
    const extra = { ...named, designNumbers, extra: true }
    expect(Result.getOrUndefined(decodeSearchResult(extra))).toStrictEqual(extra)
    expect(pointers(decodeSearchResult({ ...sent, aggregations: { status: { REGISTERED: "2" } } })))
      .toEqual(["/aggregations/status/REGISTERED"])
    expect(isOk(decodeSearchResult({ ...sent, aggregations: [1] }))).toBe(false)
  })
})

describe("Design", () => {
  it("reads calendar dates and timestamps, and keeps unknown fields", () => {
    const design = Result.getOrUndefined(
      decodeDesign({ number: "201915000", filingDate: "2024-02-29", lastChanged: "2024-03-01T10:00:00Z", x: [1] })
    )
    expect(DateTime.toEpochMillis(design!.filingDate!)).toBe(Date.UTC(2024, 1, 29))
    expect(DateTime.toEpochMillis(design!.lastChanged!)).toBe(Date.UTC(2024, 2, 1, 10))
    expect(design!["x"]).toEqual([1])
    const sparse: Array<string> = ["a"]
    sparse[2] = "c"
    expect(isOk(decodeDesign({ number: "1", productNames: sparse }))).toBe(false)
    expect(isOk(decodeDesign({ number: "1", filingDate: "2023-02-30" }))).toBe(false)
  })
  it("encodes as it was sent: calendar dates as YYYY-MM-DD, other instants as timestamps, unknown fields kept", () => {
    const sent = { number: "201915000", filingDate: "2024-02-29", lastChanged: "2024-03-01T10:00:00.000Z", x: [1] }
    expect(Schema.encodeSync(Designs.Design)(Schema.decodeUnknownSync(Designs.Design)(sent))).toStrictEqual(sent)
  })
})

describe("requests are checked by their schemas before anything is sent", () => {
  const rows = [{ op: "AND", query: { owner: "acme" } }]
  const refused = (result: Result<unknown, { readonly errors: ReadonlyArray<{ readonly source?: unknown }> }>) =>
    Result.match(result, { onFailure: (e) => e.errors.map((x) => x.source), onSuccess: () => [] })

  it("a page size or number that is NaN, out of range or not an integer is refused, pointing at it", () => {
    for (const pageSize of [Number.NaN, 0, 101, 1.5, Infinity]) {
      expect(refused(checkPage({ rows, pageNumber: 0, pageSize })), `${pageSize}`).toEqual([{ pointer: "/pageSize" }])
    }
    for (const pageNumber of [Number.NaN, -1, 0.5]) {
      const refusal = refused(checkPage({ rows, pageNumber, pageSize: 10 }))
      expect(refusal, `${pageNumber}`).toEqual([{ pointer: "/pageNumber" }])
    }
    expect(isOk(checkPage({ rows, pageNumber: 3, pageSize: 100 }))).toBe(true)
    expect(refused(checkAdvancedSearch({ rows: [] }))).toEqual([{ pointer: "/rows" }])
    expect(refused(checkAdvancedSearch({ rows: [{ op: "AND", query: {} }] }))).toEqual([{ pointer: "/rows/0/query" }])
  })

  it("a criterion JSON cannot write as it is is refused: a function, a symbol, a bigint, NaN, a class, a hole, a cycle", () => {
    const cycle: Record<string, unknown> = {}
    cycle["self"] = cycle
    const hole: Array<number> = [1]
    hole[2] = 3
    const unwritable = [() => 1, Symbol("s"), 10n, NaN, -Infinity, new Date(0), new Map(), hole, cycle, [undefined]]
    for (const value of [...unwritable, { nested: { deeper: [() => 1] } }]) {
      const request = { rows: [{ op: "AND", query: { owner: "acme", extra: value } }] }
      const [source, ...more] = refused(checkAdvancedSearch(request)) as ReadonlyArray<{ readonly pointer: string }>
      expect(more, String(value)).toEqual([])
      expect(source?.pointer, String(value)).toMatch(/^\/rows\/0\/query\/extra(\/|$)/)
      const schemaIssues = issues(decodeUnknownResult(Designs.AdvancedSearchRequest)(request, parseOptions))
      expect(schemaIssues.map((e) => e.source), String(value)).toEqual([source])
    }
  })

  it("any value JSON writes as it is passes through as given", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const request = { rows: [{ op: "AND", query: { owner: "acme", extra: value } }], other: value }
      const written = JSON.parse(JSON.stringify(request))
      expect(JSON.parse(JSON.stringify(Result.getOrUndefined(checkAdvancedSearch(request))))).toStrictEqual(written)
      const checked = Schema.decodeUnknownSync(Designs.AdvancedSearchRequest)(request)
      expect(JSON.parse(JSON.stringify(checked))).toStrictEqual(written)
    }))
  })

  it("a quick search refuses unknown fields and blank queries; a design number is 1 to 12 letters or digits", () => {
    expect(refused(checkQuickSearch({ query: "chair", colour: "red" }))).toEqual([{ pointer: "/colour" }])
    expect(refused(checkQuickSearch({ query: "  " }))).toEqual([{ pointer: "/query" }])
    expect(isOk(checkQuickSearch({ query: "chair", filters: { statusFilter: ["REGISTERED"] } }))).toBe(true)
    for (const bad of ["", "12345678901234", "2019 1500", "../x", 201915000, undefined]) {
      expect(refused(checkDesignNumber(bad)), String(bad)).toEqual([{ parameter: "ipRightIdentifier" }])
    }
    expect(isOk(checkDesignNumber("201915000"))).toBe(true)
  })
})
