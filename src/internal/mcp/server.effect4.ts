/**
 * The MCP toolkit's words for `effect/ai`'s `McpServer`, Effect 4's side (the same exports as
 * `server.effect3.ts`): schemas' descriptions and JSON Schemas, an MCP tool of a spec, and stdio.
 */
import { Context, Layer, Schema } from "effect"
import { McpProtocol, McpSchema, McpServer } from "effect/ai"
import type { Stdio } from "effect/Stdio"

export { McpSchema, McpServer }

/** Any schema of a tool's arguments or answer. */
export type AnySchema = Schema.Codec<unknown, unknown, never, never>
/** `schema`, described for an agent. */
export const describeAs = <S extends Schema.Top>(schema: S, description: string) =>
  schema.annotate({ description }) as S
/** A whole number from `min` to `max`. */
export const intBetween = (min: number, max: number) =>
  Schema.Int.check(
    Schema.isBetween({ minimum: min, maximum: max }, { message: `expected a whole number from ${min} to ${max}` })
  )

const jsonSchema = (schema: AnySchema): Record<string, unknown> => {
  const { definitions, schema: root } = Schema.toJsonSchemaDocument(schema)
  return Object.keys(definitions).length === 0 ? { ...root } : { ...root, $defs: definitions }
}
const hints = (name: string) => ({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: !name.startsWith("mirror_")
})

/** A spec as an MCP tool, read-only, and what `addTool` takes beside it. */
export const toolOf = (spec: { name: string; description: string; parameters: AnySchema; output: AnySchema }) => ({
  annotations: Context.empty(),
  tool: new McpSchema.Tool({
    name: spec.name,
    description: spec.description,
    inputSchema: jsonSchema(spec.parameters) as McpSchema.Tool["inputSchema"],
    outputSchema: jsonSchema(spec.output),
    annotations: hints(spec.name)
  })
})

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
