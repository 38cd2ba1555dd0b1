/** The tests' edition seam, Effect 4's side: the same exports as `seam.effect3.ts`. */
import { Config, ConfigProvider, Effect, Layer, Logger, Option, References } from "effect"
import type { Exit, Fiber } from "effect"
import type { Cause } from "effect/Cause"
import { SqlClient } from "effect/sql"
import type { FiberTracker, Log } from "./seamShapes.js"

export { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
/** The `HttpClient` over `node:http`. */
export { layerNodeHttp as nodeHttpClientLayer } from "@effect/platform-node/NodeHttpClient"
export { TestClock } from "effect/testing"
/** The typed failure of `cause`, if it has one. */
export { findErrorOption as failureOption } from "effect/Cause"
/** Whether `cause` is interruptions only. */
export { hasInterruptsOnly as interruptedOnly } from "effect/Cause"
/** Whether `cause` holds a defect. */
export { hasDies as hasDie } from "effect/Cause"
/** `fiber`'s exit once it is done. */
export const poll = <A, E>(fiber: Fiber.Fiber<A, E>): Effect.Effect<Option.Option<Exit.Exit<A, E>>> =>
  Effect.sync(() => Option.fromUndefinedOr(fiber.pollUnsafe()))
/** No SQLite mirror here (no `DesignMirror.layerSqlite`): a layer that dies saying so. */
export const layerSqlite = (_options: { readonly url: string; readonly busyTimeoutMillis?: number }) =>
  Layer.effect(SqlClient.SqlClient, Effect.die("the Effect 4 edition has no SQLite mirror"))

/** Which edition the suite runs: typed as either, so that a test may compare it under both. */
export const edition: 3 | 4 = 4
/** The `_tag` of a failed decode. */
export const schemaErrorTag = "SchemaError"
/** The path a `ConfigError` names (`[]` if none). */
export const configErrorPath = (error: Config.ConfigError): ReadonlyArray<string> =>
  error.cause._tag === "SchemaError" && error.cause.issue._tag === "Pointer" ? error.cause.issue.path.map(String) : []
/** Whether `u` is a `ConfigError`. */
export const isConfigError = (u: unknown): u is Config.ConfigError => u instanceof Config.ConfigError
/** Runs an effect reading settings from `env` only. */
export const withEnv = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
/** The typed failure of `cause` if that is all it holds (no defect, interruption or other failure). */
export const soleFailure = <E>({ reasons: [only, ...more] }: Cause<E>) =>
  only?._tag === "Fail" && more.length === 0 ? Option.some(only.error) : Option.none()
/** `effect` with each log at `level` or above handed to `onLog`, not printed. */
export const logsTo = (level: "All" | "Debug", onLog: (log: Log) => void) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(
    Effect.provide(Logger.layer([
      Logger.make(({ cause, fiber, message }) =>
        onLog({ message, cause, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
      )
    ])),
    Effect.provideService(References.MinimumLogLevel, level)
  )
/** Effect 4 has no supervisors, to count the fibers an effect forked. */
export const fiberTracker: Effect.Effect<FiberTracker> | undefined = undefined
