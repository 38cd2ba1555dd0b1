/**
 * `design-search token`: fetches an access token and shows its type, expiry and (unverified) JWT
 * claims, to check credentials and entitlements. The token itself is a secret: it is printed only
 * with `--show`. What it does is `handlers/token.ts`.
 */
import { Command, Options } from "@effect/cli"
import { envOption } from "../Environment.js"
import { lazily } from "../Handler.js"

const config = {
  json: Options.boolean("json").pipe(Options.withDescription("one JSON object on stdout")),
  show: Options.boolean("show").pipe(Options.withDescription("also print the access token itself (a secret)")),
  env: envOption
}

/** What `token` parses its command line to. */
export type TokenCommand = Command.Command.ParseConfig<typeof config>

/** @since 0.1.0 */
export const token = Command.make("token", config, lazily(() => import("../handlers/token.js"))).pipe(
  Command.withDescription("Fetch an access token and show its type, expiry and claims (the token only with --show)")
)
