/**
 * Schema failures told as the Effect 3 edition tells them: spec-shaped error objects with a JSON
 * Pointer and the same detail texts, and descriptions bounded and masked however large or deep the
 * offending value.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { maskOf, noMask } from "../../src/core/mask/mask.js"
import * as Designs from "../../src/Designs.js"
import * as Issues from "../../src/internal/schemaIssues.js"
import { pointerErrors, toPointer } from "../../src/internal/validation.js"

const failure = (schema: Schema.Decoder<unknown>, input: unknown, options: object = {}): Schema.SchemaError =>
  Result.match(Schema.decodeUnknownResult(schema)(input, { errors: "all", reportInput: true, ...options }), {
    onFailure: (error) => error,
    onSuccess: () => assert.fail(`${JSON.stringify(input)} was accepted`)
  })

const rows = [{ op: "AND", query: { owner: "acme" } }]

describe("pointerErrors", () => {
  it("points at each offending input with the Effect 3 edition's code and detail", () => {
    const cases: ReadonlyArray<
      readonly [Schema.Decoder<unknown>, unknown, ReadonlyArray<readonly [string, string, string]>]
    > = [
      [Designs.QuickSearchRequest, { query: 1 }, [["/query", "INVALID_FIELD", "Expected string, actual 1"]]],
      [Designs.QuickSearchRequest, {}, [["/query", "MISSING_FIELD", "is missing"]]],
      [Designs.QuickSearchRequest, { query: "a", filters: { statusFilter: ["", 3] } }, [
        ["/filters/statusFilter/0", "INVALID_FIELD", "expected a non-empty value"],
        ["/filters/statusFilter/1", "INVALID_FIELD", "Expected string, actual 3"]
      ]],
      [Designs.QuickSearchRequest, { query: "a", sort: { field: 1, direction: "UP" } }, [
        ["/sort/field", "INVALID_FIELD", "Expected \"NUMBER\", actual 1; or Expected string, actual 1"],
        [
          "/sort/direction",
          "INVALID_FIELD",
          "Expected \"ASCENDING\", actual \"UP\"; or Expected \"DESCENDING\", actual \"UP\""
        ]
      ]],
      [Designs.AdvancedSearchRequest, { rows: [{ op: "AND", query: { date: { type: "FILING" } } }] }, [
        ["/rows/0/query/date", "INVALID_FIELD", "expected from, to or both"]
      ]],
      [Designs.AdvancedSearchRequest, { rows: [{ op: "AND", query: { owner: "a", x: { y: [Number.NaN] } } }] }, [
        ["/rows/0/query/x/y/0", "INVALID_FIELD", "expected a value JSON can write as it is"]
      ]],
      [Designs.PageRequest, { rows, pageNumber: -1, pageSize: 1.5 }, [
        ["/pageNumber", "INVALID_FIELD", "Expected a non-negative number, actual -1"],
        ["/pageSize", "INVALID_FIELD", "Expected an integer, actual 1.5"]
      ]],
      [Designs.Design, { number: "x y", title: 4, owners: [{}], filingDate: "nope" }, [
        ["/number", "INVALID_FIELD", "expected a design number: 1 to 12 letters or digits"],
        ["/title", "INVALID_FIELD", "Expected string, actual 4"],
        ["/owners/0/name", "MISSING_FIELD", "is missing"],
        ["/filingDate", "INVALID_FIELD", "expected an ISO 8601 date"]
      ]]
    ]
    for (const [schema, input, expected] of cases) {
      const errors = pointerErrors(failure(schema, input))
      assert.deepStrictEqual(
        errors.map((e) => [e.source?.pointer, e.code, e.detail]),
        expected.map((e) => [...e]),
        JSON.stringify(input)
      )
    }
  })

  it("an unknown field is UNKNOWN_FIELD; a pointer escapes ~ and /", () => {
    const errors = pointerErrors(
      failure(Designs.QuickSearchRequest, { query: "a", "a/b~c": 1 }, { onExcessProperty: "error" })
    )
    assert.deepStrictEqual(errors, [{
      code: "UNKNOWN_FIELD",
      detail: "is not a known field",
      source: { pointer: "/a~1b~0c" }
    }])
    assert.strictEqual(toPointer(["filters", "statusFilter", 0]), "/filters/statusFilter/0")
  })
})

describe("describe", () => {
  it("tells each offending value on its path; without reportInput the text stops before the value", () => {
    const input = { count: -1, designNumbers: ["ok", 7] }
    assert.strictEqual(
      Issues.describe(failure(Designs.SearchResult, input), noMask),
      "count: Expected a non-negative number, actual -1; designNumbers.1: Expected string, actual 7"
    )
    assert.strictEqual(
      Issues.describe(failure(Designs.SearchResult, input, { reportInput: false }), noMask),
      "count: Expected a non-negative number; designNumbers.1: Expected string"
    )
  })

  it("number checks are told in the Effect 3 edition's words, Effect 4's own for what it alone has", () => {
    const told = (check: Parameters<typeof Schema.Number.check>[0], input: number) =>
      Issues.describe(failure(Schema.Number.check(check), input), noMask)
    assert.strictEqual(
      told(Schema.isBetween({ minimum: 200, maximum: 599 }), 700),
      "Expected a number between 200 and 599, actual 700"
    )
    assert.strictEqual(told(Schema.isGreaterThanOrEqualTo(0), -1), "Expected a non-negative number, actual -1")
    assert.strictEqual(
      told(Schema.isGreaterThanOrEqualTo(2), 1),
      "Expected a number greater than or equal to 2, actual 1"
    )
    assert.strictEqual(told(Schema.isGreaterThan(0), 0), "Expected a positive number, actual 0")
    assert.strictEqual(told(Schema.isLessThan(3), 3), "Expected a number less than 3, actual 3")
    assert.strictEqual(told(Schema.isLessThanOrEqualTo(0), 1), "Expected a non-positive number, actual 1")
    assert.strictEqual(
      told(Schema.isBetween({ minimum: 0, maximum: 1, exclusiveMaximum: true }), 1),
      "Expected a value between 0 and 1 (excluded), actual 1"
    )
  })

  it("a huge, deep or secret value is shown as a short masked preview, and the whole is capped", () => {
    let deep: unknown = "bottom"
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const huge = "s3cret" + "x".repeat(10_000_000)
    const keys = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`s3cret-${i}`.repeat(20), 1]))
    const told = Issues.describe(
      failure(Designs.Design, { number: "1", title: deep, productNames: huge, ...keys, owners: keys }),
      maskOf(["s3cret"])
    )
    assert.isAtMost(told.length, Issues.maxDescriptionLength)
    assert.notInclude(told, "s3cret")
    assert.include(told, "title: Expected string, actual [[[…]]]")
    assert.match(told, /productNames: Expected array, actual "[^;]{1,59}; owners: Expected array, actual \{/)
  })
})
