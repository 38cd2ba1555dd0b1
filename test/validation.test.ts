/**
 * Schema failures told in the Effect 3 edition's words, in either edition: spec-shaped error objects
 * with a JSON Pointer and the same detail texts, and descriptions bounded and masked however large or
 * deep the offending value.
 */
import { decodeUnknownResult, Result } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { edition } from "#test-edition/support/seam"
import { assert, describe, it } from "@effect/vitest"
import { maskOf, noMask } from "../src/core/mask/mask.js"
import * as Designs from "../src/Designs.js"
import * as Issues from "../src/internal/schemaIssues.js"
import { pointerErrors, toPointer } from "../src/internal/validation.js"

/** What a schema of either edition refuses in `input`, every problem, with the offending values. */
const failure = (schema: unknown, input: unknown, options: object = {}): SchemaError =>
  Result.match(decodeUnknownResult(schema as never)(input, { ...Issues.parseOptions, ...options }), {
    onFailure: (error) => error,
    onSuccess: () => assert.fail(`${JSON.stringify(input)} was accepted`)
  })

const rows = [{ op: "AND", query: { owner: "acme" } }]

describe("pointerErrors", () => {
  it("points at each offending input with the same code and detail in either edition", () => {
    const cases: ReadonlyArray<readonly [unknown, unknown, ReadonlyArray<readonly [string, string, string]>]> = [
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
    // Effect 3's issues always hold the value; Effect 4's only when decoded with `reportInput`
    assert.strictEqual(
      Issues.describe(failure(Designs.SearchResult, input, { reportInput: false }), noMask),
      edition === 3
        ? "count: Expected a non-negative number, actual -1; designNumbers.1: Expected string, actual 7"
        : "count: Expected a non-negative number; designNumbers.1: Expected string"
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
    // an array is named by its type in Effect 3, as "array" in Effect 4
    const [names, owners] = edition === 3
      ? ["ReadonlyArray<string>", "ReadonlyArray<\\{ readonly name: string; readonly \\[x: string\\]: unknown \\}>"]
      : ["array", "array"]
    assert.match(
      told,
      new RegExp(`productNames: Expected ${names}, actual "[^;]{1,59}; owners: Expected ${owners}, actual \\{`)
    )
  })
})

describe("a value whose getter throws", () => {
  it("is the caller's bug: the decode throws the caller's own error, in either edition", () => {
    const own = new Error("the caller's own")
    const request = {
      get query(): string {
        throw own
      }
    }
    assert.throws(() => decodeUnknownResult(Designs.QuickSearchRequest)(request), own)
  })
})
