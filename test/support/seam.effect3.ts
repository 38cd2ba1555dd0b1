/**
 * The tests' edition seam, Effect 3's side: what the suite needs that Effect 3 and Effect 4 spell
 * differently, beyond the library's own seam (`#edition/internal/seam`). `seam.effect4.ts` has the
 * same exports; each suite picks its own as `#test-edition/support/seam`.
 */
import { ConfigError, ConfigProvider, Effect, Logger, LogLevel, Option, Supervisor } from "effect"
import { type Cause, isFailType } from "effect/Cause"
import type { FiberTracker, Log } from "./seamShapes.js"

export { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
/** The `HttpClient` over `node:http`: `NodeHttpClient.layer`, `NodeHttpClient.layerNodeHttp` in Effect 4. */
export { layer as nodeHttpClientLayer } from "@effect/platform-node/NodeHttpClient"
export { TestClock } from "effect"
/** The typed failure of `cause`, if it has one: `Cause.failureOption`, `Cause.findErrorOption` in Effect 4. */
export { failureOption } from "effect/Cause"
/** Whether `cause` is interruptions only: `Cause.isInterruptedOnly`, `Cause.hasInterruptsOnly` in Effect 4. */
export { isInterruptedOnly as interruptedOnly } from "effect/Cause"
/** Whether `cause` holds a defect: `Cause.isDie`, `Cause.hasDies` in Effect 4. */
export { isDie as hasDie } from "effect/Cause"
/** `fiber`'s exit once it is done: `Fiber.poll`, `fiber.pollUnsafe()` in Effect 4. */
export { poll } from "effect/Fiber"
/** The mirror's `SqlClient` on a SQLite file: `DesignMirror.layerSqlite`, which Effect 4 has not. */
export { layerSqlite } from "../../src/internal/mirror/sqlite.effect3.js"

/** Which edition the suite runs: typed as either, so that a test may compare it under both. */
export const edition: 3 | 4 = 3
/** The `_tag` of a failed decode: `ParseError`, `SchemaError` in Effect 4. */
export const schemaErrorTag = "ParseError"
/** The path a `ConfigError` names (`[]` if none): its `path`; its `Pointer` issue's in Effect 4. */
export const configErrorPath = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  "path" in error ? error.path : []
/** Whether `u` is a `ConfigError`: `ConfigError.isConfigError`, an instance of `Config.ConfigError` in Effect 4. */
export const isConfigError = (u: unknown): u is ConfigError.ConfigError => ConfigError.isConfigError(u)
/** Runs an effect reading settings from `env` only: `withConfigProvider(fromMap)`, `ConfigProvider` in Effect 4. */
export const withEnv = (env: Record<string, string>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withConfigProvider(effect, ConfigProvider.fromMap(new Map(Object.entries(env))))
/** The typed failure of `cause` if that is all it holds (no defect, interruption or other failure). */
export const soleFailure = <E>(cause: Cause<E>) => isFailType(cause) ? Option.some(cause.error) : Option.none()
/** `effect` with each log at `level` or above handed to `onLog`, not printed: `Logger.replace`, `Logger.layer` in Effect 4. */
export const logsTo = (level: "All" | "Debug", onLog: (log: Log) => void) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(
    Effect.provide(Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ annotations, cause, message }) =>
        onLog({ message, cause, annotations: Object.fromEntries(annotations) })
      )
    )),
    Logger.withMinimumLogLevel(LogLevel.fromLiteral(level))
  )
/** Counts the fibers `supervise`d effects forked that still run: `Supervisor.track`; none in Effect 4 (`undefined`). */
export const fiberTracker: Effect.Effect<FiberTracker> | undefined = Effect.map(Supervisor.track, (s) => ({
  supervise: Effect.supervised(s),
  running: Effect.map(s.value, (fibers) => fibers.length)
}))
