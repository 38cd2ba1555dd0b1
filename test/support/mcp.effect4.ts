/** The MCP tests' client, Effect 4's side: `effect/ai`'s own test client, `McpTest`, over JSON-RPC in memory. */
import { Effect } from "effect"
import type { Layer, Scope } from "effect"
import { McpProtocol, McpTest } from "effect/ai"
import type { McpServer } from "effect/ai"

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
  readonly json: string
}

/** A client of a server with `registrations`, for the scope. */
export const connect = <E, R>(
  registrations: Layer.Layer<never, E, R>
): Effect.Effect<McpClient, E, Scope.Scope | Exclude<R, McpServer.McpServer>> =>
  Effect.map(
    Effect.orDie(McpTest.makeClient(registrations, { protocols: [McpProtocol.v2025_11_25] })),
    (mcp): McpClient =>
      ({
        tools: Effect.map(Effect.orDie(mcp.listTools()), (r) => r.tools),
        call: (name, args) =>
          Effect.map(Effect.orDie(mcp.callTool({ name, arguments: args as Record<string, unknown> })), (r) => ({
            isError: r.isError === true,
            text: r.content.map((c) => c.type === "text" ? c.text : "").join(""),
            structuredContent: r.structuredContent,
            json: JSON.stringify({ content: r.content, structuredContent: r.structuredContent, isError: r.isError })
          })),
        read: (uri) =>
          Effect.map(
            Effect.orDie(mcp.readResource({ uri })),
            (r) => r.contents.map((c) => "text" in c ? c.text : "").join("")
          )
      }) as McpClient
  ) as Effect.Effect<McpClient, E, Scope.Scope | Exclude<R, McpServer.McpServer>>
