/**
 * Schema 3's failures read as lines for `schemaIssues.ts`. Effect's formatters print an offending value
 * whole (deep nesting overflows the stack, 10 MB make a 10 MB message): each is swapped for a short preview.
 */
import { Array as Arr, ParseResult } from "effect"
import type { Mask } from "../core/mask/mask.js"
import { boundedKey, preview } from "../core/mask/preview.js"

const isMany = <A>(a: ParseResult.SingleOrNonEmpty<A>): a is Arr.NonEmptyReadonlyArray<A> => Array.isArray(a)

/**
 * `issue` with every offending value a formatter prints (a `Type` issue's: the others print none)
 * swapped for its preview, worked out only if printed, and every path key masked and capped.
 */
const boundedIssue = (issue: ParseResult.ParseIssue, mask: Mask): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return new ParseResult.Type(issue.ast, { toString: () => preview(issue.actual, mask) }, issue.message)
    case "Pointer": {
      const path: ParseResult.Path = isMany(issue.path)
        ? Arr.map(issue.path, (key) => boundedKey(key, mask))
        : boundedKey(issue.path, mask)
      return new ParseResult.Pointer(path, issue.actual, boundedIssue(issue.issue, mask))
    }
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, boundedIssue(issue.issue, mask))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, boundedIssue(issue.issue, mask))
    case "Composite": {
      const issues: ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue> = isMany(issue.issues)
        ? Arr.map(issue.issues, (i) => boundedIssue(i, mask))
        : boundedIssue(issue.issues, mask)
      return new ParseResult.Composite(issue.ast, issue.actual, issues, issue.output)
    }
    default: // `Missing`, `Forbidden`, `Unexpected`
      return issue
  }
}

/** Every offending value of `error` (`path`, `_tag`, `message`), values previewed, path keys masked and capped. */
export const told = (error: ParseResult.ParseError, mask: Mask): ReadonlyArray<ParseResult.ArrayFormatterIssue> =>
  ParseResult.ArrayFormatter.formatErrorSync(new ParseResult.ParseError({ issue: boundedIssue(error.issue, mask) }))

/** Whether `issue` is an optional field's `undefined` member failing too, which says nothing of the problem. */
export const isUndefinedBranch = (issue: { readonly message: string }): boolean =>
  issue.message.startsWith("Expected undefined, actual")
