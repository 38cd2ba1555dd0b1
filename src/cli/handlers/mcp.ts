/**
 * `design-search mcp`: `DesignSearchMcp` on stdio, the client of the command's environment (the
 * embedded sandbox without `IPAUSTRALIA_*`, said in the instructions) and with `--db` the mirror,
 * read-only. Stdout is the protocol's: notices go to stderr. It ends when its client closes stdin.
 */
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Function, Layer, Option, Stream } from "effect"
import * as fs from "node:fs"
import { screen } from "../../core/mcp/requests.js"
import { MirrorDatabaseError } from "../../DesignMirror.js"
import * as DesignSearchMcp from "../../DesignSearchMcp.js"
import { provideClient } from "../Client.js"
import { target } from "../Environment.js"
import { render } from "../failure.js"
import type { Failure } from "../failure.js"
import type { McpInput } from "../inputs/mcp.js"
import * as Output from "../Output.js"
import { databaseOf } from "./sync.js"

declare const DESIGN_SEARCH_VERSION: string

/** A failure in the CLI's words, on one line. */
const explain = (failure: { readonly _tag: string; readonly message: string }) =>
  render(failure as Failure).map((line) => line.replace(/^design-search: /, "")).join("; ")

const encoder = new TextEncoder()

/** Stdin's lines as the server may read them; what no server can answer is answered here (`screen`). */
const screened = NodeStream.stdin.pipe(
  Stream.decodeText(),
  Stream.splitLines,
  Stream.mapEffect((line) => {
    const seen = screen(line)
    if ("forward" in seen) return Effect.succeed(Option.some(encoder.encode(`${seen.forward}\n`)))
    return Effect.as(seen.reply === undefined ? Effect.void : Output.jsonText(seen.reply), Option.none())
  }),
  Stream.filterMap(Function.identity)
)

const stdinEnds = Effect.async<void>((resume) => {
  const end = () => resume(Effect.void)
  process.stdin.once("end", end)
  return Effect.sync(() => process.stdin.off("end", end))
})

export const handle = (args: McpInput) =>
  Effect.gen(function*() {
    const to = yield* target(args.env)
    const database = Option.isSome(args.db) ? yield* databaseOf(args.db.value, "read") : undefined
    if (database?.file !== undefined && !fs.existsSync(database.file)) {
      return yield* new MirrorDatabaseError({ detail: `not a mirror: ${database.label} does not exist` })
    }
    // The mirror opened first: one that cannot be is told before the server starts.
    const mirror = database && DesignSearchMcp.layerMirror({ explain }).pipe(
      Layer.provide(Layer.succeedContext(yield* Layer.build(database.layer)))
    )
    const server = DesignSearchMcp.layerStdio({
      name: "design-search",
      version: typeof DESIGN_SEARCH_VERSION === "string" ? DESIGN_SEARCH_VERSION : "0.0.0",
      instructions: DesignSearchMcp.instructions({ simulated: to._tag === "sandbox", mirror: database !== undefined }),
      stdin: screened,
      stdout: NodeSink.stdout
    })
    const tools = Layer.merge(DesignSearchMcp.layer({ explain }), mirror ?? Layer.empty)
    yield* Effect.raceFirst(Layer.launch(tools.pipe(Layer.provide(server))), stdinEnds)
  }).pipe(Effect.scoped, provideClient({ env: args.env, noTokenCache: args.noTokenCache, quiet: false }))
