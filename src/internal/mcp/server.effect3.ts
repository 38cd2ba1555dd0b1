/**
 * The MCP toolkit on `@effect/ai`'s `McpServer`, Effect 3's side (`server.effect4.ts` has the same
 * exports): tools added with their JSON Schemas, the design resource template, and the server on
 * stdio. `@effect/ai` 0.37's schemas have no tool `outputSchema` and no server `instructions`: on
 * stdio both are added to the answers of `tools/list` and `initialize` as they are sent.
 */
import { McpSchema, McpServer } from "@effect/ai"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Layer, Logger, Schema } from "effect"
import type { Sink, Stream } from "effect"
import { jsonSchema } from "./schemas.effect3.js"
import type { Answer, Spec } from "./tools.js"

export { McpServer } from "@effect/ai/McpServer"

/** The output schema of each tool added, for `tools/list`. */
const outputs = new WeakMap<McpSchema.Tool, Record<string, unknown>>()

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
        inputSchema: jsonSchema(spec.parameters),
        annotations: new McpSchema.ToolAnnotations({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: !spec.name.startsWith("mirror_")
        })
      })
      outputs.set(tool, jsonSchema(spec.output))
      yield* server.addTool({ tool, handle: (args) => Effect.map(Effect.provide(spec.run(args), context), result) })
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

/** A message of the protocol, read as what it may be. */
type Message = {
  readonly _tag: string
  readonly id?: string
  readonly tag?: string
  readonly requestId?: string
  readonly exit?: { readonly _tag: string; readonly value?: Record<string, unknown> }
}

/** `protocol`, whose answers to `initialize` and `tools/list` get `instructions` and output schemas. */
const completed = (protocol: RpcServer.Protocol["Type"], server: McpServer.McpServer["Type"], instructions: string) => {
  const asked = new Map<string, string>()
  // The request of id 0 is read with the id "", and answered with "0".
  const key = (clientId: number, id: string | undefined) => `${clientId}:${id === "" ? "0" : id}`
  return RpcServer.Protocol.of({
    ...protocol,
    run: (f) =>
      protocol.run((clientId, request) => {
        const m = request as Message
        if (m._tag === "Request" && (m.tag === "initialize" || m.tag === "tools/list")) {
          asked.set(key(clientId, m.id), m.tag)
        }
        return f(clientId, request)
      }),
    send: (clientId, response, transferables) => {
      const m = response as Message
      const tag = m._tag === "Exit" ? asked.get(key(clientId, m.requestId)) : undefined
      const value = m.exit?._tag === "Success" ? m.exit.value : undefined
      if (tag === undefined || value === undefined) return protocol.send(clientId, response, transferables)
      asked.delete(key(clientId, m.requestId))
      const added = tag === "initialize" ? { ...value, instructions } : {
        ...value,
        tools: (value["tools"] as ReadonlyArray<{ readonly name: string }>).map((t) => {
          const added = server.tools.find((s) => s.name === t.name)
          const outputSchema = added === undefined ? undefined : outputs.get(added)
          return outputSchema === undefined ? t : { ...t, outputSchema }
        })
      }
      return protocol.send(clientId, { ...m, exit: { ...m.exit, value: added } } as typeof response, transferables)
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
    const server = yield* McpServer.McpServer
    const protocol = completed(yield* RpcServer.Protocol, server, options.instructions)
    yield* Effect.forkScoped(
      Effect.provideService(McpServer.run(options), RpcServer.Protocol, protocol)
    )
  })).pipe(
    Layer.provideMerge(McpServer.McpServer.layer),
    Layer.provide(RpcServer.layerProtocolStdio({ stdin: options.stdin, stdout: options.stdout })),
    Layer.provide(RpcSerialization.layerNdJsonRpc()),
    Layer.provideMerge(Logger.remove(Logger.defaultLogger)),
    Layer.provideMerge(Logger.remove(Logger.prettyLoggerDefault))
  )
