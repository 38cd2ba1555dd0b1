/**
 * Worker processes of a fleet for the tests (`fleetWorker.ts`, run by `tsx`): started together,
 * each ready once its client layer is built, driven over IPC with bounded waits, killed when the
 * scope closes. `output` holds what a worker logged.
 */
import { Data, Deferred, Duration, Effect, Schema } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Sandbox } from "../../src/index.js"
import { CallsResult, StatsResult } from "./fleetProtocol.js"
import type { Command, WorkerSettings } from "./fleetProtocol.js"

export class FleetTestError extends Data.TaggedError("FleetTestError")<{ readonly message: string }> {}

const workerPath = fileURLToPath(new URL("./fleetWorker.ts", import.meta.url))
const within = Duration.seconds(60)

type Order = Command extends infer C ? C extends Command ? Omit<C, "id"> : never : never

export interface Worker {
  readonly calls: (count: number) => Effect.Effect<typeof CallsResult.Type, FleetTestError>
  readonly stats: Effect.Effect<typeof StatsResult.Type, FleetTestError>
  /** Whether the worker's Redis connection answers a command now. */
  readonly ping: Effect.Effect<boolean, FleetTestError>
  /** SIGKILL, and waits for the exit. */
  readonly kill: Effect.Effect<void>
  /** What it wrote to stdout and stderr (its log). */
  readonly output: () => string
}

export interface FleetOptions {
  readonly served: Sandbox.Served
  /** Absent: every process works alone. */
  readonly redisUrl?: string | undefined
  readonly keyPrefix: string
  readonly lockTtlMillis?: number
  readonly requestsPerSecond?: number
}

const startOne = (settings: WorkerSettings): Effect.Effect<Worker, FleetTestError, Scope.Scope> =>
  Effect.gen(function*() {
    const ready = yield* Deferred.make<void, FleetTestError>()
    const exited = yield* Deferred.make<void>()
    const pending = new Map<number, (reply: { result?: unknown; error?: string }) => void>()
    let output = ""
    let nextId = 0
    const child: ChildProcess = yield* Effect.acquireRelease(
      Effect.sync(() =>
        fork(workerPath, [], {
          execArgv: ["--import", "tsx"],
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", FLEET_WORKER: JSON.stringify(settings) },
          stdio: ["ignore", "pipe", "pipe", "ipc"]
        })
      ),
      (child) => Effect.sync(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")))
    )
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    child.on("exit", () => {
      Deferred.unsafeDone(ready, Effect.fail(new FleetTestError({ message: `worker exited:\n${output}` })))
      Deferred.unsafeDone(exited, Effect.void)
      for (const answer of pending.values()) answer({ error: `worker exited:\n${output}` })
      pending.clear()
    })
    child.on("message", (message: { ready?: boolean; id?: number; result?: unknown; error?: string }) => {
      if (message.ready === true) Deferred.unsafeDone(ready, Effect.void)
      if (message.id !== undefined) {
        pending.get(message.id)?.(message)
        pending.delete(message.id)
      }
    })
    yield* Deferred.await(ready).pipe(
      Effect.timeoutFail({
        duration: within,
        onTimeout: () => new FleetTestError({ message: `worker not ready:\n${output}` })
      })
    )

    const send = <A, I>(order: Order, schema: Schema.Schema<A, I>) =>
      Effect.async<unknown, FleetTestError>((resume) => {
        const id = nextId++
        pending.set(
          id,
          (reply) =>
            resume(
              reply.error === undefined
                ? Effect.succeed(reply.result)
                : Effect.fail(new FleetTestError({ message: reply.error }))
            )
        )
        child.send({ ...order, id })
        return Effect.sync(() => void pending.delete(id))
      }).pipe(
        Effect.timeoutFail({
          duration: within,
          onTimeout: () => new FleetTestError({ message: `no answer to ${order.op}:\n${output}` })
        }),
        Effect.flatMap((result) =>
          Effect.mapError(Schema.decodeUnknown(schema)(result), (e) => new FleetTestError({ message: e.message }))
        )
      )

    return {
      calls: (count) => send({ op: "calls", count }, CallsResult),
      stats: send({ op: "stats" }, StatsResult),
      ping: send({ op: "ping" }, Schema.Boolean),
      kill: Effect.zipRight(Effect.sync(() => void child.kill("SIGKILL")), Deferred.await(exited)),
      output: () => output
    } satisfies Worker
  })

/** `count` workers of one fleet, started side by side. */
export const startFleet = (
  count: number,
  options: FleetOptions
): Effect.Effect<ReadonlyArray<Worker>, FleetTestError, Scope.Scope> => {
  const settings: WorkerSettings = {
    ...(options.redisUrl === undefined ? {} : { redisUrl: options.redisUrl }),
    keyPrefix: options.keyPrefix,
    lockTtlMillis: options.lockTtlMillis ?? 10_000,
    ...(options.requestsPerSecond === undefined ? {} : { requestsPerSecond: options.requestsPerSecond }),
    client: {
      clientId: options.served.sandbox.clientId,
      clientSecret: options.served.sandbox.clientSecret,
      authUrl: options.served.url,
      baseUrl: options.served.baseUrl
    }
  }
  return Effect.forEach(Array.from({ length: count }), () => startOne(settings), { concurrency: "unbounded" })
}
