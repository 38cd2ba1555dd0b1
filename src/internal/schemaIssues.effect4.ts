/**
 * Schema 4's failures read as lines for `schemaIssues.ts`, in the Effect 3 edition's words ("Expected
 * string, actual 1", "is missing"). The offending values appear, as short masked previews, when the
 * schema ran with `reportInput: true`; without it (the token endpoint's answers, whose values may be
 * tokens of any type) the texts stop before ", actual".
 */
import { SchemaAST, SchemaIssue } from "effect"
import type { Schema } from "effect"
import type { Mask } from "../core/mask/mask.js"
import { boundedKey, preview } from "../core/mask/preview.js"

/** One offending value: where it is, the kind of leaf issue, and what is wrong with it. */
export interface Told {
  readonly path: ReadonlyArray<PropertyKey>
  readonly _tag: SchemaIssue.Leaf["_tag"]
  readonly message: string
}

const messageOf = (annotations: { readonly [key: string]: unknown } | undefined): string | undefined =>
  typeof annotations?.["message"] === "string" ? annotations["message"] : undefined

const actual = (issue: SchemaIssue.Issue, mask: Mask): string =>
  SchemaIssue.hasInput(issue) ? `, actual ${preview(issue.input, mask)}` : ""

/** "Expected string", "Expected \"AND\"": Effect's name for what `ast` takes, unless it has a message. */
const expected = (ast: SchemaAST.AST): string =>
  messageOf(ast.annotations) ?? SchemaIssue.defaultLeafHook(new SchemaIssue.InvalidType(ast))

/** The texts of the leaves, as the Effect 3 edition writes them. */
const leafHook = (mask: Mask): SchemaIssue.LeafHook => (issue) => {
  switch (issue._tag) {
    case "InvalidType":
      return messageOf(issue.ast.annotations) ?? expected(issue.ast) + actual(issue, mask)
    case "InvalidValue":
      return messageOf(issue.annotations) ?? "Expected a valid value" + actual(issue, mask)
    case "MissingKey":
      return "is missing"
    case "UnexpectedKey": {
      const keys = SchemaAST.isObjects(issue.ast)
        ? issue.ast.propertySignatures.map((p) => typeof p.name === "string" ? JSON.stringify(p.name) : String(p.name))
        : []
      return keys.length > 0 ? `is unexpected, expected: ${keys.join(" | ")}` : "is unexpected"
    }
    case "Forbidden":
      return "is forbidden"
    case "OneOf":
      return SchemaIssue.defaultLeafHook(issue)
  }
}

/** Effect 3's words for the number checks Effect 4 words otherwise ("a value between 1 and 10"). */
const numberCheck = (id: unknown, payload: unknown): string | undefined => {
  const bounds: { readonly [key: string]: unknown } = typeof payload === "object" ? { ...payload } : {}
  const { exclusiveMaximum: below, exclusiveMinimum: above, maximum, minimum } = bounds
  switch (id) {
    case "effect/schema/isBetween":
      return above === undefined && below === undefined ? `a number between ${minimum} and ${maximum}` : undefined
    case "effect/schema/isGreaterThanOrEqualTo":
      return minimum === 0 ? "a non-negative number" : `a number greater than or equal to ${minimum}`
    case "effect/schema/isGreaterThan":
      return above === 0 ? "a positive number" : `a number greater than ${above}`
    case "effect/schema/isLessThanOrEqualTo":
      return maximum === 0 ? "a non-positive number" : `a number less than or equal to ${maximum}`
    case "effect/schema/isLessThan":
      return below === 0 ? "a negative number" : `a number less than ${below}`
  }
}

/** A failed filter's own text, which stands for every issue under it: its message, or what it expected. */
const filterText = (issue: SchemaIssue.Filter, mask: Mask): string | undefined => {
  const { expected, message, representation } = issue.filter.annotations ?? {}
  if (typeof message === "string") return message
  const bare = issue.issue._tag === "InvalidValue" && messageOf(issue.issue.annotations) === undefined
  const told = numberCheck(representation?.id, representation?.payload) ?? expected
  return bare && typeof told === "string" ? `Expected ${told}${actual(issue, mask)}` : undefined
}

/** The members of a union a value matched none of, nested unions opened, the `undefined` of an optional field left out. */
const members = (ast: SchemaAST.Union): ReadonlyArray<SchemaAST.AST> => {
  const all = ast.types.flatMap((m): ReadonlyArray<SchemaAST.AST> => SchemaAST.isUnion(m) ? members(m) : [m])
  const kept = all.filter((m) => !SchemaAST.isUndefined(m))
  return kept.length > 0 ? kept : all
}

/** Every offending value of `error`, in order, path keys masked and capped. */
export const told = (error: Schema.SchemaError, mask: Mask): ReadonlyArray<Told> => {
  const text = leafHook(mask)
  const walk = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>, told?: string): ReadonlyArray<Told> => {
    switch (issue._tag) {
      case "Pointer":
        return walk(issue.issue, [...path, ...issue.path.map((key) => boundedKey(key, mask))], told)
      case "Encoding":
        return walk(issue.issue, path, told)
      case "Filter":
        return walk(issue.issue, path, told ?? filterText(issue, mask))
      case "Composite":
        return issue.issues.flatMap((i) => walk(i, path, told))
      case "AnyOf":
        return issue.issues.length > 0
          ? issue.issues.flatMap((i) => walk(i, path, told))
          : members(issue.ast).map((m) => ({
            path,
            _tag: "InvalidType",
            message: told ?? expected(m) + actual(issue, mask)
          }))
      default:
        return [{ path, _tag: issue._tag, message: told ?? text(issue) }]
    }
  }
  return walk(error.issue, [])
}

/** Never: `members` leaves an optional field's `undefined` member out as the issues are read. */
export const isUndefinedBranch = (_issue: { readonly message: string }): boolean => false
