/**
 * Effect 4's number checks (`Schema.isBetween`, ...) told in the Effect 3 edition's words by
 * `schemaIssues.effect4.ts`, and in Effect 4's own for what only it has (an excluded bound).
 */
import { assert, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { noMask } from "../src/core/mask/mask.js"
import * as Issues from "../src/internal/schemaIssues.js"

const failure = (schema: Schema.Decoder<unknown>, input: unknown): Schema.SchemaError =>
  Result.match(Schema.decodeUnknownResult(schema)(input, Issues.parseOptions), {
    onFailure: (error) => error,
    onSuccess: () => assert.fail(`${JSON.stringify(input)} was accepted`)
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
