/**
 * What `design-search get` does (its command line is `commands/get.ts`): one design, its server
 * messages on stderr, the record on stdout.
 */
import { Effect, Schema } from "effect"
import { Designs, DesignSearchClient } from "../../index.js"
import { provideClient } from "../Client.js"
import type { GetCommand } from "../commands/get.js"
import { designJson, designLines } from "../DesignText.js"
import * as Output from "../Output.js"
import { messageLines } from "../SearchOptions.js"

/** Runs `get` (`commands/get.ts`). */
export const handle = (args: GetCommand) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const { data, messages } = yield* client.getDesign(args.designNumber)
    for (const line of messageLines(messages)) yield* Output.stderr(line)
    yield* args.json
      ? Effect.flatMap(designJson(data), Output.data)
      : Output.stdout(designLines(Schema.encodeSync(Designs.Design)(data)).join("\n"))
  }).pipe(provideClient(args.env))
