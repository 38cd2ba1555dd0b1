/**
 * A real `redis-server` for the fleet tests, on a free loopback port, with no persistence: started
 * by `redisServer`, stopped (and startable again on the same port) by the test, stopped for good
 * when the scope closes. Waits are on the server's own output, bounded.
 */
import { Data, Deferred, Duration, Effect } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"

export class RedisTestError extends Data.TaggedError("RedisTestError")<{ readonly message: string }> {}

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stops the server (SIGTERM) and waits for it to exit. */
  readonly stop: Effect.Effect<void, RedisTestError>
  /** Starts it again on the same port, empty. */
  readonly start: Effect.Effect<void, RedisTestError>
}

const within = Duration.seconds(10)

const freePort = Effect.async<number, RedisTestError>((resume) => {
  const server = createServer()
  server.once("error", (e) => resume(Effect.fail(new RedisTestError({ message: `no free port: ${e.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Starts `redis-server` on `port` and waits until it accepts connections. */
const launch = (port: number) =>
  Effect.gen(function*() {
    const ready = yield* Deferred.make<ChildProcess, RedisTestError>()
    let output = ""
    const child = spawn("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      // `DEBUG SLEEP` makes a slow Redis
      "--enable-debug-command",
      "local"
    ], { stdio: ["ignore", "pipe", "pipe"] })
    const fail = (message: string) => Deferred.unsafeDone(ready, Effect.fail(new RedisTestError({ message })))
    child.once("error", (e) =>
      fail(`redis-server could not start (${e.message}); install it: apt-get install redis-server`))
    child.once("exit", (code) =>
      fail(`redis-server exited with ${code}: ${output.slice(-1000)}`))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk
      if (output.includes("Ready to accept connections")) Deferred.unsafeDone(ready, Effect.succeed(child))
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    return yield* Deferred.await(ready).pipe(
      Effect.timeoutFail({
        duration: within,
        onTimeout: () => new RedisTestError({ message: `redis-server not ready: ${output}` })
      }),
      Effect.tapError(() => Effect.sync(() => child.kill("SIGKILL")))
    )
  })

const terminate = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Effect.void
    : Effect.async<void>((resume) => {
      child.once("exit", () => resume(Effect.void))
      child.kill("SIGTERM")
    }).pipe(Effect.timeoutFail({
      duration: within,
      onTimeout: () => new RedisTestError({ message: "redis-server did not stop" })
    }))

/** A running server, stopped when the scope closes. */
export const redisServer: Effect.Effect<RedisServer, RedisTestError, Scope.Scope> = Effect.gen(function*() {
  const port = yield* freePort
  let child: ChildProcess | undefined = yield* launch(port)
  yield* Effect.addFinalizer(() => child === undefined ? Effect.void : Effect.ignore(terminate(child)))
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: Effect.suspend(() => child === undefined ? Effect.void : terminate(child)).pipe(
      Effect.tap(() => Effect.sync(() => void (child = undefined)))
    ),
    start: Effect.flatMap(launch(port), (started) => Effect.sync(() => void (child = started)))
  }
})
