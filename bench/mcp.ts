/**
 * The MCP server (`design-search mcp`, on the embedded sandbox), over stdio as a client speaks to it:
 * `mcpStartRatio`, the wall time from spawning it to its answers to `initialize` and `tools/list`
 * over `node -e 0`'s (medians of `rounds`, alternately, after one unmeasured run of each); and the
 * bytes of answers, text and structured content together (the JSON-RPC `result`):
 * `mcpSearchAnswerBytes20`, `search_designs` of 20 hits, and `mcpDesignAnswerBytes`, the largest
 * `get_design` of those 20. Run after `npm run build`.
 */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { cliEnv } from "./cliStart.js"
import { median, round } from "./stats.js"

const cliPath = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url))

/** A server on stdio; `ask` sends a request and resolves its answer's `result` as sent. */
const serve = (env: NodeJS.ProcessEnv) => {
  const child = spawn(process.execPath, [cliPath, "mcp"], { env, stdio: ["pipe", "pipe", "ignore"] })
  const waiting = new Map<number, (line: string) => void>()
  let buffered = ""
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString()
    let end: number
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      const { id } = JSON.parse(line) as { id?: number }
      if (id !== undefined) waiting.get(id)?.(line)
    }
  })
  let next = 0
  const send = (message: object) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n")
  const ask = (method: string, params: object) =>
    new Promise<string>((resolve) => {
      const id = next++
      waiting.set(id, (line) => resolve(JSON.stringify((JSON.parse(line) as { result: unknown }).result)))
      send({ id, method, params })
    })
  const start = async () => {
    await ask("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" }
    })
    send({ method: "notifications/initialized" })
    return ask("tools/list", {})
  }
  return { ask, start, stop: () => child.kill() }
}

export interface McpResult {
  readonly rounds: number
  readonly startMs: number
  readonly nodeMs: number
  readonly mcpStartRatio: number
  readonly mcpSearchAnswerBytes20: number
  readonly mcpDesignAnswerBytes: number
  readonly targets: { readonly start: number; readonly search: number; readonly design: number }
  readonly met: { readonly start: boolean; readonly search: boolean; readonly design: boolean }
}

export const run = async (options: { readonly rounds?: number } = {}): Promise<McpResult> => {
  const rounds = options.rounds ?? 10
  const cacheHome = mkdtempSync(join(tmpdir(), "design-search-bench-"))
  try {
    const env = cliEnv(cacheHome)
    const started = async () => {
      const from = performance.now()
      const server = serve(env)
      await server.start()
      const ms = performance.now() - from
      server.stop()
      return ms
    }
    const node = () => {
      const from = performance.now()
      spawnSync(process.execPath, ["-e", "0"], { env })
      return performance.now() - from
    }
    await started()
    node()
    const samples: Array<{ readonly mcp: number; readonly node: number }> = []
    for (let i = 0; i < rounds; i++) samples.push({ mcp: await started(), node: node() })
    const server = serve(env)
    await server.start()
    const search = await server.ask("tools/call", { name: "search_designs", arguments: { status: ["REGISTERED"] } })
    const hits =
      (JSON.parse(search) as { structuredContent: { hits: Array<{ number: string }> } }).structuredContent.hits
    if (hits.length !== 20) throw new Error(`search_designs answered ${hits.length} hits, not 20`)
    const designs = await Promise.all(
      hits.map((h) => server.ask("tools/call", { name: "get_design", arguments: { number: h.number } }))
    )
    server.stop()
    const [startMs, nodeMs] = [median(samples.map((s) => s.mcp)), median(samples.map((s) => s.node))]
    const mcpStartRatio = round(startMs / nodeMs, 2)
    const mcpSearchAnswerBytes20 = Buffer.byteLength(search)
    const mcpDesignAnswerBytes = Math.max(...designs.map((d) => Buffer.byteLength(d)))
    const targets = { start: 6, search: 6000, design: 3000 }
    return {
      rounds,
      startMs: round(startMs, 1),
      nodeMs: round(nodeMs, 1),
      mcpStartRatio,
      mcpSearchAnswerBytes20,
      mcpDesignAnswerBytes,
      targets,
      met: {
        start: mcpStartRatio <= targets.start,
        search: mcpSearchAnswerBytes20 <= targets.search,
        design: mcpDesignAnswerBytes <= targets.design
      }
    }
  } finally {
    rmSync(cacheHome, { recursive: true, force: true })
  }
}
