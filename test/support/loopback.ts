/** A server of a test's own on a free loopback port, closed with the scope. */
import { Effect } from "effect"
import type { Scope } from "effect"
import type { Server } from "node:net"

/** Listens with `server` on 127.0.0.1 at a free port and answers the port; closes it with the scope. */
export const listening = (server: Server): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )
