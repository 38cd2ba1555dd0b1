/**
 * A line a client sends an MCP server on stdio, screened before the server reads it: a line that
 * is no JSON-RPC request it can answer (not JSON, an id that is not a whole number, a method MCP
 * has not) is answered here with the JSON-RPC error it calls for, and never reaches it, so that no
 * line can stop it or leave a request unanswered. A `tools/call` without `arguments` gets `{}`.
 */

import { isRecord, parseJson } from "../wire/answers.js"

/** The methods of MCP a server of tools and resources answers, and its notifications. */
const methods = new Set([
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "completion/complete",
  "logging/setLevel"
])

const error = (id: unknown, code: number, message: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: typeof id === "string" || typeof id === "number" ? id : null,
    error: { code, message }
  })

/** What to do with a line: hand `forward` to the server, or send `reply` (if any) back. */
export const screen = (line: string): { readonly forward: string } | { readonly reply: string | undefined } => {
  if (line.trim() === "") return { reply: undefined }
  const message = parseJson(line)?.json
  if (!isRecord(message)) return { reply: error(null, -32700, "parse error: each line is one JSON-RPC object") }
  const { id, method, params } = message
  const notification = !("id" in message)
  if (typeof method !== "string") {
    // an answer to a request of the server's own (it sends none but pings), or nothing it can read
    return "result" in message || "error" in message ? { forward: line } : { reply: error(id, -32600, "no method") }
  }
  if (notification) return method.startsWith("notifications/") ? { forward: line } : { reply: undefined }
  if (!Number.isSafeInteger(id) || (id as number) < 0) {
    return { reply: error(id, -32600, "this server takes ids that are whole numbers, from 0") }
  }
  if (!methods.has(method)) return { reply: error(id, -32601, `no method ${method}`) }
  if (params !== undefined && !isRecord(params)) return { reply: error(id, -32602, "params must be an object") }
  if (method !== "tools/call" || isRecord(params?.["arguments"])) return { forward: line }
  if (params?.["arguments"] !== undefined && params["arguments"] !== null) {
    return { reply: error(id, -32602, "arguments must be an object") }
  }
  return { forward: JSON.stringify({ ...message, params: { ...params, arguments: {} } }) }
}
