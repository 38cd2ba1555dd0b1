/**
 * The query, filters and criteria `search` and `export` share, checked on the command line (so a bad
 * date is a usage error before anything is sent) and turned into a quick or an advanced search.
 */
import { Args, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import type { Designs } from "../index.js"
import { isCalendarDate } from "../internal/calendarDate.js"
import { UsageError } from "./failure.js"

const invalid = (message: string) => ValidationError.invalidValue(HelpDoc.p(message))

/** An integer option, in the CLI's own words when the value is none (`--seed expects an integer, got 'x'`). */
export const int = (name: string): Options.Options<number> =>
  Options.text(name).pipe(
    Options.withPseudoName("integer"),
    Options.mapEffect((text) =>
      /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text))
        ? Effect.succeed(Number(text))
        : Effect.fail(invalid(`--${name} expects an integer, got '${text}'`))
    )
  )

/** An integer option that must lie in `[min, max]`. */
export const intInRange = (name: string, min: number, max: number): Options.Options<number> =>
  int(name).pipe(
    Options.mapEffect((n) =>
      n >= min && n <= max
        ? Effect.succeed(n)
        : Effect.fail(invalid(`--${name} must be from ${min} to ${max}, got ${n}`))
    )
  )

/** A criterion of the advanced search: a text option, absent unless given. */
const criterion = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)

/**
 * The command-line shape of a search: a query (a quick search, `--status` and `--class` its
 * filters), or criteria with no query (an advanced search, every criterion joined with AND).
 */
export const searchConfig = {
  query: Args.text({ name: "query" }).pipe(
    Args.withDescription("words to look for (title, products, owners, designers, number); or give criteria instead"),
    Args.optional
  ),
  owner: criterion("owner", "designs of an owner whose name has these words (an advanced search)"),
  designer: criterion("designer", "designs of a designer whose name has these words (an advanced search)"),
  product: criterion("product", "designs of a product whose name has these words (an advanced search)"),
  number: criterion("number", "the design with this number (an advanced search)"),
  status: Options.text("status").pipe(
    Options.withDescription("keep designs with this status (REGISTERED, FILED, ...); repeatable"),
    Options.repeated
  ),
  classification: Options.text("class").pipe(
    Options.withDescription("keep designs in this Locarno class or subclass (06, 06-01); repeatable"),
    Options.repeated
  ),
  changedSince: Options.text("changed-since").pipe(
    Options.withDescription("keep designs changed on or after this date (YYYY-MM-DD)"),
    Options.mapEffect((s) =>
      isCalendarDate(s)
        ? Effect.succeed(s)
        : Effect.fail(invalid(`--changed-since expects a date written YYYY-MM-DD, got '${s}'`))
    ),
    Options.optional
  ),
  sort: Options.choice("sort", ["number", "-number"]).pipe(
    Options.withDescription("order by design number, ascending (number) or descending (-number)"),
    Options.optional
  )
} as const

/** What `searchConfig` parses to. */
export interface SearchArgs {
  readonly query: Option.Option<string>
  readonly owner: Option.Option<string>
  readonly designer: Option.Option<string>
  readonly product: Option.Option<string>
  readonly number: Option.Option<string>
  readonly status: ReadonlyArray<string>
  readonly classification: ReadonlyArray<string>
  readonly changedSince: Option.Option<string>
  readonly sort: Option.Option<"number" | "-number">
}

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
