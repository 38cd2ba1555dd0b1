/**
 * A loopback server that answers fixed bodies, so that a client's own cost dominates: a token, and
 * one design for any `GET /design/{n}`. Run as its own process (bench/throughput.ts starts it); it
 * prints its port.
 */
import { createServer } from "node:http"

const bearer = "bench.token.value"
const token = JSON.stringify({ access_token: bearer, expires_in: 3600, token_type: "Bearer" })
const design = JSON.stringify({
  number: "201900001",
  title: "Chair",
  productNames: ["chair"],
  status: "REGISTERED",
  classifications: [{ code: "06-01", title: "Seats" }],
  owners: [{ name: "Wattle Furniture Pty Ltd" }],
  designers: [{ name: "Olivia Chen" }],
  filingDate: "2019-03-14",
  registrationDate: "2019-06-02",
  expiryDate: "2029-03-14",
  lastChanged: "2019-06-02",
  statementOfNewness: "Newness and distinctiveness is claimed in the shape and configuration of the chair."
})

const server = createServer((request, response) => {
  request.resume().on("end", () => {
    const isToken = request.url?.endsWith("/access_token") === true
    const status = isToken || request.headers.authorization === `Bearer ${bearer}` ? 200 : 401
    const body = isToken ? token : design
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
