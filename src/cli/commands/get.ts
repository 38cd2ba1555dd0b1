/**
 * `design-search get <designNumber>`: everything the service knows about one design, as labelled
 * lines or (`--json`) as the wire-form record. A malformed number is refused before anything is
 * sent (exit 2); an unknown one is the service's 404 (exit 1).
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { Designs, DesignSearchClient } from "../../index.js"
import { designJson, designLines } from "../DesignText.js"
import { envOption } from "../Environment.js"
import * as Output from "../Output.js"
import { provideClient } from "../Root.js"
import { messageLines } from "../SearchOptions.js"

/** @since 0.1.0 */
export const get = Command.make("get", {
  designNumber: Args.text({ name: "designNumber" }).pipe(Args.withDescription("the design number, e.g. 201900001")),
  json: Options.boolean("json").pipe(Options.withDescription("the whole record as one JSON object on stdout")),
  env: envOption
}, (args) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const { data, messages } = yield* client.getDesign(args.designNumber)
    for (const line of messageLines(messages)) yield* Output.stderr(line)
    yield* args.json
      ? Effect.flatMap(designJson(data), Output.data)
      : Output.stdout(designLines(Designs.encodeDesign(data)).join("\n"))
  }).pipe(provideClient(args.env))).pipe(
    Command.withDescription("Show everything known about one design, or --json for the record")
  )
