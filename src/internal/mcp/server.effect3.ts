/**
 * The MCP toolkit's words for `@effect/ai`'s `McpServer`, Effect 3's side (`server.effect4.ts` has the
 * same exports). `@effect/ai` 0.37's schemas have no tool `outputSchema` and no server `instructions`:
 * on stdio both are added to the answers of `tools/list` and `initialize` as they are encoded.
 */
import { McpSchema, McpServer } from "@effect/ai"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { JSONSchema, Layer, Logger, Schema } from "effect"
import type { Sink, Stream } from "effect"

export { McpSchema, McpServer }

/** Any schema of a tool's arguments or answer. */
export type AnySchema = Schema.Schema.AnyNoContext
/** `schema`, described for an agent. */
export const describeAs = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  schema.annotations({ description }) as S
/** A whole number from `min` to `max`. */
export const intBetween = (min: number, max: number) =>
  Schema.Int.pipe(Schema.between(min, max)).annotations({
    message: () => `expected a whole number from ${min} to ${max}`
  })

const jsonSchema = (schema: AnySchema) => {
  const { $schema: _, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return rest
}
/** The output schema of each tool made, by name, for `tools/list`. */
const outputs = new Map<string, Record<string, unknown>>()

const hints = (name: string) => ({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: !name.startsWith("mirror_")
})

/** A spec as an MCP tool, read-only, and what `addTool` takes beside it. */
export const toolOf = (spec: { name: string; description: string; parameters: AnySchema; output: AnySchema }) => {
  outputs.set(spec.name, jsonSchema(spec.output))
  const [inputSchema, annotations] = [jsonSchema(spec.parameters), new McpSchema.ToolAnnotations(hints(spec.name))]
  return { tool: new McpSchema.Tool({ name: spec.name, description: spec.description, inputSchema, annotations }) }
}

type Value = Record<string, unknown> & { readonly tools?: ReadonlyArray<{ readonly name: string }> | undefined }
type Message = { readonly _tag: string; readonly exit?: { readonly _tag: string; readonly value?: Value } }

/** `m`, an answer to `initialize` (with `serverInfo`) or `tools/list`, with the instructions or output schemas. */
const completed = (m: Message, instructions: string): unknown => {
  const value = m._tag === "Exit" && m.exit?._tag === "Success" ? m.exit.value : undefined
  if (value === undefined || !("serverInfo" in value || Array.isArray(value.tools))) return m
  const tools = value.tools?.map((t) => outputs.has(t.name) ? { ...t, outputSchema: outputs.get(t.name) } : t)
  return { ...m, exit: { ...m.exit, value: "serverInfo" in value ? { ...value, instructions } : { ...value, tools } } }
}

/** Options of `layerStdio`. */
export interface StdioOptions<EIn, RIn, EOut, ROut> {
  readonly name: string
  readonly version: string
  readonly instructions: string
  readonly stdin: Stream.Stream<Uint8Array, EIn, RIn>
  readonly stdout: Sink.Sink<unknown, Uint8Array | string, unknown, EOut, ROut>
}

/** An `McpServer` on `stdin` and `stdout` (NDJSON-RPC), no log written to stdout. */
export const layerStdio = <EIn, RIn, EOut, ROut>(
  options: StdioOptions<EIn, RIn, EOut, ROut>
): Layer.Layer<McpServer.McpServer | McpSchema.McpServerClient, never, RIn | ROut> =>
  McpServer.layer(options).pipe(
    Layer.provide(RpcServer.layerProtocolStdio(options)),
    Layer.provide(Layer.succeed(RpcSerialization.RpcSerialization, {
      ...RpcSerialization.ndJsonRpc(),
      unsafeMake: () => {
        const parser = RpcSerialization.ndJsonRpc().unsafeMake()
        return { ...parser, encode: (m) => parser.encode(completed(m as Message, options.instructions)) }
      }
    })),
    Layer.provideMerge(Logger.remove(Logger.defaultLogger)),
    Layer.provideMerge(Logger.remove(Logger.prettyLoggerDefault))
  )
