/**
 * The register for agents: an MCP toolkit on the Effect line's own `McpServer` (`@effect/ai`'s in
 * Effect 3, `effect/ai`'s in Effect 4). `layer` adds the tools `search_designs` and `get_design` and
 * the resource template `design://{number}`, which go through the ambient `DesignSearchClient` (its
 * token, budget and retries); `layerMirror` adds `mirror_query` and `mirror_changes` over a mirror's
 * `SqlClient`, read only, and the resource `design-mirror://schema`. A tool's failure is a result
 * with `isError` and one line, never a protocol error; answers are sized for a context window.
 * Mount them in an application's own MCP server, or serve them alone with `layerStdio`. Import this
 * module by its own path (`@effect/ai`, with `@effect/rpc`, is an optional peer in Effect 3). See docs/mcp.md.
 *
 * @since 0.5.0
 */
import type { SqlClient } from "#edition/internal/mirror/engines"
import { addResource, addTools } from "#edition/internal/mcp/server"
import type { McpServer } from "#edition/internal/mcp/server"
import { Effect, Layer } from "effect"
import type { DesignSearchClient } from "./DesignSearchClient.js"
import { mirrorTools, schemaText } from "./internal/mcp/mirror.js"
import type { MirrorOptions as Mirror } from "./internal/mcp/mirror.js"
import { clientTools, record } from "./internal/mcp/tools.js"
import type { Explain } from "./internal/mcp/tools.js"

export {
  /**
   * The MCP server on stdio, with `instructions`: in Effect 3 over the `stdin` and `stdout` given
   * (`NodeStream.stdin`, `NodeSink.stdout`), in Effect 4 over the ambient `Stdio`. No log goes to
   * stdout, which is the protocol's.
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
 * Options of `layer` and `layerMirror`.
 *
 * @since 0.5.0
 * @category options
 */
export interface Options {
  /**
   * A failure told in one line, for the text of an `isError` result (default its `message`, which
   * names what failed and never holds a secret); the CLI gives its own.
   */
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

const explainOf = (options: Options): Explain => options.explain ?? ((failure) => failure.message)

/**
 * The server's instructions to agents: which data it serves (the sandbox's simulated designs, or
 * the service's), and with `mirror` how to query the mirror.
 *
 * @since 0.5.0
 * @category constructors
 */
export const instructions = (options: { readonly simulated: boolean; readonly mirror: boolean }): string =>
  [
    options.simulated
      ? "Data: the EMBEDDED SANDBOX of IP Australia's design search, SIMULATED designs, not the real register. " +
        "Say so whenever you answer from it."
      : "Data: IP Australia's Design Search API, the register of Australian designs.",
    "search_designs finds designs (page with its cursor), get_design reads one (design://{number} is its whole record).",
    ...(options.mirror
      ? ["mirror_query runs read-only SQL over a local mirror (read design-mirror://schema first); mirror_changes " +
        "tells what its syncs changed."]
      : []),
    "A failed call answers isError with what failed and what to do: never read it as no results."
  ].join("\n")

/**
 * Adds `search_designs`, `get_design` and `design://{number}` to the ambient `McpServer`, over the
 * ambient `DesignSearchClient`.
 *
 * @since 0.5.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<never, never, McpServer | DesignSearchClient> =>
  Layer.effectDiscard(Effect.andThen(
    addTools(clientTools(explainOf(options))),
    addResource("design://{number}", {
      name: "design",
      description: "A design's whole record as JSON, as the service gives it",
      mimeType: "application/json"
    }, record)
  ))

/**
 * Adds `mirror_query`, `mirror_changes` and `design-mirror://schema` to the ambient `McpServer`,
 * over the ambient `SqlClient` of a mirror, which they only read (give it a read-only connection:
 * `DesignMirror.layerSqlite({ url, readOnly: true })`, or `layerPostgres`).
 *
 * @since 0.5.0
 * @category layers
 */
export const layerMirror = (options: MirrorOptions = {}): Layer.Layer<never, never, McpServer | SqlClient.SqlClient> =>
  Layer.effectDiscard(Effect.andThen(
    addTools(mirrorTools(explainOf(options), options)),
    addResource("design-mirror://schema", {
      name: "mirror schema",
      description: "The mirror's tables and columns, with example queries",
      mimeType: "text/plain"
    }, () => schemaText(options))
  ))
