/**
 * `design-search get <designNumber>`: everything the service knows about one design, as labelled
 * lines or (`--json`) as the wire-form record. A malformed number is refused before anything is
 * sent (exit 2); an unknown one is the service's 404 (exit 1). What it does is `handlers/get.ts`.
 */
import { Args, Command, Options } from "@effect/cli"
import { envOption } from "../Environment.js"
import { lazily } from "../Handler.js"

const config = {
  designNumber: Args.text({ name: "designNumber" }).pipe(Args.withDescription("the design number, e.g. 201900001")),
  json: Options.boolean("json").pipe(Options.withDescription("the whole record as one JSON object on stdout")),
  env: envOption
}

/** What `get` parses its command line to. */
export type GetCommand = Command.Command.ParseConfig<typeof config>

/** @since 0.1.0 */
export const get = Command.make("get", config, lazily(() => import("../handlers/get.js"))).pipe(
  Command.withDescription("Show everything known about one design, or --json for the record")
)
