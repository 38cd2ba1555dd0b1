/**
 * The Effect 4 edition's `Designs`: its schemas describe exactly the wire shapes of `src/core/wire.ts`
 * (checked when the tests typecheck), a design of the sandbox's dataset is written back as it is,
 * and dates, listings and requests are read as in the Effect 3 edition.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Result, Schema } from "effect"
import fc from "fast-check"
import { generateDesigns } from "../../src/core/sandbox/dataset.js"
import type * as Wire from "../../src/core/wire/wire.js"
import * as Designs from "../../src/Designs.js"
import { pointerErrors } from "../../src/internal/validation.js"

type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** Whether `A` and `B` are one type: identical (`readonly` too), and each assignable to the other (`?: T | undefined`). */
type Same<A, B> = [A, B] extends [B, A] ? Identical<A, B> : false

const decodeWireDate = Schema.decodeUnknownResult(Designs.WireDate)
const decodeIsoDate = Schema.decodeUnknownResult(Designs.IsoDate)
const millis = (s: string) =>
  Result.match(decodeWireDate(s), { onFailure: () => undefined, onSuccess: DateTime.toEpochMillis })

describe("Designs (Effect 4)", () => {
  it("its schemas describe the wire shapes, and a design of the dataset is written back as it is", () => {
    const same: ReadonlyArray<true> = [
      true satisfies Same<Designs.QuickSearchRequest, Wire.QuickSearchRequest>,
      true satisfies Same<typeof Designs.Sort.Type, Wire.Sort>,
      true satisfies Same<typeof Designs.DateRange.Type, Wire.DateRange>,
      true satisfies Same<Designs.Criteria, Wire.Criteria>,
      true satisfies Same<Designs.Row, Wire.Row>,
      true satisfies Same<Designs.AdvancedSearchRequest, Wire.AdvancedSearchRequest>,
      true satisfies Same<Designs.PageRequest, Wire.PageRequest>,
      true satisfies Same<typeof Designs.Design.Encoded, Wire.Design>
    ]
    assert.notInclude(same, false)
    const rewrite = Schema.encodeSync(Schema.fromJsonString(Designs.Design))
    for (const design of generateDesigns(300, 7)) {
      assert.strictEqual(rewrite(Schema.decodeUnknownSync(Designs.Design)(design)), JSON.stringify(design))
    }
  })

  it("reads calendar dates to midnight UTC and timestamps; refuses dates that do not exist", () => {
    assert.strictEqual(millis("2024-02-29"), Date.UTC(2024, 1, 29))
    assert.strictEqual(millis("2023-01-05T10:20:30Z"), Date.UTC(2023, 0, 5, 10, 20, 30))
    for (const bad of ["2023-02-29", "2023-13-01", "2023-1-01", "2023/01/01", "2023-01-01 ", "٢٠٢٣-01-01"]) {
      assert.isUndefined(millis(bad), bad)
      assert.isTrue(Result.isFailure(decodeIsoDate(bad)), bad)
    }
    assert.isTrue(Result.isSuccess(decodeIsoDate("2024-02-29")))
  })

  it("a design keeps unknown fields and is encoded as sent: calendar dates as YYYY-MM-DD, instants as timestamps", () => {
    const sent = { number: "201915000", filingDate: "2024-02-29", lastChanged: "2024-03-01T10:00:00.000Z", x: [1] }
    const design = Schema.decodeUnknownSync(Designs.Design)(sent)
    assert.deepStrictEqual(design["x"], [1])
    assert.deepStrictEqual(Schema.encodeSync(Designs.Design)(design), sent)
    const sparse: Array<string> = ["a"]
    sparse[2] = "c"
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Designs.Design)({ number: "1", productNames: sparse })))
  })

  /** The pointers of what `schema` refuses in `input`; none when it is accepted. */
  const refused = (schema: Schema.Decoder<unknown>, input: unknown) =>
    Result.match(Schema.decodeUnknownResult(schema)(input, { errors: "all", reportInput: true }), {
      onFailure: (error) => pointerErrors(error).map((e) => e.source?.pointer),
      onSuccess: () => []
    })
  const rows = [{ op: "AND", query: { owner: "acme" } }]

  it("a page size or number that is NaN, out of range or not an integer is refused, pointing at it", () => {
    for (const pageSize of [Number.NaN, 0, 101, 1.5, Infinity]) {
      assert.deepStrictEqual(
        refused(Designs.PageRequest, { rows, pageNumber: 0, pageSize }),
        ["/pageSize"],
        String(pageSize)
      )
    }
    for (const pageNumber of [Number.NaN, -1, 0.5]) {
      assert.deepStrictEqual(refused(Designs.PageRequest, { rows, pageNumber, pageSize: 10 }), ["/pageNumber"])
    }
    assert.deepStrictEqual(refused(Designs.PageRequest, { rows, pageNumber: 3, pageSize: 100 }), [])
    assert.deepStrictEqual(refused(Designs.AdvancedSearchRequest, { rows: [] }), ["/rows"])
    assert.deepStrictEqual(refused(Designs.AdvancedSearchRequest, { rows: [{ op: "AND", query: {} }] }), [
      "/rows/0/query"
    ])
  })

  it("a criterion JSON cannot write as it is is refused at its pointer; any value JSON writes passes through as given", () => {
    const cycle: Record<string, unknown> = {}
    cycle["self"] = cycle
    const hole: Array<number> = [1]
    hole[2] = 3
    const unwritable = [() => 1, Symbol("s"), 10n, Number.NaN, -Infinity, new Date(0), new Map(), hole, cycle, [
      undefined
    ]]
    for (const value of [...unwritable, { nested: { deeper: [() => 1] } }]) {
      const [pointer, ...more] = refused(Designs.AdvancedSearchRequest, {
        rows: [{ op: "AND", query: { owner: "acme", extra: value } }]
      })
      assert.deepStrictEqual(more, [], String(value))
      assert.match(pointer ?? "", /^\/rows\/0\/query\/extra(\/|$)/, String(value))
    }
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const request = { rows: [{ op: "AND", query: { owner: "acme", extra: value } }], other: value }
      const checked = Schema.decodeUnknownSync(Designs.AdvancedSearchRequest)(request)
      assert.deepStrictEqual(JSON.parse(JSON.stringify(checked)), JSON.parse(JSON.stringify(request)))
    }))
  })

  it("a result names a bad design number where it is, keeps the request as read, and holds aggregations to their shape", () => {
    assert.deepStrictEqual(
      refused(Designs.SearchResult, { count: 1, designNumbers: ["201915000", "not a number!", 7] }),
      ["/designNumbers/1", "/designNumbers/2"]
    )
    const sent = {
      request: { rows },
      count: 3,
      designNumbers: ["1", "2", "3"],
      aggregations: { status: { REGISTERED: 2, FILED: 1 } },
      extra: true
    }
    assert.deepStrictEqual<unknown>(Schema.decodeUnknownSync(Designs.SearchResult)(sent), sent)
    assert.deepStrictEqual(refused(Designs.SearchResult, { ...sent, aggregations: { status: { REGISTERED: "2" } } }), [
      "/aggregations/status/REGISTERED"
    ])
    assert.deepStrictEqual(refused(Designs.SearchResult, { count: 1 }), ["/designNumbers"])
  })
})
