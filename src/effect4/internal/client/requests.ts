/**
 * Requests checked before anything is sent: each by its schema, compiled once, so that a bad value
 * (a NaN, a page size out of range, a malformed design number, a criterion JSON cannot write) is a
 * client `ValidationError` naming the field, and nothing goes out.
 */
import { Result, Schema } from "effect"
import type { ValidationError } from "../../ApiError.js"
import { AdvancedSearchRequest, DesignNumber, PageRequest, QuickSearchRequest } from "../../Designs.js"
import { parseOptions } from "../schemaIssues.js"
import { clientValidation, parameterError, pointerErrors } from "../validation.js"

/** A checker of requests of `schema`: the decoded request, or the refusal pointing at each offending field. */
const checker = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  onExcessProperty: "error" | "ignore" = "ignore"
) => {
  const decode = Schema.decodeUnknownResult(schema, { ...parseOptions, onExcessProperty })
  return (request: unknown): Result.Result<S["Type"], ValidationError> =>
    Result.mapError(decode(request), (error) => clientValidation(pointerErrors(error)))
}

/** A quick search's body: unknown fields refused, as the sibling trade mark API refuses them. */
export const checkQuickSearch = checker(QuickSearchRequest, "error")

/** An advanced search's body: fields the toolkit does not name pass through, if JSON can write them. */
export const checkAdvancedSearch = checker(AdvancedSearchRequest)

/** A paged advanced search's body. */
export const checkPage = checker(PageRequest)

const isDesignNumber = Schema.is(DesignNumber)

/** A design number as a path parameter. */
export const checkDesignNumber = (designNumber: unknown): Result.Result<DesignNumber, ValidationError> =>
  isDesignNumber(designNumber)
    ? Result.succeed(designNumber)
    : Result.fail(clientValidation([
      parameterError("ipRightIdentifier", "expected a design number: 1 to 12 letters or digits")
    ]))

/** `value` when it is a positive safe integer, or the refusal naming `option`. */
export const positiveInt = (option: string, value: unknown): Result.Result<number, ValidationError> =>
  Number.isSafeInteger(value) && (value as number) > 0
    ? Result.succeed(value as number)
    : Result.fail(clientValidation([parameterError(option, "expected a positive integer")]))
