/** A server of a test's own on a free loopback port, closed with the scope; a raw exchange with a server. */
import { Effect } from "effect"
import type { Scope } from "effect"
import { connect, type Server } from "node:net"

/** Listens with `server` on 127.0.0.1 at a free port and answers the port; closes it with the scope. */
export const listening = (server: Server): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<number>((resolve) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resolve(typeof address === "object" && address !== null ? address.port : 0)
        })
      })
    ),
    () => Effect.promise(() => new Promise<void>((resolve) => void server.close(() => resolve())))
  )

/** Sends `text` as written on a socket of its own to `port`, and answers all the server wrote until it closed. */
export const onSocket = (port: number, text: string, host = "127.0.0.1"): Effect.Effect<string> =>
  Effect.promise(() =>
    new Promise<string>((resolve) => {
      const socket = connect(port, host, () => socket.end(text))
      const chunks: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")))
      socket.on("error", () => undefined)
    })
  )
