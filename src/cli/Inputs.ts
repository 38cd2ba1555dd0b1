/**
 * The commands of the CLI, declared (`CommandLine.ts`): their arguments, options and examples, from
 * which help is rendered and each handler's input type is derived. Loaded at every start, so it
 * imports only the library's lightest modules.
 */
import { DateTime, Option } from "effect"
import { changeKinds } from "../core/mirror/mirror.js"
import { samples } from "../core/sandbox/dataset.js"
import { isCalendarDate, noSuchDay, wireDate } from "../core/wire/calendarDate.js"
import { isLoopbackHost } from "../DesignSearchConfig.js"
import { defaults, listenDefaults, resultFields } from "../internal/sandbox/Defaults.js"
import * as RequestBudget from "../RequestBudget.js"
import type { Command, Fields, Input, Parser } from "./CommandLine.js"
import {
  argument,
  flag,
  integer,
  nonEmpty,
  oneOf,
  optional,
  repeatable,
  required,
  requiredArgument,
  text,
  withDefault
} from "./CommandLine.js"
import { environments } from "./Environment.js"
import * as Output from "./Output.js"

/** What a command says of itself at the top of the help. */
export const summary = "search IP Australia's registered designs (or the embedded sandbox, without credentials)"

/** A loopback address, as the sandbox listens on no other. */
const loopback: Parser<string> = {
  takes: "a loopback address (localhost, 127.0.0.1, ::1)",
  parse: Option.liftPredicate((s) => ["::1", "[::1]"].includes(s) || isLoopbackHost(s))
}

/** A credential the sandbox prints in its `export` lines: one a shell reads back as it is, and a terminal shows as it is. */
const credential: Parser<string> = {
  takes: "a text, not empty, with no control character, line separator or direction mark",
  parse: Option.liftPredicate((s) => s !== "" && Output.field(s) === s)
}

const date: Parser<string> = {
  takes: "a date written YYYY-MM-DD",
  parse: Option.liftPredicate(isCalendarDate),
  why: noSuchDay
}

/** A Locarno class (`06`) or subclass (`06-01`), as the service writes them. */
const locarno: Parser<string> = {
  takes: "a Locarno class written 06, or a subclass written 06-01",
  parse: Option.liftPredicate((s) => /^\d{2}(?:-\d{2})?$/.test(s))
}

/** The options of every command that talks to the service (or the embedded sandbox). */
export const service = {
  env: optional(
    "env",
    oneOf(environments),
    "ENV",
    "sandbox (embedded, simulated data), test or production; default IPAUSTRALIA_ENV, else sandbox " +
      "when no IPAUSTRALIA_* variable is set"
  ),
  noTokenCache: flag(
    "no-token-cache",
    "keep the token of this run to itself, not in $XDG_CACHE_HOME/design-search (or ~/.cache) for the next; " +
      "so does DESIGN_SEARCH_NO_TOKEN_CACHE=1"
  ),
  quiet: flag("quiet", "print no line when a request waits to be tried again, or on the rate budget")
}

/** A search, shared by `search`, `export` and `sync`: a query and its filters, or criteria (`Search.ts`). */
const searchFields = {
  query: argument("QUERY", "words to look for (title, products, owners, designers, number); or give criteria instead"),
  owner: optional("owner", text, "WORDS", "designs of an owner whose name has these words (an advanced search)"),
  designer: optional(
    "designer",
    text,
    "WORDS",
    "designs of a designer whose name has these words (an advanced search)"
  ),
  product: optional("product", text, "WORDS", "designs of a product whose name has these words (an advanced search)"),
  number: optional("number", text, "NUMBER", "the design with this number (an advanced search)"),
  status: repeatable(
    "status",
    text,
    "STATUS",
    "keep designs with this status (REGISTERED, FILED, ...); repeatable, any of them"
  ),
  classification: repeatable(
    "class",
    locarno,
    "CLASS",
    "keep designs in this Locarno class or subclass (06, 06-01); repeatable, any of them"
  )
}
const changedSince = optional("changed-since", date, "YYYY-MM-DD", "keep designs changed on or after this date")
const sort = optional(
  "sort",
  oneOf(["number", "-number"]),
  "ORDER",
  "order by design number: number (ascending) or -number (descending)"
)

/**
 * Why the query and criteria of a search do not make one: a query, or criteria (the filters
 * `--status` and `--class` go with either), never neither, never a query and criteria.
 */
const refuseSearch = (args: Input<typeof searchFields>): Option.Option<string> => {
  const criteria = [args.owner, args.designer, args.product, args.number].some(Option.isSome)
  if (Option.isSome(args.query)) {
    return criteria
      ? Option.some(
        "a query cannot be combined with --owner, --designer, --product or --number: give the query, or the criteria"
      )
      : Option.none()
  }
  return criteria || args.status.length > 0 || args.classification.length > 0
    ? Option.none()
    : Option.some("a search needs a query, or criteria: --owner, --designer, --product, --number, --class, --status")
}

/** `--rate`: requests a minute, absent for the default. */
const rate = optional(
  "rate",
  integer(0, 1_000_000),
  "N",
  `API requests a minute, 0 for no pace (default ${RequestBudget.publishedRequestsPerMinute}, ` +
    "the published cap, against test and production; none against the sandbox or URLs you set)"
)

const concurrency = (what: string, byDefault: number) =>
  withDefault("concurrency", integer(1, 64), "N", `how many ${what} at once`, byDefault)

/** The fields a search reads (`Search.toSearch`). */
export type SearchArgs = Input<typeof searchFields> & {
  readonly changedSince: Option.Option<string>
  readonly sort: Option.Option<"number" | "-number">
}

const make = <F extends Fields>(command: Command<F>): Command<F> => command

export const search = make({
  name: "search",
  summary: "search designs: the count and the first hits (number, status, title), or --json",
  fields: {
    ...searchFields,
    changedSince,
    sort,
    limit: withDefault(
      "limit",
      integer(0, 1000),
      "N",
      "how many hits the table shows with status and title; 0 lists the numbers only",
      20
    ),
    json: flag("json", "print one JSON object {count, designNumbers, messages} on stdout instead of the table"),
    ...service
  },
  examples: [
    "search chair",
    "search chair --status REGISTERED --class 06 --limit 5",
    "search --owner wattle --sort -number",
    "search chair --json --limit 0",
    "search -- -dash-first"
  ],
  refuse: refuseSearch
})
export type SearchInput = Input<typeof search.fields>

export const get = make({
  name: "get",
  summary: "show everything known about one design, or --json for the record",
  fields: {
    designNumber: requiredArgument("DESIGN_NUMBER", "the design number, e.g. 201900001"),
    json: flag("json", "print the whole record as one JSON object on stdout"),
    ...service
  },
  examples: ["get 201900001", "get 201900001 --json"]
})
export type GetInput = Input<typeof get.fields>

export const exportDesigns = make({
  name: "export",
  summary: "write every hit (of a query, or of criteria) with its full record to a JSONL file; run again to resume",
  fields: {
    ...searchFields,
    changedSince,
    sort,
    out: required("out", text, "FILE", "the JSONL file to write; designs already in it are skipped"),
    concurrency: concurrency("designs are fetched", 8),
    rate,
    ...service
  },
  examples: ["export chair --out chairs.jsonl", "export --class 06-01 --out seats.jsonl --rate 120"],
  refuse: refuseSearch
})
export type ExportInput = Input<typeof exportDesigns.fields>

/** `--db`, the mirror of `sync` and `changes`. */
const db = required(
  "db",
  text,
  "PATH_OR_URL",
  "the mirror: a SQLite file (a path or file: URL, created when absent), or a libsql://, " +
    "http(s):// or postgres:// URL"
)

export const sync = make({
  name: "sync",
  summary: "keep a SQL mirror (SQLite or PostgreSQL) of every design of a query or criteria: all, then changes",
  fields: {
    ...searchFields,
    sort,
    db,
    concurrency: concurrency("requests are made", 4),
    rate,
    ...service
  },
  examples: ["sync chair --db chairs.db", "sync --class 06 --db postgres://localhost/designs"],
  refuse: refuseSearch
})
export type SyncInput = Input<typeof sync.fields>

/** `--since`: a day (UTC), an instant, `today` or `yesterday`, as the instant it names at the time of the run. */
const since: Parser<(now: DateTime.Utc) => DateTime.Utc> = {
  takes: "a date YYYY-MM-DD, an ISO timestamp, today or yesterday",
  parse: (s) =>
    s === "today" || s === "yesterday"
      ? Option.some((now) => DateTime.subtract(DateTime.startOf(now, "day"), { days: s === "today" ? 0 : 1 }))
      : Option.map(
        Option.fromNullable(noSuchDay(s) === undefined ? wireDate(s) : undefined),
        (millis) => () => DateTime.unsafeMake(millis)
      ),
  why: noSuchDay
}

export const changes = make({
  name: "changes",
  summary: "what syncs changed in a SQL mirror, newest first: by default, what the last sync changed",
  fields: {
    db,
    since: optional(
      "since",
      since,
      "DATE",
      "changes seen by syncs that started at or after this: YYYY-MM-DD (a UTC day), an ISO timestamp, today " +
        "or yesterday; default the start of the last sync"
    ),
    kind: optional("kind", oneOf(changeKinds), "KIND", `only changes of this kind: ${changeKinds.join(", ")}`),
    json: flag("json", "print one JSON object a change on stdout: {number, syncedAt, kind, fields}")
  },
  examples: [
    "changes --db designs.db",
    "changes --db designs.db --since yesterday --kind changed",
    "changes --db postgres://localhost/designs --since 2026-11-01 --json"
  ]
})
export type ChangesInput = Input<typeof changes.fields>

export const token = make({
  name: "token",
  summary: "fetch an access token and show its type, expiry and claims (the token itself only with --show)",
  fields: {
    json: flag("json", "print one JSON object on stdout"),
    show: flag("show", "also print the access token itself (a secret)"),
    ...service
  },
  examples: ["token", "token --env test --json"]
})
export type TokenInput = Input<typeof token.fields>

/** Fields of a request's body a cassette does not match on (`Sandbox.CassetteOptions`). */
const ignore = repeatable(
  "ignore",
  nonEmpty,
  "FIELD",
  "a field of a request's JSON body not matched on, at any depth, such as changedSinceDate"
)

export const record = make({
  name: "record",
  summary: "run a command through a cassette that records what it asks, to replay offline",
  fields: {
    cassette: required(
      "cassette",
      nonEmpty,
      "CASSETTE",
      "the cassette file: what it holds is replayed, the rest added"
    ),
    ignore
  },
  notes: [
    "After --, the command to run: it talks to its environment (the service, or the embedded sandbox)",
    "through the cassette, which keeps no secret and no token. `sandbox --cassette` serves the cassette;",
    "see docs/cassettes.md."
  ],
  examples: [
    "record --cassette chairs.json -- search chair",
    "record --cassette chairs.json -- export chair --out c.jsonl"
  ]
})
export type RecordInput = Input<typeof record.fields>

export const sandbox = make({
  name: "sandbox",
  summary: "serve the simulated service on loopback and print the variables that point a client at it",
  fields: {
    port: withDefault("port", integer(0, 65535), "PORT", "TCP port, 0 picks a free one", listenDefaults.port),
    host: withDefault(
      "host",
      loopback,
      "ADDRESS",
      "loopback address to listen on",
      listenDefaults.host
    ),
    designs: withDefault("designs", integer(1, 200_000), "N", "how many designs the dataset holds", defaults.designs),
    seed: withDefault("seed", integer(), "N", "seed of the dataset: the same seed, the same designs", 1),
    clientId: withDefault("client-id", credential, "ID", "the client id the sandbox accepts", defaults.clientId),
    clientSecret: withDefault(
      "client-secret",
      credential,
      "SECRET",
      "the client secret the sandbox accepts",
      defaults.clientSecret
    ),
    tokenLifetime: withDefault(
      "token-lifetime",
      integer(1, 31_536_000),
      "SECONDS",
      "expires_in of the tokens it issues",
      3600
    ),
    resultField: withDefault(
      "result-field",
      oneOf(resultFields),
      "FIELD",
      `the field of a search result that lists the design numbers: ${resultFields.join(" or ")}`,
      defaults.resultField
    ),
    cassette: optional("cassette", nonEmpty, "CASSETTE", "replay this cassette (from record) instead of a dataset"),
    ignore
  },
  notes: [
    "Every dataset holds these, to try once the variables are exported:",
    `  owners    ${samples.owners.join(", ")}`,
    `  products  ${samples.products.join(", ")}`,
    `  classes   ${samples.classes.join(", ")}`
  ],
  examples: ["sandbox", "sandbox --port 0 --designs 500 --seed 7", "sandbox --cassette chairs.json"]
})
export type SandboxInput = Input<typeof sandbox.fields>
