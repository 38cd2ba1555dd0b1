/**
 * Worker processes of a fleet for the tests (`fleetWorker.ts`, run by `tsx` on the edition this
 * process runs): started together, each ready once its client layer is built, driven over IPC with
 * bounded waits, killed when the scope closes. `output` holds what a worker logged.
 */
import type { SchemaError } from "#edition/internal/seam"
import { decodeUnknownEffect, edition } from "#edition/internal/seam"
import { Data, Duration, Effect, Schema } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Sandbox } from "../../src/index.js"
import { CallsResult, StatsResult } from "./fleetProtocol.js"
import type { Command, WorkerSettings } from "./fleetProtocol.js"
import { settledAs } from "./redis.js"

export class FleetTestError extends Data.TaggedError("FleetTestError")<{ readonly message: string }> {}

const workerPath = fileURLToPath(new URL("./fleetWorker.ts", import.meta.url))
// under Effect 4, the worker resolves its imports as effect4/vitest.config.ts does the suite's
const editionImports = { 3: [], 4: ["--import", fileURLToPath(new URL("./effect4Imports.mjs", import.meta.url))] }
const execArgv = ["--import", "tsx", ...editionImports[edition]]
const within = Duration.seconds(60)

type Order = Command extends infer C ? C extends Command ? Omit<C, "id"> : never : never

export interface Worker {
  readonly calls: (count: number) => Effect.Effect<typeof CallsResult.Type, FleetTestError>
  /** Obtains the token and takes it again from the cache: used since its fetch, as a refresh ahead asks. */
  readonly token: Effect.Effect<boolean, FleetTestError>
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

const settled = settledAs(FleetTestError, within)

const startOne = (settings: WorkerSettings): Effect.Effect<Worker, FleetTestError, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = new Map<number, (reply: { result?: unknown; error?: string }) => void>()
    let output = ""
    let nextId = 0
    const child: ChildProcess = yield* Effect.acquireRelease(
      Effect.sync(() =>
        fork(workerPath, [], {
          execArgv,
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", FLEET_WORKER: JSON.stringify(settings) },
          stdio: ["ignore", "pipe", "pipe", "ipc"]
        })
      ),
      (child) => Effect.sync(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")))
    )
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    child.on("exit", () => {
      for (const answer of pending.values()) answer({ error: `worker exited:\n${output}` })
      pending.clear()
    })
    child.on("message", (message: { id?: number; result?: unknown; error?: string }) => {
      if (message.id !== undefined) {
        pending.get(message.id)?.(message)
        pending.delete(message.id)
      }
    })
    /** The answer to the message `id`; the worker's first, unasked, is -1: ready, on its edition. */
    const answer = (id: number, signal?: AbortSignal) =>
      new Promise<unknown>((resolve, reject) => {
        pending.set(id, ({ error, result }) =>
          error === undefined ? resolve(result) : reject(new FleetTestError({ message: error })))
        signal?.addEventListener("abort", () =>
          void pending.delete(id))
      })
    const ready = answer(-1)
    const workerEdition = yield* settled(() => ready, () => `worker not ready:\n${output}`)
    if (workerEdition !== edition) {
      return yield* new FleetTestError({ message: `worker on Effect ${workerEdition}, not ${edition}` })
    }

    const send = <A>(order: Order, decode: (u: unknown) => Effect.Effect<A, SchemaError>) =>
      settled((signal) => {
        const id = nextId++
        const answered = answer(id, signal)
        child.send({ ...order, id })
        return answered
      }, () => `no answer to ${order.op}:\n${output}`).pipe(
        Effect.flatMap((result) => Effect.mapError(decode(result), (e) => new FleetTestError({ message: e.message })))
      )

    return {
      calls: (count) => send({ op: "calls", count }, decodeUnknownEffect(CallsResult)),
      token: send({ op: "token" }, decodeUnknownEffect(Schema.Boolean)),
      stats: send({ op: "stats" }, decodeUnknownEffect(StatsResult)),
      ping: send({ op: "ping" }, decodeUnknownEffect(Schema.Boolean)),
      kill: Effect.andThen(Effect.sync(() => void child.kill("SIGKILL")), Effect.promise(() => exited)),
      output: () => output
    } satisfies Worker
  })

/** `count` workers of one fleet, started side by side. */
export const startFleet = (
  count: number,
  options: FleetOptions
): Effect.Effect<ReadonlyArray<Worker>, FleetTestError, Scope.Scope> => {
  const { keyPrefix, lockTtlMillis = 10_000, redisUrl, requestsPerSecond, served } = options
  const { clientId, clientSecret } = served.sandbox
  const settings: WorkerSettings = {
    ...(redisUrl === undefined ? {} : { redisUrl }),
    ...(requestsPerSecond === undefined ? {} : { requestsPerSecond }),
    keyPrefix,
    lockTtlMillis,
    client: { clientId, clientSecret, authUrl: served.url, baseUrl: served.baseUrl }
  }
  return Effect.forEach(Array.from({ length: count }), () => startOne(settings), { concurrency: "unbounded" })
}

/** The in-process fleet's layers (two connections standing for two processes), for the Redis tests. */
export * from "./fleetLayers.js"
