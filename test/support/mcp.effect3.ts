/**
 * The MCP tests' client, Effect 3's side (`mcp.effect4.ts` has the same exports): `@effect/ai` 0.37
 * has no test client, so the tests call the `McpServer` service the registrations built.
 */
import { McpSchema, McpServer } from "@effect/ai"
import { Context, Effect, Layer } from "effect"
import type { Scope } from "effect"

/** A tool as listed, a call's result, and a resource's text. */
export interface McpClient {
  readonly tools: Effect.Effect<ReadonlyArray<Listed>>
  readonly call: (name: string, args: object) => Effect.Effect<Called>
  readonly read: (uri: string) => Effect.Effect<string>
}
export interface Listed {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
  readonly outputSchema?: unknown
  readonly annotations?: { readonly readOnlyHint?: boolean | undefined } | undefined
}
export interface Called {
  readonly isError: boolean
  readonly text: string
  readonly structuredContent?: unknown
  /** The result as JSON, as it goes on the wire. */
  readonly json: string
}

const client = McpSchema.McpServerClient.of({ clientId: 0, getClient: Effect.die("no client in tests") })

/** A client of a server with `registrations`, for the scope. */
export const connect = <E, R>(
  registrations: Layer.Layer<never, E, R>
): Effect.Effect<McpClient, E, Scope.Scope | Exclude<R, McpServer.McpServer | McpSchema.McpServerClient>> =>
  Effect.map(
    Layer.build(registrations.pipe(Layer.provideMerge(McpServer.McpServer.layer))),
    (context): McpClient => {
      const server = Context.get(context, McpServer.McpServer)
      return {
        tools: Effect.sync(() => server.tools),
        call: (name, args) =>
          server.callTool({ name, arguments: args as Record<string, unknown> }).pipe(
            Effect.provideService(McpSchema.McpServerClient, client),
            Effect.orDie,
            Effect.map((r) => ({
              isError: r.isError === true,
              text: r.content.map((c) => c.type === "text" ? c.text : "").join(""),
              structuredContent: r.structuredContent,
              json: JSON.stringify({ content: r.content, structuredContent: r.structuredContent, isError: r.isError })
            }))
          ),
        read: (uri) =>
          server.findResource(uri).pipe(
            Effect.provideService(McpSchema.McpServerClient, client),
            Effect.orDie,
            Effect.map((r) => r.contents.map((c) => "text" in c ? c.text : "").join(""))
          )
      }
    }
  )
