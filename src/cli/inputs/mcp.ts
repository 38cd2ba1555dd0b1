/** The `mcp` command, declared (`CommandLine.ts`): the MCP server on stdio, with a mirror if given. */
import type { Input } from "../CommandLine.js"
import { optional, text } from "../CommandLine.js"
import { service } from "../Inputs.js"

const db =
  "a mirror to serve read-only (mirror_query, mirror_changes): a SQLite file, or a libsql:// or postgres:// URL"

export const mcp = {
  name: "mcp",
  summary: "serve the register to agents over MCP on stdio: search_designs and get_design, and with --db the mirror",
  fields: { db: optional("db", text, "PATH_OR_URL", db), env: service.env, noTokenCache: service.noTokenCache },
  examples: ["mcp", "mcp --db designs.db", "mcp --env production --db postgres://localhost/designs"]
}
export type McpInput = Input<typeof mcp.fields>
