/**
 * What a run is asked: the criteria, checked by their request schema and written as canonical JSON
 * (the key of their rows), and the options of `sync`, checked; and a design as its row stores it.
 */
import { decodeUnknownResult, encodeResult, Result } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { DateTime, Effect } from "effect"
import { UnexpectedResponseError } from "../../ApiError.js"
import type { ValidationError } from "../../ApiError.js"
import { canonical, changeKinds, criteriaKeyOf, withoutNul } from "../../core/mirror/mirror.js"
import { AdvancedSearchRequest, Design, QuickSearchRequest } from "../../Designs.js"
import { parseOptions } from "../schemaIssues.js"
import { clientValidation, parameterError, pointerErrors } from "../validation.js"
import type { ChangesOptions, Criteria, SyncOptions } from "./model.js"

/** A search the mirror follows, checked, without its `changedSinceDate`: plain data, read once. */
export type Search =
  | { readonly _tag: "quick"; readonly request: QuickSearchRequest }
  | { readonly _tag: "advanced"; readonly request: AdvancedSearchRequest }

const invalid = (parameter: string, detail: string): Result<never, ValidationError> =>
  Result.fail(clientValidation([parameterError(parameter, detail)]))

const decodeAdvanced = decodeUnknownResult(AdvancedSearchRequest, parseOptions)
const decodeQuick = decodeUnknownResult(QuickSearchRequest, { ...parseOptions, onExcessProperty: "error" })

/**
 * The criteria, checked, as the JSON stored (without `changedSinceDate`, keys in order) and as the
 * search the run sends, parsed back from that JSON; a client `ValidationError` for criteria their
 * schema refuses or JSON cannot write.
 */
export const readCriteria = (
  criteria: unknown
): Result<{ readonly json: string; readonly search: Search }, ValidationError> => {
  if (typeof criteria !== "object" || criteria === null || Array.isArray(criteria)) {
    return invalid("criteria", "expected an advanced search (rows) or a quick search (query)")
  }
  const decoded: Result<Search, SchemaError> = "rows" in criteria
    ? Result.map(decodeAdvanced(criteria), (request) => ({ _tag: "advanced", request }))
    : Result.map(decodeQuick(criteria), (request) => ({ _tag: "quick", request }))
  return Result.flatMap(Result.mapError(decoded, (e) => clientValidation(pointerErrors(e))), ({ _tag, request }) => {
    const { changedSinceDate: _, ...rest } = request
    const json = Result.try({
      try: () => JSON.stringify({ kind: _tag, search: canonical(rest) }),
      catch: () => clientValidation([parameterError("criteria", "the criteria cannot be written as JSON")])
    })
    return Result.flatMap(json, (json) =>
      withoutNul(json) === json
        ? Result.succeed({ json, search: { _tag, request: JSON.parse(json).search } as Search })
        : invalid("criteria", "a text holds NUL (U+0000), which a mirror cannot store"))
  })
}

/** The options of `sync`, checked, with their defaults. */
export const readOptions = (options: unknown): Result<
  {
    readonly concurrency: number
    readonly history: boolean
    readonly onProgress: NonNullable<SyncOptions["onProgress"]>
  },
  ValidationError
> => {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    return invalid("options", "expected an object, or nothing")
  }
  const { concurrency = 4, history = true, onProgress } = (options ?? {}) as SyncOptions
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    return invalid("concurrency", "expected a positive integer")
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    return invalid("onProgress", "expected a function, or nothing")
  }
  if (typeof history !== "boolean") return invalid("history", "expected a boolean, or nothing")
  return Result.succeed({ concurrency, history, onProgress: onProgress ?? (() => Effect.void) })
}

/** The options of `changes`, checked as `sync`'s are: a `since` that is a `DateTime`, a `kind` there is. */
export const readChangesOptions = (options: unknown): Result<ChangesOptions, ValidationError> => {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    return invalid("options", "expected an object, or nothing")
  }
  const { kind, since } = (options ?? {}) as ChangesOptions
  if (since !== undefined && !DateTime.isDateTime(since)) return invalid("since", "expected a DateTime, or nothing")
  if (kind !== undefined && !(changeKinds as ReadonlyArray<unknown>).includes(kind)) {
    return invalid("kind", `expected one of ${changeKinds.join(", ")}, or nothing`)
  }
  return Result.succeed({ kind, since })
}

/**
 * The stable key of `criteria` (`criteria_key` in the tables): a hash of its canonical JSON, the
 * same whatever the order of its fields and whatever its `changedSinceDate`, and the same in both
 * editions; a client `ValidationError` for criteria that are not valid.
 * @since 0.3.0
 * @category utils
 */
export const criteriaKey = (criteria: Criteria): Result<string, ValidationError> =>
  Result.map(readCriteria(criteria), ({ json }) => criteriaKeyOf(json))

const encodeDesign = encodeResult(Design)

/**
 * A design's wire form, and that form as the `record` column holds it (JSON), both with NUL as
 * U+FFFD on every engine, so that the columns, the record and the comparison of records agree.
 */
export const encodedOf = (
  design: Design
): Result<{ readonly encoded: typeof Design.Encoded; readonly record: string }, UnexpectedResponseError> => {
  const unwritable = (why: string) =>
    new UnexpectedResponseError({ status: 200, excerpt: "", issue: `design ${design.number} cannot be stored: ${why}` })
  return Result.flatMap(
    Result.mapError(encodeDesign(design), () => unwritable("it does not fit the Design schema")),
    (encoded) =>
      Result.try({
        try: () => {
          const json = JSON.stringify(encoded)
          const record = withoutNul(json)
          return { encoded: record === json ? encoded : JSON.parse(record) as typeof Design.Encoded, record }
        },
        catch: () => unwritable("it is nested too deeply")
      })
  )
}

/**
 * A design as the `record` column holds it: its wire form as JSON, exactly as
 * `design-search get --json` prints it, a NUL (U+0000) as U+FFFD.
 * @since 0.3.0
 * @category utils
 */
export const recordOf = (design: Design): Result<string, UnexpectedResponseError> =>
  Result.map(encodedOf(design), ({ record }) => record)
