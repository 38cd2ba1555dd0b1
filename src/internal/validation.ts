/**
 * Schema failures as spec-shaped error objects: one per offending input, pointing at it with a
 * JSON Pointer (RFC 6901). The client and the sandbox use the same mapping, so a request the client
 * refuses reads the same as the 422 the sandbox would send for it.
 */
import { isUndefinedBranch, told } from "#edition/internal/schemaIssues"
import type { SchemaError } from "#edition/internal/seam"
import { ValidationError } from "../ApiError.js"
import type { ErrorObject } from "../ApiError.js"
import { noMask } from "../core/mask/mask.js"

const escapeToken = (token: PropertyKey): string => String(token).replace(/~/g, "~0").replace(/\//g, "~1")

/** The JSON Pointer of a schema issue path: `["filters", "statusFilter", 0]` → `/filters/statusFilter/0`. */
export const toPointer = (path: ReadonlyArray<PropertyKey>): string => path.map((t) => "/" + escapeToken(t)).join("")

/** The code of an issue by its tag in either edition (`Missing` or `MissingKey`, `Unexpected` or `UnexpectedKey`). */
const codeOf = (tag: string): string =>
  tag.startsWith("Missing") ? "MISSING_FIELD" : tag.startsWith("Unexpected") ? "UNKNOWN_FIELD" : "INVALID_FIELD"

/**
 * One error object per offending input (spec 7.2), each with `source.pointer`; the issues of one
 * input (a value that matches no member of a union, say) are joined into its `detail`, which
 * shows the offending value bounded (`schemaIssues.ts`).
 */
export const pointerErrors = (error: SchemaError): ReadonlyArray<ErrorObject> => {
  const issues = told(error, noMask)
  const pointed = issues.filter((i) => !isUndefinedBranch(i)).map((i) => toPointer(i.path))
  const explained = (pointer: string) => pointed.some((p) => p === pointer || p.startsWith(pointer + "/"))
  const byPointer = new Map<string, { code: string; details: Array<string> }>()
  for (const issue of issues) {
    const pointer = toPointer(issue.path)
    if (isUndefinedBranch(issue) && explained(pointer)) continue
    const detail = issue._tag.startsWith("Unexpected") ? "is not a known field" : issue.message
    const entry = byPointer.get(pointer)
    if (entry === undefined) byPointer.set(pointer, { code: codeOf(issue._tag), details: [detail] })
    else if (!entry.details.includes(detail)) entry.details.push(detail)
  }
  return [...byPointer].map(([pointer, { code, details }]) => ({
    code,
    detail: details.join("; or "),
    source: { pointer }
  }))
}

/** The error object of a malformed path or query parameter. */
export const parameterError = (parameter: string, detail: string): ErrorObject => ({
  code: "INVALID_PARAMETER",
  detail,
  source: { parameter }
})

/** The client's refusal of a request it did not send: the one way the toolkit says so. */
export const clientValidation = (errors: ReadonlyArray<ErrorObject>): ValidationError =>
  new ValidationError({ errors, messages: [], excerpt: "", origin: "client" })
