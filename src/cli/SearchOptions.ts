/**
 * The query and filters `search` and `export` share, checked on the command line (so a bad date is
 * a usage error before anything is sent) and turned into a `QuickSearchRequest`.
 */
import { Args, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { Designs } from "../index.js"

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

const isIsoDate = Schema.is(Designs.IsoDate)

/** The command-line shape of a quick search. */
export const searchConfig = {
  query: Args.text({ name: "query" }).pipe(
    Args.withDescription("words to look for (title, products, owners, designers, number)")
  ),
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
      isIsoDate(s)
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
  readonly query: string
  readonly status: ReadonlyArray<string>
  readonly classification: ReadonlyArray<string>
  readonly changedSince: Option.Option<string>
  readonly sort: Option.Option<"number" | "-number">
}

/** The request a parsed command line asks for; absent filters are left out. */
export const toRequest = (args: SearchArgs): Designs.QuickSearchRequest => {
  const filters = {
    ...(args.status.length > 0 ? { statusFilter: args.status } : {}),
    ...(args.classification.length > 0 ? { classificationFilter: args.classification } : {})
  }
  return {
    query: args.query,
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
    ...Option.match(args.changedSince, { onNone: () => ({}), onSome: (changedSinceDate) => ({ changedSinceDate }) }),
    ...Option.match(args.sort, {
      onNone: () => ({}),
      onSome: (sort) => ({
        sort: { field: "NUMBER", direction: sort === "number" ? "ASCENDING" : "DESCENDING" } as const
      })
    })
  }
}

/** Server messages (warnings, information) for people, one line each. */
export const messageLines = (
  messages: ReadonlyArray<{ readonly code: string; readonly detail: string; readonly severity?: string | undefined }>
) => messages.map((m) => `${m.severity ?? "message"}: ${m.code}: ${m.detail}`)
