/**
 * Schema failures told in bounded text. Effect's formatters print an offending value whole and
 * recursively: a value nested a few thousand levels deep overflows the stack, and a 10 MB string
 * makes a 10 MB message. Here every offending value is swapped for a short preview (masked first)
 * before a formatter sees it, and the whole description is capped.
 */
import { Array as Arr, ParseResult } from "effect"
import type { Mask } from "../core/mask.js"
import { cap } from "../core/mask.js"
import { boundedKey, preview } from "../core/preview.js"

/** Longest description of a failure. */
export const maxDescriptionLength = 1000

const isMany = <A>(a: ParseResult.SingleOrNonEmpty<A>): a is Arr.NonEmptyReadonlyArray<A> => Array.isArray(a)

/**
 * `issue` with every offending value a formatter prints (a `Type` issue's: the others print none)
 * swapped for its preview, worked out only if printed, and every path key masked and capped.
 */
const boundedIssue = (issue: ParseResult.ParseIssue, mask: Mask): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type": {
      const shown = { toString: () => preview(issue.actual, mask) }
      return new ParseResult.Type(issue.ast, shown, issue.message)
    }
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

/** `error` with bounded, masked values: any formatter of Effect's can print it safely. */
export const bounded = (error: ParseResult.ParseError, mask: Mask): ParseResult.ParseError =>
  new ParseResult.ParseError({ issue: boundedIssue(error.issue, mask) })

/**
 * An optional field that fails its schema (or has a field below it that does) also fails the
 * `undefined` branch of its union; that issue says nothing of the problem.
 */
export const isUndefinedBranch = (issue: ParseResult.ArrayFormatterIssue): boolean =>
  issue.message.startsWith("Expected undefined, actual")

/**
 * What did not fit, one `path: problem` per offending value, bounded in length; an `undefined`
 * branch is left out while another issue is told.
 */
export const describe = (error: ParseResult.ParseError, mask: Mask): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(bounded(error, mask))
  const told = issues.filter((i) => !isUndefinedBranch(i))
  return cap(
    (told.length > 0 ? told : issues).map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ` : "") + i.message)
      .join("; "),
    maxDescriptionLength
  )
}
