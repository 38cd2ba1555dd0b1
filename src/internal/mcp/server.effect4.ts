/**
 * The MCP toolkit on `effect/ai`'s `McpServer`, Effect 4's side: the same exports as
 * `server.effect3.ts`. Tools carry their output schemas and the server its instructions itself.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { McpProtocol, McpSchema, McpServer } from "effect/ai"
import type { Stdio } from "effect/Stdio"
import { jsonSchema } from "./schemas.effect4.js"
import type { Answer, Spec } from "./tools.js"

export { McpServer } from "effect/ai/McpServer"

const result = (answer: Answer) =>
  new McpSchema.CallToolResult({
    isError: answer.isError,
    content: [{ type: "text", text: answer.text }],
    structuredContent: answer.structured
  })

/** Adds `specs` to the ambient `McpServer`, answering in the context they are added in. */
export const addTools = <R>(specs: ReadonlyArray<Spec<R>>) =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const context = yield* Effect.context<R>()
    for (const spec of specs) {
      const tool = new McpSchema.Tool({
        name: spec.name,
        description: spec.description,
        inputSchema: jsonSchema(spec.parameters) as McpSchema.Tool["inputSchema"],
        outputSchema: jsonSchema(spec.output),
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: !spec.name.startsWith("mirror_")
        }
      })
      yield* server.addTool({
        tool,
        annotations: Context.empty(),
        handle: (args) => Effect.map(Effect.provide(spec.run(args), context), result)
      })
    }
  })

/** Adds a resource (`uri`) or, with `{number}` in `uri`, a template, read by `content` in this context. */
export const addResource = <E, R>(
  uri: string,
  about: { readonly name: string; readonly description: string; readonly mimeType: string },
  content: (number: string) => Effect.Effect<string, E, R>
) =>
  Effect.flatMap(Effect.context<R>(), (context) =>
    uri.includes("{number}")
      ? McpServer.registerResource`design://${McpSchema.param("number", Schema.String)}`({
        ...about,
        content: (_, number) => Effect.provide(content(number), context)
      })
      : McpServer.registerResource({ uri, ...about, content: Effect.provide(content(""), context) }))

/** Options of `layerStdio`. */
export interface StdioOptions {
  readonly name: string
  readonly version: string
  readonly instructions: string
}

/** An `McpServer` on the ambient `Stdio` (NDJSON-RPC), for protocol versions 2024-11-05 to 2025-11-25. */
export const layerStdio = (options: StdioOptions): Layer.Layer<McpServer.McpServer, never, Stdio> =>
  Layer.orDie(McpServer.layerStdio({
    ...options,
    protocols: [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26, McpProtocol.v2024_11_05]
  }))
