/**
 * The search a command line asks for (`Inputs.SearchArgs`: a query and filters, or criteria), as a
 * quick or an advanced search of the library, and the server's messages for people.
 */
import { Either, Option } from "effect"
import type { Designs } from "../index.js"
import { UsageError } from "./failure.js"
import type { SearchArgs } from "./Inputs.js"

/** The search a command line asks for, and how to name it to people. */
export type Search =
  | { readonly _tag: "quick"; readonly request: Designs.QuickSearchRequest; readonly label: string }
  | { readonly _tag: "advanced"; readonly request: Designs.AdvancedSearchRequest; readonly label: string }

/**
 * The search of a parsed command line: the quick search of its query, or with no query the
 * advanced search of its criteria (one row each `--class`, joined with OR; the rest of the criteria
 * in every row). A query with `--owner`, `--designer`, `--product` or `--number`, or neither a query
 * nor a criterion, is a usage error.
 */
export const toSearch = (args: SearchArgs): Either.Either<Search, UsageError> => {
  const named = { owner: args.owner, designer: args.designer, productName: args.product, designNumber: args.number }
  const given = Object.entries(named).flatMap(([field, value]) => Option.isSome(value) ? [[field, value.value]] : [])
  if (Option.isSome(args.query)) {
    if (given.length > 0) {
      return Either.left(
        new UsageError({
          detail:
            "a query cannot be combined with --owner, --designer, --product or --number: give the query, or the criteria"
        })
      )
    }
    return Either.right({
      _tag: "quick",
      request: toRequest(args, args.query.value),
      label: JSON.stringify(args.query.value)
    })
  }
  if (given.length === 0 && args.status.length === 0 && args.classification.length === 0) {
    return Either.left(
      new UsageError({
        detail: "a search needs a query, or criteria: --owner, --designer, --product, --number, --class, --status"
      })
    )
  }
  const shared: Record<string, unknown> = Object.fromEntries(given)
  if (args.status.length > 0) shared.statuses = args.status
  const rows: ReadonlyArray<Designs.Row> = args.classification.length === 0
    ? [{ op: "AND", query: shared }]
    : args.classification.map((classification, i) => ({
      op: i === 0 ? "AND" : "OR",
      query: { ...shared, classification }
    }))
  const label = [
    ...given.map(([field, value]) => `${field} ${JSON.stringify(value)}`),
    ...(args.status.length > 0 ? [`status ${args.status.join(" or ")}`] : []),
    ...(args.classification.length > 0 ? [`class ${args.classification.join(" or ")}`] : [])
  ].join(" and ")
  return Either.right({
    _tag: "advanced",
    request: {
      rows,
      ...Option.match(args.changedSince, { onNone: () => ({}), onSome: (changedSinceDate) => ({ changedSinceDate }) }),
      ...sortOf(args)
    },
    label
  })
}

const sortOf = (args: SearchArgs) =>
  Option.match(args.sort, {
    onNone: () => ({}),
    onSome: (sort) => ({
      sort: { field: "NUMBER", direction: sort === "number" ? "ASCENDING" : "DESCENDING" } as const
    })
  })

/** The quick search of `query` with the filters of a parsed command line; absent filters are left out. */
const toRequest = (args: SearchArgs, query: string): Designs.QuickSearchRequest => {
  const filters = {
    ...(args.status.length > 0 ? { statusFilter: args.status } : {}),
    ...(args.classification.length > 0 ? { classificationFilter: args.classification } : {})
  }
  return {
    query,
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
    ...Option.match(args.changedSince, { onNone: () => ({}), onSome: (changedSinceDate) => ({ changedSinceDate }) }),
    ...sortOf(args)
  }
}

/** Server messages (warnings, information) for people, one line each. */
export const messageLines = (
  messages: ReadonlyArray<{ readonly code: string; readonly detail: string; readonly severity?: string | undefined }>
) => messages.map((m) => `${m.severity ?? "message"}: ${m.code}: ${m.detail}`)
