/**
 * A real `redis-server` for the fleet tests, on a free loopback port: started by `redisServer`
 * (no persistence) or `redisServerKeepingData` (saves on stop, loads on start), stopped, paused
 * (SIGSTOP: a Redis that holds its connections and answers nothing) and started again on the same
 * port by the test, stopped for good when the scope closes. Waits are on the server's own output,
 * bounded. The server's output goes to its log file (`serverLog`), which every error names.
 */
import { timeoutFail } from "#edition/internal/seam"
import { Data, Duration, Effect } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ServerLog, serverLog } from "./serverLog.js"

export class RedisTestError extends Data.TaggedError("RedisTestError")<{ readonly message: string }> {}

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stops the server (SIGTERM) and waits for it to exit. */
  readonly stop: Effect.Effect<void, RedisTestError>
  /** Starts it again on the same port: empty, or with the data it saved when it stopped. */
  readonly start: Effect.Effect<void, RedisTestError>
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  readonly pause: Effect.Effect<void>
  /** Lets a paused process go on (SIGCONT). */
  readonly resume: Effect.Effect<void>
}

const within = Duration.seconds(10)

/**
 * The promise `make` returns (given an abort signal) as an effect, bounded by `within`: what it rejects
 * with, an `error` if it is not one already, or an `error` of `late()`.
 */
export const settledAs =
  <E>(error: new(args: { readonly message: string }) => E, within: Duration.Duration) =>
  <A>(make: (signal: AbortSignal) => Promise<A>, late: () => string): Effect.Effect<A, E> =>
    Effect.tryPromise({ try: make, catch: (e) => e instanceof error ? e : new error({ message: String(e) }) }).pipe(
      timeoutFail({ duration: within, onTimeout: () => new error({ message: late() }) })
    )
const settled = settledAs(RedisTestError, within)

const freePort = settled(() =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", (e) => reject(new RedisTestError({ message: `no free port: ${e.message}` })))
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  }), () => "no free port")

/** Starts `redis-server` on `port` (saving to `dir` on stop, when given) and waits until it accepts connections. */
const launch = (port: number, dir: string | undefined, log: ServerLog) =>
  Effect.suspend(() => {
    const saving = dir === undefined ? ["--save", ""] : ["--save", "3600 1", "--dir", dir]
    // `DEBUG SLEEP` makes a slow Redis
    const args = `--port ${port} --bind 127.0.0.1 --appendonly no --enable-debug-command local`.split(" ")
    const child = spawn("redis-server", [...args, ...saving], { stdio: ["ignore", "pipe", "pipe"] })
    const ready = new Promise<ChildProcess>((resolve, reject) => {
      const fail = (message: string) => reject(new RedisTestError({ message }))
      child.once("error", (e) =>
        fail(`redis-server could not start (${e.message}); install it: apt-get install redis-server`))
      child.once("exit", (code) =>
        fail(log.explain(`redis-server exited with ${code}`)))
      let output = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        log.write(chunk)
        output += chunk
        if (output.includes("Ready to accept connections")) resolve(child)
      })
      child.stderr.setEncoding("utf8").on("data", log.write)
    })
    return settled(() => ready, () => log.explain("redis-server not ready")).pipe(
      Effect.tapError(() => Effect.sync(() => child.kill("SIGKILL")))
    )
  })

const terminate = (child: ChildProcess, log: ServerLog) =>
  child.exitCode !== null || child.signalCode !== null
    ? Effect.void
    : settled(() =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      }), () => log.explain("redis-server did not stop"))

const running = (keepData: boolean): Effect.Effect<RedisServer, RedisTestError, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* freePort
    const dir = keepData
      ? yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "redis-test-"))),
        (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
      )
      : undefined
    const log = serverLog(`redis-${port}`)
    let child: ChildProcess | undefined = yield* launch(port, dir, log)
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
      start: Effect.flatMap(launch(port, dir, log), (started) => Effect.sync(() => void (child = started))),
      pause: signal("SIGSTOP"),
      resume: signal("SIGCONT")
    }
  })

/** A running server with no persistence, stopped when the scope closes. */
export const redisServer: Effect.Effect<RedisServer, RedisTestError, Scope.Scope> = running(false)

/** A running server that saves its data when stopped and loads it when started again. */
export const redisServerKeepingData: Effect.Effect<RedisServer, RedisTestError, Scope.Scope> = running(true)
