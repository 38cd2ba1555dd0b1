/**
 * A minimal loopback server for the throughput benchmarks: a token endpoint and a quick search that
 * answers a fixed body, so the client's cost dominates. Run as its own process; prints its port.
 */
import { createServer } from "node:http"

const token = JSON.stringify({ access_token: "bench.token.value", expires_in: 3600, token_type: "Bearer" })
const result = JSON.stringify({ count: 3, designNumbers: ["201900001", "202000002", "202300001"] })

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const body = request.url?.endsWith("/access_token") ? token : result
    const status =
      request.url?.endsWith("/access_token") || request.headers.authorization === "Bearer bench.token.value" ? 200 : 401
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    response.end(body)
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`${typeof address === "object" && address !== null ? address.port : 0}\n`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
process.on("disconnect", () => process.exit(0))
