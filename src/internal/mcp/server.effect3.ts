/**
 * The MCP toolkit's words for `@effect/ai`'s `McpServer`, Effect 3's side (`server.effect4.ts` has the
 * same exports). `@effect/ai` 0.37's schemas have no tool `outputSchema` and no server `instructions`:
 * on stdio both are added to the answers of `tools/list` and `initialize` as they are sent.
 */
import { McpSchema, McpServer } from "@effect/ai"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, JSONSchema, Layer, Logger, Schema } from "effect"
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
/** The output schema of each tool made, for `tools/list`. */
const outputs = new WeakMap<McpSchema.Tool, Record<string, unknown>>()

/** A spec as an MCP tool, read-only, and what `addTool` takes beside it. */
export const toolOf = (
  spec: {
    readonly name: string
    readonly description: string
    readonly parameters: AnySchema
    readonly output: AnySchema
  }
) => {
  const tool = new McpSchema.Tool({
    name: spec.name,
    description: spec.description,
    inputSchema: jsonSchema(spec.parameters),
    annotations: new McpSchema.ToolAnnotations({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: !spec.name.startsWith("mirror_")
    })
  })
  outputs.set(tool, jsonSchema(spec.output))
  return { tool }
}

type Message = {
  readonly _tag: string
  readonly id?: string
  readonly tag?: string
  readonly requestId?: string
  readonly exit?: { readonly _tag: string; readonly value?: Record<string, unknown> }
}

/** `protocol`, whose answers to `initialize` and `tools/list` get the instructions and output schemas. */
const completed = (protocol: RpcServer.Protocol["Type"], server: McpServer.McpServer["Type"], instructions: string) => {
  const asked = new Map<string, string>()
  // The request of id 0 is read with the id "", and answered with "0".
  const key = (clientId: number, id: string | undefined) => `${clientId}:${id === "" ? "0" : id}`
  return RpcServer.Protocol.of({
    ...protocol,
    run: (f) =>
      protocol.run((clientId, request) => {
        const m = request as Message
        if (m.tag === "initialize" || m.tag === "tools/list") asked.set(key(clientId, m.id), m.tag)
        return f(clientId, request)
      }),
    send: (clientId, response, transferables) => {
      const m = response as Message
      const tag = m._tag === "Exit" ? asked.get(key(clientId, m.requestId)) : undefined
      const value = m.exit?._tag === "Success" ? m.exit.value : undefined
      if (tag === undefined || value === undefined) return protocol.send(clientId, response, transferables)
      asked.delete(key(clientId, m.requestId))
      const tools = (value["tools"] ?? []) as ReadonlyArray<{ readonly name: string }>
      const withOutput = (t: { readonly name: string }) => {
        const made = server.tools.find((s) => s.name === t.name)
        return { ...t, ...(made && outputs.has(made) ? { outputSchema: outputs.get(made) } : {}) }
      }
      const done = tag === "initialize" ? { ...value, instructions } : { ...value, tools: tools.map(withOutput) }
      return protocol.send(clientId, { ...m, exit: { ...m.exit, value: done } } as typeof response, transferables)
    }
  })
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
  Layer.scopedDiscard(Effect.gen(function*() {
    const protocol = completed(yield* RpcServer.Protocol, yield* McpServer.McpServer, options.instructions)
    yield* Effect.forkScoped(Effect.provideService(McpServer.run(options), RpcServer.Protocol, protocol))
  })).pipe(
    Layer.provideMerge(McpServer.McpServer.layer),
    Layer.provide(RpcServer.layerProtocolStdio(options)),
    Layer.provide(RpcSerialization.layerNdJsonRpc()),
    Layer.provideMerge(Logger.remove(Logger.defaultLogger)),
    Layer.provideMerge(Logger.remove(Logger.prettyLoggerDefault))
  )
