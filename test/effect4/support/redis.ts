/**
 * A real `redis-server` for the Effect 4 edition's fleet tests, as test/support/redis.ts starts one
 * for the Effect 3 edition's: on a free loopback port, no persistence, stopped, paused (SIGSTOP)
 * and started again on the same port by the test, stopped for good when the scope closes. Waits are
 * on the server's own output, bounded; its output goes to its log file, which every error names.
 */
import { Data, Deferred, Duration, Effect } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { type ServerLog, serverLog } from "../../support/serverLog.js"

export class RedisTestError extends Data.TaggedError("RedisTestError")<{ readonly message: string }> {}

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stops the server (SIGTERM) and waits for it to exit. */
  readonly stop: Effect.Effect<void, RedisTestError>
  /** Starts it again on the same port, empty. */
  readonly start: Effect.Effect<void, RedisTestError>
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  readonly pause: Effect.Effect<void>
  /** Lets a paused process go on (SIGCONT). */
  readonly resume: Effect.Effect<void>
}

const within = Duration.seconds(10)

const timeout = (message: string) =>
  Effect.timeoutOrElse({ duration: within, orElse: () => Effect.fail(new RedisTestError({ message })) })

const freePort = Effect.callback<number, RedisTestError>((resume) => {
  const server = createServer()
  server.once("error", (e) => resume(Effect.fail(new RedisTestError({ message: `no free port: ${e.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Starts `redis-server` on `port` and waits until it accepts connections. */
const launch = (port: number, log: ServerLog) =>
  Effect.gen(function*() {
    const ready = Deferred.makeUnsafe<ChildProcess, RedisTestError>()
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
    const fail = (message: string) => Deferred.doneUnsafe(ready, Effect.fail(new RedisTestError({ message })))
    child.once("error", (e) =>
      fail(`redis-server could not start (${e.message}); install it: apt-get install redis-server`))
    child.once("exit", (code) =>
      fail(log.explain(`redis-server exited with ${code}`)))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      log.write(chunk)
      output += chunk
      if (output.includes("Ready to accept connections")) Deferred.doneUnsafe(ready, Effect.succeed(child))
    })
    child.stderr.setEncoding("utf8").on("data", log.write)
    return yield* Deferred.await(ready).pipe(
      timeout(log.explain("redis-server not ready")),
      Effect.tapError(() => Effect.sync(() => child.kill("SIGKILL")))
    )
  })

const terminate = (child: ChildProcess, log: ServerLog) =>
  child.exitCode !== null || child.signalCode !== null
    ? Effect.void
    : Effect.callback<void>((resume) => {
      child.once("exit", () => resume(Effect.void))
      child.kill("SIGTERM")
    }).pipe(timeout(log.explain("redis-server did not stop")))

/** A running server with no persistence, stopped when the scope closes. */
export const redisServer: Effect.Effect<RedisServer, RedisTestError, Scope.Scope> = Effect.gen(function*() {
  const port = yield* freePort
  const log = serverLog(`redis-${port}`)
  let child: ChildProcess | undefined = yield* launch(port, log)
  const signal = (name: NodeJS.Signals) => Effect.sync(() => void child?.kill(name))
  yield* Effect.addFinalizer(() =>
    child === undefined ? Effect.void : Effect.andThen(signal("SIGCONT"), Effect.ignore(terminate(child, log)))
  )
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: Effect.suspend(() => child === undefined ? Effect.void : terminate(child, log)).pipe(
      Effect.tap(() => Effect.sync(() => void (child = undefined)))
    ),
    start: Effect.flatMap(launch(port, log), (started) => Effect.sync(() => void (child = started))),
    pause: signal("SIGSTOP"),
    resume: signal("SIGCONT")
  }
})
