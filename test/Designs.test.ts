import { describe, expect, it } from "@effect/vitest"
import { DateTime, Either, FastCheck as fc, Option, ParseResult, Schema } from "effect"
import { Design, DesignNumber, IsoDate, WireDate } from "../src/Designs.js"
import { decodeSearchResult } from "../src/internal/client/operations.js"
import { checkAdvancedSearch, checkDesignNumber, checkPage, checkQuickSearch } from "../src/internal/client/requests.js"

const decodeWireDate = Schema.decodeUnknownEither(WireDate)
const decodeIsoDate = Schema.decodeUnknownEither(IsoDate)

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

const decoded = (s: string): number | undefined =>
  Either.match(decodeWireDate(s), {
    onLeft: () => undefined,
    onRight: DateTime.toEpochMillis
  })

/** Strings near the `YYYY-MM-DD` form: digits, dashes and a few characters that must not pass. */
const nearDates = fc.stringOf(fc.constantFrom("0", "1", "2", "3", "9", "-", "T", " ", "٣", ":", "Z"), { maxLength: 12 })

describe("WireDate", () => {
  it("decodes calendar dates to midnight UTC and rejects dates that do not exist", () => {
    expect(decoded("2024-02-29")).toBe(Date.UTC(2024, 1, 29))
    expect(decoded("1999-12-31")).toBe(Date.UTC(1999, 11, 31))
    for (
      const bad of [
        "2023-02-29",
        "2023-02-30",
        "2023-13-01",
        "2023-00-10",
        "2023-01-00",
        "0099-01-01",
        "2023-1-01",
        "2023/01/01",
        "2023-01-01 ",
        "٢٠٢٣-01-01"
      ]
    ) {
      expect(decoded(bad), bad).toBeUndefined()
      expect(Either.isLeft(decodeIsoDate(bad)), bad).toBe(true)
    }
    expect(decoded("2023-01-05T10:20:30Z")).toBe(Date.UTC(2023, 0, 5, 10, 20, 30))
  })

  it("agrees with the plain reading on any string", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          nearDates,
          fc.string(),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
        ),
        (s) => {
          expect(decoded(s)).toBe(reference(s))
          expect(Either.isRight(decodeIsoDate(s))).toBe(/^\d{4}-\d{2}-\d{2}$/.test(s) && reference(s) !== undefined)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("round-trips", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
        (d) => {
          const utc = DateTime.unsafeMake(d)
          const wire = Schema.encodeSync(WireDate)(utc)
          expect(DateTime.toEpochMillis(Schema.decodeSync(WireDate)(wire))).toBe(d.getTime())
        }
      )
    )
  })
})

describe("decodeSearchResult: tolerant of the service's names", () => {
  const numbers = fc.array(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), { maxLength: 4 })

  it("reads designIds when designNumbers is absent, as designNumbers; designNumbers wins when both are sent", () => {
    fc.assert(fc.property(fc.nat(), numbers, fc.option(numbers, { nil: undefined }), (count, ids, given) => {
      const decoded = Either.getOrThrow(
        decodeSearchResult({ count, designIds: ids, ...(given === undefined ? {} : { designNumbers: given }) })
      )
      expect(decoded.designNumbers).toEqual(given ?? ids)
      // Read as designNumbers, designIds is not kept beside them; sent with them, it is an unknown field.
      expect("designIds" in decoded).toBe(given !== undefined)
    }))
    expect(Either.isLeft(decodeSearchResult({ count: 1, designIds: ["not a number!"] }))).toBe(true)
    expect(Either.isLeft(decodeSearchResult({ count: 1 }))).toBe(true)
  })

  it("fails a listing with a bad number as an element-by-element decode does, naming where; keeps a good one as sent", () => {
    const elementwise = Schema.decodeUnknownEither(
      Schema.Struct({ count: Schema.NonNegativeInt, designNumbers: Schema.Array(DesignNumber) })
    )
    const issue = (u: unknown) =>
      Either.match(u as Either.Either<unknown, ParseResult.ParseError>, {
        onLeft: (e) => ParseResult.ArrayFormatter.formatErrorSync(e),
        onRight: () => []
      })
    const bad = fc.oneof(fc.constant("not a number!"), fc.constant(""), fc.constant(7), fc.constant(null))
    fc.assert(fc.property(numbers, fc.nat(4), bad, (listed, at, wrong) => {
      const designNumbers = [...listed.slice(0, at), wrong, ...listed.slice(at)]
      const failed = issue(decodeSearchResult({ count: 1, designNumbers }))
      expect(failed).toEqual(issue(elementwise({ count: 1, designNumbers })))
      expect(failed[0]?.path).toEqual(["designNumbers", Math.min(at, listed.length)])
    }))
    expect(issue(decodeSearchResult({ count: 1, designNumbers: "1" }))).toEqual(
      issue(elementwise({ count: 1, designNumbers: "1" }))
    )
    const listed = ["201915000", "A1"]
    expect(Either.getOrThrow(decodeSearchResult({ count: 2, designNumbers: listed })).designNumbers).toBe(listed)
  })

  it("keeps the request as read and the aggregations, and holds aggregations to their shape", () => {
    const sent = {
      request: { rows: [{ op: "AND", query: { owner: "acme" } }] },
      count: 3,
      designIds: ["1", "2", "3"],
      aggregations: { status: { REGISTERED: 2, FILED: 1 } }
    }
    const decoded = Either.getOrThrow(decodeSearchResult(sent))
    expect(decoded).toEqual({
      request: sent.request,
      count: 3,
      designNumbers: ["1", "2", "3"],
      aggregations: sent.aggregations
    })
    expect(Either.isLeft(decodeSearchResult({ ...sent, aggregations: { status: { REGISTERED: "2" } } }))).toBe(true)
    expect(Either.isLeft(decodeSearchResult({ ...sent, aggregations: [1] }))).toBe(true)
  })
})

describe("Design", () => {
  const decodeDesign = Schema.decodeUnknownEither(Design)
  it("reads calendar dates and timestamps, and keeps unknown fields", () => {
    const design = Either.getOrThrow(
      decodeDesign({ number: "201915000", filingDate: "2024-02-29", lastChanged: "2024-03-01T10:00:00Z", x: [1] })
    )
    expect(DateTime.toEpochMillis(design.filingDate!)).toBe(Date.UTC(2024, 1, 29))
    expect(DateTime.toEpochMillis(design.lastChanged!)).toBe(Date.UTC(2024, 2, 1, 10))
    expect(design["x"]).toEqual([1])
    const sparse: Array<string> = ["a"]
    sparse[2] = "c"
    expect(Either.isLeft(decodeDesign({ number: "1", productNames: sparse }))).toBe(true)
    expect(Either.isLeft(decodeDesign({ number: "1", filingDate: "2023-02-30" }))).toBe(true)
  })
  it("encodes as it was sent: calendar dates as YYYY-MM-DD, other instants as timestamps, unknown fields kept", () => {
    const sent = { number: "201915000", filingDate: "2024-02-29", lastChanged: "2024-03-01T10:00:00.000Z", x: [1] }
    expect(Schema.encodeSync(Design)(Either.getOrThrow(decodeDesign(sent)))).toStrictEqual(sent)
  })
})

describe("requests are checked by their schemas before anything is sent", () => {
  const rows = [{ op: "AND", query: { owner: "acme" } }]
  const refused = (result: Either.Either<unknown, { readonly errors: ReadonlyArray<{ readonly source?: unknown }> }>) =>
    Either.match(result, { onLeft: (e) => e.errors.map((x) => x.source), onRight: () => [] })

  it("a page size or number that is NaN, out of range or not an integer is refused, pointing at it", () => {
    for (const pageSize of [Number.NaN, 0, 101, 1.5, Infinity]) {
      expect(refused(checkPage({ rows, pageNumber: 0, pageSize })), String(pageSize)).toEqual([{
        pointer: "/pageSize"
      }])
    }
    for (const pageNumber of [Number.NaN, -1, 0.5]) {
      expect(refused(checkPage({ rows, pageNumber, pageSize: 10 })), String(pageNumber)).toEqual([
        { pointer: "/pageNumber" }
      ])
    }
    expect(Either.isRight(checkPage({ rows, pageNumber: 3, pageSize: 100 }))).toBe(true)
  })

  it("a criterion JSON cannot write as it is is refused: a function, a symbol, a bigint, NaN, a class, a hole, a cycle", () => {
    const cycle: Record<string, unknown> = {}
    cycle["self"] = cycle
    const hole: Array<number> = [1]
    hole[2] = 3
    const unwritable: ReadonlyArray<unknown> = [
      () => 1,
      Symbol("s"),
      10n,
      Number.NaN,
      -Infinity,
      new Date(0),
      new Map(),
      hole,
      cycle,
      [undefined],
      { nested: { deeper: [() => 1] } }
    ]
    for (const value of unwritable) {
      const request = { rows: [{ op: "AND", query: { owner: "acme", extra: value } }] }
      const [source, ...more] = refused(checkAdvancedSearch(request)) as ReadonlyArray<{ readonly pointer: string }>
      expect(more, String(value)).toEqual([])
      expect(source?.pointer, String(value)).toMatch(/^\/rows\/0\/query\/extra(\/|$)/)
    }
  })

  it("any value JSON writes as it is passes through as given", () => {
    const json = fc.jsonValue()
    fc.assert(fc.property(json, (value) => {
      const request = { rows: [{ op: "AND", query: { owner: "acme", extra: value } }], other: value }
      const checked = Either.getOrThrow(checkAdvancedSearch(request))
      expect(JSON.parse(JSON.stringify(checked))).toStrictEqual(JSON.parse(JSON.stringify(request)))
    }))
  })

  it("a quick search refuses unknown fields and blank queries; a design number is 1 to 12 letters or digits", () => {
    expect(refused(checkQuickSearch({ query: "chair", colour: "red" }))).toEqual([{ pointer: "/colour" }])
    expect(refused(checkQuickSearch({ query: "  " }))).toEqual([{ pointer: "/query" }])
    expect(Either.isRight(checkQuickSearch({ query: "chair", filters: { statusFilter: ["REGISTERED"] } }))).toBe(true)
    for (const bad of ["", "12345678901234", "2019 1500", "../x", 201915000, undefined]) {
      expect(refused(checkDesignNumber(bad)), String(bad)).toEqual([{ parameter: "ipRightIdentifier" }])
    }
    expect(Either.isRight(checkDesignNumber("201915000"))).toBe(true)
  })
})
