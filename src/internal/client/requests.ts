/**
 * Requests checked before anything is sent, each by its schema compiled once: a bad value is a
 * client `ValidationError` naming the field, and nothing goes out.
 */
import { decodeUnknownResult, reportInput, Result } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { Schema } from "effect"
import type { ValidationError } from "../../ApiError.js"
import { AdvancedSearchRequest, DesignNumber, PageRequest, QuickSearchRequest } from "../../Designs.js"
import { clientValidation, parameterError, pointerErrors } from "../validation.js"

/** How a request is decoded: every problem, each with the offending value, unknown fields as told. */
const all = (onExcessProperty: "error" | "ignore") => ({ errors: "all", ...reportInput, onExcessProperty }) as const

/** A checker of requests `decode` reads: the decoded request, or the refusal pointing at each offending field. */
const checker = <A>(decode: (u: unknown) => Result<A, SchemaError>) => (request: unknown): Result<A, ValidationError> =>
  Result.mapError(decode(request), (error) => clientValidation(pointerErrors(error)))

/** A quick search's body: unknown fields refused, as the sibling trade mark API refuses them. */
export const checkQuickSearch = checker(decodeUnknownResult(QuickSearchRequest, all("error")))

/** An advanced search's body: fields the toolkit does not name pass through, if JSON can write them. */
export const checkAdvancedSearch = checker(decodeUnknownResult(AdvancedSearchRequest, all("ignore")))

/** A paged advanced search's body. */
export const checkPage = checker(decodeUnknownResult(PageRequest, all("ignore")))

const isDesignNumber = Schema.is(DesignNumber)

/** A design number as a path parameter. */
export const checkDesignNumber = (designNumber: unknown): Result<DesignNumber, ValidationError> =>
  isDesignNumber(designNumber)
    ? Result.succeed(designNumber)
    : Result.fail(clientValidation([
      parameterError("ipRightIdentifier", "expected a design number: 1 to 12 letters or digits")
    ]))

/** `value` when it is a positive safe integer, or the refusal naming `option`. */
export const positiveInt = (option: string, value: unknown): Result<number, ValidationError> =>
  Number.isSafeInteger(value) && (value as number) > 0
    ? Result.succeed(value as number)
    : Result.fail(clientValidation([parameterError(option, "expected a positive integer")]))
