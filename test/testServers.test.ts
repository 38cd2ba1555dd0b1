/**
 * The test servers keep their output out of the test run: `redis-server` writes to a log file,
 * and a server that fails names that file and quotes its end.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { redisServer } from "./support/redis.js"
import { serverLogDir } from "./support/serverLog.js"

/** Holds `port` on loopback until the scope closes. */
const occupy = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<ReturnType<typeof createServer>>((resolve) => {
        const server = createServer()
        server.listen(port, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => Effect.promise(() => new Promise<void>((resolve) => void server.close(() => resolve())))
  )

describe("test servers", () => {
  it.live("redis-server writes to its log file; one that cannot start names the file in its error", () =>
    Effect.scoped(Effect.gen(function*() {
      const redis = yield* redisServer
      const path = join(serverLogDir, `redis-${redis.port}.log`)
      expect(readFileSync(path, "utf8")).toContain("Ready to accept connections")
      yield* redis.stop
      yield* occupy(redis.port)
      const error = yield* Effect.flip(redis.start)
      expect(error.message).toContain(`its log is ${path}`)
      expect(error.message).toContain("Address already in use")
      expect(readFileSync(path, "utf8")).toContain("Address already in use")
    })))
})
