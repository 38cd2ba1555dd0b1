/**
 * The register for agents: MCP tools on the Effect line's own `McpServer` (`@effect/ai`'s in Effect 3,
 * `effect/ai`'s in Effect 4). A failure is a result with `isError` and one line, never a protocol error.
 * Import it by its own path (`@effect/ai` is an optional peer). See docs/mcp.md.
 * @since 0.5.0
 */
import { McpSchema, McpServer, toolOf } from "#edition/internal/mcp/server"
import type { SqlClient } from "#edition/internal/mirror/engines"
import { Effect, Layer, Schema } from "effect"
import type { Context } from "effect"
import type { DesignSearchClient } from "./DesignSearchClient.js"
import { mirrorTools, schemaText } from "./internal/mcp/mirror.js"
import type { MirrorOptions as Mirror } from "./internal/mcp/mirror.js"
import { clientTools, record } from "./internal/mcp/tools.js"
import type { Explain, Spec } from "./internal/mcp/tools.js"

export {
  /**
   * The MCP server alone on stdio, with `instructions`: in Effect 3 over the `stdin` and `stdout` given, in
   * Effect 4 over the ambient `Stdio`. No log goes to stdout, which is the protocol's.
   * @since 0.5.0
   * @category layers
   */
  layerStdio,
  /**
   * Options of `layerStdio`: the server's name, version and instructions (see `instructions`).
   * @since 0.5.0
   * @category options
   */
  type StdioOptions
} from "#edition/internal/mcp/server"

/**
 * Options of `layer`: `explain` tells a failure in one line (default its `message`, which holds no secret).
 * @since 0.5.0
 * @category options
 */
export interface Options {
  readonly explain?: Explain | undefined
}

/**
 * Options of `layerMirror`: the mirror's PostgreSQL `schema` (default `design_search`) and how long one query
 * may run there (`statementTimeoutMillis`, default 5000).
 * @since 0.5.0
 * @category options
 */
export interface MirrorOptions extends Options, Mirror {}

/**
 * The server's instructions: which data it serves (simulated or the service's), with `mirror` how to read it.
 * @since 0.5.0
 * @category constructors
 */
export const instructions = (options: { readonly simulated: boolean; readonly mirror: boolean }): string =>
  [
    options.simulated
      ? "Data: the EMBEDDED SANDBOX of IP Australia's design search, SIMULATED designs, not the real register. Say so."
      : "Data: IP Australia's Design Search API, the register of Australian designs.",
    "search_designs finds designs (page with its cursor); get_design reads one; design://{number} is its record.",
    ...(options.mirror ? ["mirror_query runs read-only SQL over a mirror (read design-mirror://schema first)."] : []),
    "A failed call answers isError with what failed and what to do: never read it as no results."
  ].join("\n")

type Added = Effect.Effect<void, never, McpServer.McpServer>
/** Adds `specs` and the resource `resource` registers, both over the context, to the ambient `McpServer`. */
const tools = <R>(specs: ReadonlyArray<Spec<R>>, options: Options, resource: (context: Context.Context<R>) => Added) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const [server, context] = [yield* McpServer.McpServer, yield* Effect.context<R>()]
    for (const spec of specs) {
      const run = (args: unknown) => spec.run(args, options.explain ?? ((e) => e.message))
      yield* server.addTool({ ...toolOf(spec), handle: (args) => Effect.provide(run(args), context) })
    }
    yield* resource(context)
  }))

/**
 * Adds `search_designs`, `get_design` and `design://{number}` to the ambient `McpServer`, over the ambient
 * `DesignSearchClient` (its token, budget and retries).
 * @since 0.5.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, McpServer.McpServer | DesignSearchClient> =>
  tools(
    clientTools,
    options,
    (context) =>
      McpServer.registerResource`design://${McpSchema.param("number", Schema.String)}`({
        name: "design",
        description: "A design's whole record, as JSON",
        mimeType: "application/json",
        content: (_, number) => Effect.provide(record(number), context)
      })
  )

/**
 * Adds `mirror_query`, `mirror_changes`, `watch_report` and `design-mirror://schema` to the ambient `McpServer`, over the
 * ambient `SqlClient` of a mirror, which they only read (`DesignMirror.layerSqlite({ url, readOnly: true })`).
 * @since 0.5.0
 * @category layers
 */
export const layerMirror = (
  options: MirrorOptions = {}
): Layer.Layer<never, never, McpServer.McpServer | SqlClient.SqlClient> =>
  tools(mirrorTools(options), options, (context) =>
    McpServer.registerResource({
      uri: "design-mirror://schema",
      name: "design-mirror",
      description: "The mirror's tables and columns, with example queries",
      mimeType: "text/plain",
      content: Effect.provide(schemaText(options), context)
    }))
