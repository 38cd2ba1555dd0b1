/**
 * The register for agents: an MCP toolkit on the Effect line's own `McpServer` (`@effect/ai`'s in
 * Effect 3, `effect/ai`'s in Effect 4). `layer` adds `search_designs`, `get_design` and the resource
 * template `design://{number}`, through the ambient `DesignSearchClient` (its token, budget and
 * retries); `layerMirror` adds `mirror_query`, `mirror_changes` and `design-mirror://schema` over a
 * mirror's `SqlClient`, which they only read. A failure is a result with `isError` and one line,
 * never a protocol error. Import it by its own path (`@effect/ai` is an optional peer). See docs/mcp.md.
 *
 * @since 0.5.0
 */
import { McpSchema, McpServer, toolOf } from "#edition/internal/mcp/server"
import type { SqlClient } from "#edition/internal/mirror/engines"
import { Effect, Layer, Schema } from "effect"
import type { DesignSearchClient } from "./DesignSearchClient.js"
import { mirrorTools, schemaText } from "./internal/mcp/mirror.js"
import type { MirrorOptions as Mirror } from "./internal/mcp/mirror.js"
import { clientTools, record } from "./internal/mcp/tools.js"
import type { Explain, Spec } from "./internal/mcp/tools.js"

export {
  /**
   * The MCP server alone on stdio, with `instructions`: in Effect 3 over the `stdin` and `stdout`
   * given (`NodeStream.stdin`, `NodeSink.stdout`), in Effect 4 over the ambient `Stdio`. No log goes
   * to stdout, which is the protocol's.
   *
   * @since 0.5.0
   * @category layers
   */
  layerStdio
} from "#edition/internal/mcp/server"

export type {
  /**
   * Options of `layerStdio`: the server's name, version and instructions (see `instructions`).
   *
   * @since 0.5.0
   * @category options
   */
  StdioOptions
} from "#edition/internal/mcp/server"

/**
 * Options of `layer`: `explain` tells a failure in one line for an `isError` result (default its
 * `message`, which names what failed and holds no secret); the CLI tells it in its own words.
 *
 * @since 0.5.0
 * @category options
 */
export interface Options {
  readonly explain?: Explain | undefined
}

/**
 * Options of `layerMirror`: the mirror's PostgreSQL `schema` (default `design_search`) and how long
 * one query may run there (`statementTimeoutMillis`, default 5000).
 *
 * @since 0.5.0
 * @category options
 */
export interface MirrorOptions extends Options, Mirror {}

/**
 * The server's instructions: which data it serves (the sandbox's simulated designs, or the
 * service's), and with `mirror` how to read the mirror.
 *
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

const addTools = <R>(specs: ReadonlyArray<Spec<R>>) =>
  Effect.gen(function*() {
    const [server, context] = [yield* McpServer.McpServer, yield* Effect.context<R>()]
    for (const spec of specs) {
      yield* server.addTool({
        ...toolOf(spec),
        handle: (args) =>
          Effect.map(Effect.provide(spec.run(args), context), ({ isError, structured, text }) =>
            new McpSchema.CallToolResult({ isError, content: [{ type: "text", text }], structuredContent: structured }))
      })
    }
  })

const addResource = <E, R>(
  uri: string,
  description: string,
  content: (number: string) => Effect.Effect<string, E, R>
) =>
  Effect.flatMap(Effect.context<R>(), (context) => {
    const about = {
      name: uri.split(":")[0]!,
      description,
      mimeType: uri.includes("{") ? "application/json" : "text/plain"
    }
    return uri.includes("{number}")
      ? McpServer.registerResource`design://${McpSchema.param("number", Schema.String)}`({
        ...about,
        content: (_, number) => Effect.provide(content(number), context)
      })
      : McpServer.registerResource({ ...about, uri, content: Effect.provide(content(""), context) })
  })

/**
 * Adds `search_designs`, `get_design` and `design://{number}` to the ambient `McpServer`, over the
 * ambient `DesignSearchClient`.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, McpServer.McpServer | DesignSearchClient> =>
  Layer.effectDiscard(Effect.andThen(
    addTools(clientTools(options.explain ?? ((e) => e.message))),
    addResource("design://{number}", "A design's whole record, as JSON", record)
  ))

/**
 * Adds `mirror_query`, `mirror_changes` and `design-mirror://schema` to the ambient `McpServer`, over
 * the ambient `SqlClient` of a mirror, which they only read (give it a read-only connection:
 * `DesignMirror.layerSqlite({ url, readOnly: true })`, or `layerPostgres`).
 *
 * @since 0.5.0
 * @category layers
 */
export const layerMirror = (
  options: MirrorOptions = {}
): Layer.Layer<never, never, McpServer.McpServer | SqlClient.SqlClient> =>
  Layer.effectDiscard(Effect.andThen(
    addTools(mirrorTools(options.explain ?? ((e) => e.message), options)),
    addResource("design-mirror://schema", "The mirror's tables and columns, with example queries", () =>
      schemaText(options))
  ))
