/** The search a command line asks for, as a quick or an advanced search, and server messages for people. */
import { Option } from "effect"
import type { Designs } from "../index.js"
import type { SearchArgs } from "./Inputs.js"

/** The search a command line asks for, and how to name it to people. */
export type Search =
  | { readonly _tag: "quick"; readonly request: Designs.QuickSearchRequest; readonly label: string }
  | { readonly _tag: "advanced"; readonly request: Designs.AdvancedSearchRequest; readonly label: string }

/** The `changedSinceDate` and `sort` of a parsed command line, each only when given. */
const common = ({ changedSince, sort }: SearchArgs) => ({
  ...(Option.isSome(changedSince) ? { changedSinceDate: changedSince.value } : {}),
  ...(Option.isSome(sort)
    ? { sort: { field: "NUMBER", direction: sort.value === "number" ? "ASCENDING" : "DESCENDING" } } as const
    : {})
})

/**
 * The quick search of a query, or with no query the advanced search of the criteria (the command
 * line checked there is one or the other, `Inputs.ts`): one row each
 * `--class`, joined with OR, the other criteria in every row.
 */
export const toSearch = (args: SearchArgs): Search => {
  const named = { owner: args.owner, designer: args.designer, productName: args.product, designNumber: args.number }
  const given = Object.entries(named).flatMap(([field, value]) => Option.isSome(value) ? [[field, value.value]] : [])
  const { changedSince, classification, status } = args
  // The filters, as the header of either search lists them.
  const filtered = [
    ...(status.length > 0 ? [`status ${status.join(" or ")}`] : []),
    ...(classification.length > 0 ? [`class ${classification.join(" or ")}`] : []),
    ...(Option.isSome(changedSince) ? [`changed since ${changedSince.value}`] : [])
  ]
  if (Option.isSome(args.query)) {
    const filters = {
      ...(status.length > 0 ? { statusFilter: status } : {}),
      ...(classification.length > 0 ? { classificationFilter: classification } : {})
    }
    const request = {
      query: args.query.value,
      ...(Object.keys(filters).length > 0 ? { filters } : {}),
      ...common(args)
    }
    return { _tag: "quick", request, label: [JSON.stringify(args.query.value), ...filtered].join(" and ") }
  }
  const shared: Record<string, unknown> = {
    ...Object.fromEntries(given),
    ...(status.length > 0 ? { statuses: status } : {})
  }
  const rows: ReadonlyArray<Designs.Row> = classification.length === 0
    ? [{ op: "AND", query: shared }]
    : classification.map((code, i) => ({ op: i === 0 ? "AND" : "OR", query: { ...shared, classification: code } }))
  const label = [...given.map(([field, value]) => `${field} ${JSON.stringify(value)}`), ...filtered].join(" and ")
  return { _tag: "advanced", request: { rows, ...common(args) }, label }
}

/** Server messages (warnings, information) for people, one line each. */
export const messageLines = (
  messages: ReadonlyArray<{ readonly code: string; readonly detail: string; readonly severity?: string | undefined }>
) => messages.map((m) => `${m.severity ?? "message"}: ${m.code}: ${m.detail}`)
