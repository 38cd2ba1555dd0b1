import { describe, expect, it } from "@effect/vitest"
import type { ParseResult } from "effect"
import { DateTime, Either, FastCheck as fc, Option, Schema } from "effect"
import {
  decodeDesign,
  decodeDesignPage,
  decodeQuickSearchRequest,
  decodeQuickSearchResult,
  decodeSearchResult,
  Design,
  DesignPage,
  encodeDesign,
  IsoDate,
  QuickSearchRequest,
  QuickSearchResult,
  SearchResult,
  WireDate
} from "../src/Designs.js"

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

/**
 * Holds a hand-checked decode to its schema on `near` inputs and on anything at all: the same
 * outcome, equal values (as `same` compares them) and the same message. Returns how many inputs
 * both accepted, so a test can show its generators reach both outcomes.
 */
const holdToSchema = <A>(
  fast: (u: unknown) => Either.Either<A, ParseResult.ParseError>,
  slow: (u: unknown) => Either.Either<A, ParseResult.ParseError>,
  near: fc.Arbitrary<unknown>,
  options: { readonly numRuns: number; readonly same?: (fast: A, slow: A) => void }
): number => {
  const same = options.same ?? ((a: A, b: A) => expect(a).toStrictEqual(b))
  let accepted = 0
  fc.assert(
    fc.property(fc.oneof({ arbitrary: near, weight: 4 }, fc.anything()), (u) => {
      const f = fast(u)
      const s = slow(u)
      expect(Either.isRight(f)).toBe(Either.isRight(s))
      if (Either.isRight(f) && Either.isRight(s)) {
        accepted++
        same(f.right, s.right)
      }
      if (Either.isLeft(f) && Either.isLeft(s)) expect(f.left.message).toBe(s.left.message)
    }),
    { numRuns: options.numRuns }
  )
  return accepted
}

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

describe("decodeQuickSearchResult", () => {
  const bySchema = Schema.decodeUnknownEither(QuickSearchResult)
  /** Results near the valid shape: counts at the edges of safe integers, numbers near the pattern. */
  const count = fc.oneof(
    fc.nat(),
    fc.integer(),
    fc.integer({ min: -3, max: 3 }),
    fc.double(),
    fc.constantFrom(-0, 2 ** 53, 2 ** 53 - 1, "3", null)
  )
  const designNumber = fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), fc.string({ maxLength: 13 }), fc.integer())
  const nearResults = fc.record({
    count,
    designNumbers: fc.oneof(fc.array(designNumber, { maxLength: 4 }), fc.anything()),
    extra: fc.jsonValue()
  }, { requiredKeys: [] })

  it("decodes as the schema does", () => {
    expect(holdToSchema(decodeQuickSearchResult, bySchema, nearResults, { numRuns: 3000 })).toBeGreaterThan(50)
    // a hole in the array is no design number
    const holes: Array<string> = ["1"]
    holes[2] = "3"
    expect(Either.isLeft(decodeQuickSearchResult({ count: 3, designNumbers: holes }))).toBe(true)
  })
})

describe("decodeSearchResult: tolerant of the service's names", () => {
  const bySchema = Schema.decodeUnknownEither(SearchResult)
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

  it("decodes as the schema does once the numbers are read", () => {
    const near = fc.record({
      count: fc.oneof(fc.nat(), fc.integer(), fc.constantFrom(2 ** 53, "3")),
      designNumbers: fc.oneof(numbers, fc.anything()),
      aggregations: fc.oneof(fc.dictionary(fc.string(), fc.dictionary(fc.string(), fc.nat())), fc.anything())
    }, { requiredKeys: [] })
    expect(holdToSchema(decodeSearchResult, bySchema, near, { numRuns: 2000 })).toBeGreaterThan(50)
  })
})

describe("decodeDesignPage", () => {
  const bySchema = Schema.decodeUnknownEither(DesignPage)
  const design = fc.record({
    number: fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), fc.constant("bad number")),
    title: fc.oneof(fc.string(), fc.integer()),
    filingDate: fc.constantFrom("2024-02-29", "2023-02-30", "2024-03-01T10:00:00Z", "x")
  }, { requiredKeys: ["number"] })
  const near = fc.record({
    count: fc.oneof(fc.nat(), fc.constant(-1)),
    designs: fc.oneof(fc.array(design, { maxLength: 3 }), fc.anything()),
    extra: fc.jsonValue()
  }, { requiredKeys: [] })

  it("decodes as the schema does, each record as decodeDesign does", () => {
    expect(holdToSchema(decodeDesignPage, bySchema, near, { numRuns: 2000 })).toBeGreaterThan(50)
  })
})

describe("decodeDesign", () => {
  const bySchema = Schema.decodeUnknownEither(Design)
  /** Mostly values of each field's shape, now and then one that is not. */
  const junk = fc.oneof(fc.constantFrom(null, 0, true, [], {}), fc.integer())
  const nearly = <A>(valid: fc.Arbitrary<A>) =>
    fc.oneof({ arbitrary: valid, weight: 30 }, { arbitrary: junk, weight: 1 })
  const text = nearly(fc.string({ maxLength: 6 }))
  const designNumber = nearly(fc.oneof(
    { arbitrary: fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), weight: 8 },
    { arbitrary: fc.string({ maxLength: 13 }), weight: 1 }
  ))
  const fourDigitYears = fc.date({
    min: new Date(Date.UTC(1000, 0, 1)),
    max: new Date(Date.UTC(9999, 11, 31)),
    noInvalidDate: true
  })
  const date = nearly(fc.oneof(
    { arbitrary: fourDigitYears.map((d) => d.toISOString().slice(0, 10)), weight: 6 },
    { arbitrary: fourDigitYears.map((d) => d.toISOString()), weight: 2 },
    { arbitrary: nearDates, weight: 1 }
  ))
  const arrayOf = <A>(element: fc.Arbitrary<A>) => nearly(fc.array(element, { maxLength: 3 }))
  /** The same fields in any order, as a server may send them. */
  const anyOrder = <A extends object>(record: fc.Arbitrary<A>) =>
    record.chain((r) => {
      const entries = Object.entries(r)
      return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length })
        .map((e) => Object.fromEntries(e) as A)
    })
  const classification = nearly(
    anyOrder(fc.record({ code: text, title: text, extra: fc.jsonValue() }, { requiredKeys: [] }))
  )
  const party = nearly(anyOrder(fc.record({ name: text, extra: fc.jsonValue() }, { requiredKeys: [] })))
  const nearDesigns = fc.record({
    number: designNumber,
    title: text,
    productNames: arrayOf(text),
    status: text,
    classifications: arrayOf(classification),
    owners: arrayOf(party),
    designers: arrayOf(party),
    filingDate: date,
    registrationDate: date,
    expiryDate: date,
    lastChanged: date,
    statementOfNewness: text,
    extra: fc.jsonValue()
  }, { requiredKeys: ["number"] })

  it("decodes as the schema does", () => {
    // the generators reach both outcomes
    expect(holdToSchema(decodeDesign, bySchema, nearDesigns, { numRuns: 4000 })).toBeGreaterThan(400)
  })

  it("encodeDesign writes what the schema's encoding writes, byte for byte, whatever the order of the fields", () => {
    const encodeBySchema = Schema.encodeSync(Design)
    const shuffled = anyOrder(nearDesigns)
    let encoded = 0
    fc.assert(
      fc.property(shuffled, (u) => {
        const design = decodeDesign(u)
        if (Either.isLeft(design)) return
        encoded++
        expect(JSON.stringify(encodeDesign(design.right))).toBe(JSON.stringify(encodeBySchema(design.right)))
      }),
      { numRuns: 3000 }
    )
    expect(encoded).toBeGreaterThan(500)
  })

  it("a field named __proto__, at any depth the schema reads, is left out as the schema leaves it, and changes no prototype", () => {
    const encodeBySchema = Schema.encodeSync(Design)
    const parsed = JSON.parse(
      `{"7":"seven","__proto__":{"polluted":true},"number":"201915000","filingDate":"2024-02-29","0":[0],` +
        `"owners":[{"name":"A","__proto__":{"x":1}}]}`
    ) as Record<string, unknown>
    const design = Either.getOrThrow(decodeDesign(parsed))
    expect(design).toStrictEqual(Either.getOrThrow(Schema.decodeUnknownEither(Design)(parsed)))
    expect(Object.keys(design)).not.toContain("__proto__")
    // a design made by hand with such a field: the encoders agree, and no prototype changes
    const handMade = { ...design, ...JSON.parse(`{"__proto__":{"polluted":true}}`) } as Design
    expect(Object.keys(handMade)).toContain("__proto__")
    const encoded = encodeDesign(handMade)
    expect(Object.getPrototypeOf(encoded)).toBe(Object.prototype)
    expect(Object.keys(encoded)).toEqual(["0", "7", "number", "owners", "filingDate"])
    expect(JSON.stringify(encoded)).toBe(JSON.stringify(encodeBySchema(handMade)))
    // a search result with one in its aggregations or at its top: as the schema reads it
    for (
      const text of [
        `{"count":0,"designNumbers":[],"aggregations":{"__proto__":{}}}`,
        `{"count":1,"designNumbers":["1"],"__proto__":1}`
      ]
    ) {
      const result: unknown = JSON.parse(text)
      expect(decodeSearchResult(result), text).toStrictEqual(Schema.decodeUnknownEither(SearchResult)(result))
    }
  })

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
})

describe("decodeQuickSearchRequest", () => {
  const bySchema = Schema.decodeUnknownEither(QuickSearchRequest, { errors: "all", onExcessProperty: "error" })
  const junk = fc.oneof(fc.constantFrom(null, 0, true, [], {}, undefined), fc.integer())
  const nearly = <A>(valid: fc.Arbitrary<A>) =>
    fc.oneof({ arbitrary: valid, weight: 20 }, { arbitrary: junk, weight: 1 })
  const text = fc.oneof({ arbitrary: fc.string({ maxLength: 5 }), weight: 8 }, {
    arbitrary: fc.constantFrom(" ", "\t\n", " x "),
    weight: 1
  })
  const query = nearly(
    fc.oneof({ arbitrary: text, weight: 8 }, { arbitrary: fc.string({ minLength: 995, maxLength: 1005 }), weight: 1 })
  )
  const values = nearly(fc.array(text, { maxLength: 3 }))
  /** Now and then a key the request does not know. */
  const withStray = <A extends object>(record: fc.Arbitrary<A>) =>
    fc.oneof({ arbitrary: record, weight: 12 }, { arbitrary: record.map((r) => ({ ...r, stray: 1 })), weight: 1 })
  class Filters {
    constructor(readonly classificationFilter: ReadonlyArray<string>) {}
  }
  const nearRequests = withStray(fc.record({
    query,
    changedSinceDate: nearly(
      fc.oneof({ arbitrary: nearDates, weight: 1 }, {
        arbitrary: fc.constantFrom("2024-02-29", "1999-12-31"),
        weight: 4
      })
    ),
    filters: nearly(fc.oneof(
      {
        arbitrary: withStray(fc.record({ classificationFilter: values, statusFilter: values }, { requiredKeys: [] })),
        weight: 8
      },
      { arbitrary: fc.array(text).map((v) => new Filters(v)), weight: 1 }
    )),
    sort: nearly(
      withStray(fc.record({ field: nearly(text), direction: nearly(fc.constantFrom("ASCENDING", "DESCENDING", "UP")) }))
    )
  }, { requiredKeys: ["query"] }))

  it("decodes as the schema does, and writes the same wire form", () => {
    const wire = (request: QuickSearchRequest) => JSON.parse(JSON.stringify(request))
    const accepted = holdToSchema(decodeQuickSearchRequest, bySchema, nearRequests, {
      numRuns: 4000,
      same: (fast, slow) => expect(wire(fast)).toStrictEqual(wire(slow))
    })
    expect(accepted).toBeGreaterThan(400)
  })

  it("sends a class through the schema: its toJSON is not the wire form", () => {
    class Request {
      readonly query = "chair"
      toJSON() {
        return { query: "table" }
      }
    }
    const decoded = Either.getOrThrow(decodeQuickSearchRequest(new Request()))
    expect(JSON.parse(JSON.stringify(decoded))).toStrictEqual({ query: "chair" })
  })
})
