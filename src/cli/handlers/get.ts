/** `design-search get`: one design on stdout, its server messages on stderr. */
import { Effect } from "effect"
import { DesignSearchClient } from "../../index.js"
import { provideClient } from "../Client.js"
import { designLines, encoded } from "../DesignText.js"
import type { GetInput } from "../Inputs.js"
import * as Output from "../Output.js"
import { messageLines } from "../Search.js"

export const handle = (args: GetInput) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const { data, messages } = yield* client.getDesign(args.designNumber)
    for (const line of messageLines(messages)) yield* Output.stderr(line)
    const design = encoded(data)
    yield* args.json ? Output.json(design) : Output.stdout(designLines(design).join("\n"))
  }).pipe(provideClient(args))
