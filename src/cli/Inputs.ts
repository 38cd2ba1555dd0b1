/**
 * The options and arguments of each command, and the types they parse to: `Cli.ts` makes the
 * commands of them, each handler takes its type from here. Loaded at every start, so it imports
 * only the library's lightest modules.
 */
import { Args, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"
import { isCalendarDate } from "../internal/calendarDate.js"
import * as RequestBudget from "../RequestBudget.js"
import { defaults, listenDefaults, resultFields } from "../sandbox/Defaults.js"
import type { Environment } from "./Environment.js"
import { envOption } from "./Environment.js"

const invalid = (message: string) => ValidationError.invalidValue(HelpDoc.p(message))

/** An integer option, in the CLI's own words when the value is none (`--seed expects an integer, got 'x'`). */
const int = (name: string): Options.Options<number> =>
  Options.text(name).pipe(
    Options.withPseudoName("integer"),
    Options.mapEffect((text) =>
      /^-?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text))
        ? Effect.succeed(Number(text))
        : Effect.fail(invalid(`--${name} expects an integer, got '${text}'`))
    )
  )

/** An integer option that must lie in `[min, max]`. */
const intInRange = (name: string, min: number, max: number): Options.Options<number> =>
  int(name).pipe(
    Options.mapEffect((n) =>
      n >= min && n <= max
        ? Effect.succeed(n)
        : Effect.fail(invalid(`--${name} must be from ${min} to ${max}, got ${n}`))
    )
  )

/** An option's description, and its default, which the description names. */
const described = <A extends string | number>(option: Options.Options<A>, description: string, byDefault: A) =>
  option.pipe(Options.withDescription(`${description} (default ${byDefault})`), Options.withDefault(byDefault))

/** A text option, and a flag, with their descriptions. */
const text = (name: string, description: string) => Options.text(name).pipe(Options.withDescription(description))
const flag = (name: string, description: string) => Options.boolean(name).pipe(Options.withDescription(description))

/** `--env` and `--no-token-cache`: the root command's, which its subcommands read by yielding `root`. */
export const root = Command.make("design-search", {
  env: envOption,
  noTokenCache: flag(
    "no-token-cache",
    "keep the token of this run to itself, not in $XDG_CACHE_HOME/design-search (or ~/.cache) for the next; so does DESIGN_SEARCH_NO_TOKEN_CACHE=1"
  )
}).pipe(
  Command.withDescription("Search IP Australia's registered designs (or the embedded sandbox without credentials)")
)

/** The environment a subcommand runs in: its own `--env`, else the global one. */
export const resolveEnv = (local: Option.Option<Environment>) =>
  Effect.map(root, (global) => Option.orElse(local, () => global.env))

/** A search, shared by `search`, `export` and `sync`: a query and its filters, or criteria (`Search.ts`). */
const searchConfig = {
  query: Args.text({ name: "query" }).pipe(
    Args.withDescription("words to look for (title, products, owners, designers, number); or give criteria instead"),
    Args.optional
  ),
  owner: Options.optional(text("owner", "designs of an owner whose name has these words (an advanced search)")),
  designer: Options.optional(text("designer", "designs of a designer whose name has these words (an advanced search)")),
  product: Options.optional(text("product", "designs of a product whose name has these words (an advanced search)")),
  number: Options.optional(text("number", "the design with this number (an advanced search)")),
  status: Options.repeated(text("status", "keep designs with this status (REGISTERED, FILED, ...); repeatable")),
  classification: Options.repeated(
    text("class", "keep designs in this Locarno class or subclass (06, 06-01); repeatable")
  ),
  changedSince: text("changed-since", "keep designs changed on or after this date (YYYY-MM-DD)").pipe(
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
}
export type SearchArgs = Command.Command.ParseConfig<typeof searchConfig>

/** `--rate`: requests a minute, absent for the default. */
const rate = intInRange("rate", 0, 1_000_000).pipe(
  Options.withDescription(
    `API requests a minute, 0 for no pace (default ${RequestBudget.publishedRequestsPerMinute}, the published cap, ` +
      "against test and production; none against the sandbox or URLs you set)"
  ),
  Options.optional
)

export const search = {
  ...searchConfig,
  json: flag("json", "one JSON object {count, designNumbers, messages} on stdout"),
  limit: described(
    intInRange("limit", 0, 1000),
    "how many hits the table shows with status and title; 0 lists numbers only",
    20
  ),
  env: envOption
}
export type SearchInput = Command.Command.ParseConfig<typeof search>

export const get = {
  designNumber: Args.text({ name: "designNumber" }).pipe(Args.withDescription("the design number, e.g. 201900001")),
  json: flag("json", "the whole record as one JSON object on stdout"),
  env: envOption
}
export type GetInput = Command.Command.ParseConfig<typeof get>

export const exportDesigns = {
  ...searchConfig,
  // Checked when it is opened, where a bad path is a FileError in the CLI's words.
  out: Options.withPseudoName(text("out", "the JSONL file to write; designs already in it are skipped"), "file"),
  concurrency: described(intInRange("concurrency", 1, 64), "how many designs are fetched at once", 8),
  rate,
  env: envOption
}
export type ExportInput = Command.Command.ParseConfig<typeof exportDesigns>

export const sync = {
  ...searchConfig,
  db: text(
    "db",
    "the mirror: a SQLite file (a path or file: URL, created when absent), or a libsql://, http(s):// or postgres:// URL"
  ).pipe(Options.withPseudoName("path-or-url")),
  concurrency: described(intInRange("concurrency", 1, 64), "how many requests are made at once", 4),
  rate,
  env: envOption
}
export type SyncInput = Command.Command.ParseConfig<typeof sync>

export const token = {
  json: flag("json", "one JSON object on stdout"),
  show: flag("show", "also print the access token itself (a secret)"),
  env: envOption
}
export type TokenInput = Command.Command.ParseConfig<typeof token>

export const sandbox = {
  port: described(intInRange("port", 0, 65535), "TCP port, 0 picks a free one", listenDefaults.port),
  host: described(Options.text("host"), "loopback address to listen on", listenDefaults.host),
  designs: described(intInRange("designs", 1, 200_000), "how many designs the dataset holds", 5_000),
  seed: described(int("seed"), "seed of the dataset: the same seed, the same designs", 1),
  clientId: described(Options.text("client-id"), "the client id the sandbox accepts", defaults.clientId),
  clientSecret: described(
    Options.text("client-secret"),
    "the client secret the sandbox accepts",
    defaults.clientSecret
  ),
  tokenLifetime: described(
    intInRange("token-lifetime", 1, 31_536_000),
    "expires_in of issued tokens, in seconds",
    3600
  ),
  resultField: described(
    Options.choice("result-field", resultFields),
    "the field of a search result that lists the design numbers",
    defaults.resultField
  )
}
export type SandboxInput = Command.Command.ParseConfig<typeof sandbox>
