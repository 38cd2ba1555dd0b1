/**
 * One process of a fleet, for the fleet tests and benchmark: a `DesignSearchClient` over
 * `FetchHttpClient` with a Redis `TokenStore` and `RequestBudget` (or, with no `redisUrl`, alone),
 * driven by the parent over IPC. Started by `fleet.ts` with its settings in `FLEET_WORKER`, on the
 * edition the parent runs (`effect4Imports.mjs`); answers each command with the same `id`.
 */
import { fromJsonString } from "#edition/internal/domainSchemas"
import type { ConfigErrorType } from "#edition/internal/seam"
import { edition, FetchHttpClient, Result, service, toResult } from "#edition/internal/seam"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { DesignSearchClient, DesignSearchConfig, FleetRedis } from "../../src/index.js"
import { RequestBudget, TokenService, TokenStore } from "../../src/index.js"
import { Command, WorkerSettings } from "./fleetProtocol.js"

const settings = Schema.decodeUnknownSync(fromJsonString(WorkerSettings))(process.env["FLEET_WORKER"])

// A generous command timeout: a worker's event loop, busy with its calls on a loaded machine, must
// not take a late answer for Redis being away.
// `FleetRedis` stays in the context, for `ping`.
const budget = settings.requestsPerSecond === undefined ? {} : { requestsPerSecond: settings.requestsPerSecond }
const Stores: Layer.Layer<TokenStore.TokenStore | RequestBudget.RequestBudget, ConfigErrorType> =
  settings.redisUrl === undefined
    ? Layer.merge(Layer.succeed(TokenStore.TokenStore, TokenStore.memory), RequestBudget.layer(budget))
    : Layer.merge(TokenStore.layerRedis({ lockTtl: settings.lockTtlMillis }), RequestBudget.layerRedis(budget)).pipe(
      Layer.provideMerge(
        FleetRedis.layer({ url: settings.redisUrl, keyPrefix: settings.keyPrefix, commandTimeout: "2 seconds" })
      )
    )
const Live = DesignSearchClient.layer().pipe(
  Layer.provideMerge(Stores),
  Layer.provide(DesignSearchConfig.layer(settings.client)),
  Layer.provide(FetchHttpClient.layer)
)
const runtime = ManagedRuntime.make(Live)

const calls = (count: number) =>
  Effect.gen(function*() {
    const client = yield* service(DesignSearchClient.DesignSearchClient)
    const results = yield* Effect.forEach(
      Array.from({ length: count }, () => client.quickSearch({ query: "chair" })),
      (call) => toResult(call),
      { concurrency: "unbounded" }
    )
    const failures = results.flatMap((r) => Result.match(r, { onFailure: (e) => [e.message], onSuccess: () => [] }))
    return { ok: count - failures.length, failures }
  })

const run = (
  command: Command
): Effect.Effect<unknown, unknown, DesignSearchClient.DesignSearchClient | TokenService.TokenService> => {
  switch (command.op) {
    case "calls":
      return calls(command.count)
    case "token":
      return Effect.flatMap(
        service(TokenService.TokenService),
        (tokens) => Effect.as(Effect.andThen(tokens.get, tokens.get), true)
      )
    case "stats":
      return Effect.flatMap(service(TokenService.TokenService), (tokens) => tokens.stats)
    case "ping":
      return Effect.flatMap(Effect.serviceOption(FleetRedis.FleetRedis), (redis) =>
        redis._tag === "None"
          ? Effect.succeed(false)
          : Effect.match(redis.value.command("PING"), { onFailure: () => false, onSuccess: () => true }))
  }
}

const decodeCommand = Schema.decodeUnknownSync(Command)

process.on("message", (message: unknown) => {
  const command = decodeCommand(message)
  void runtime.runPromise(run(command)).then(
    (result) => process.send?.({ id: command.id, result }),
    (error: unknown) => process.send?.({ id: command.id, error: String(error) })
  )
})
process.on("disconnect", () => void runtime.dispose().then(() => process.exit(0)))

// ready, on this edition
void runtime.runPromise(Effect.void).then(() => process.send?.({ id: -1, result: edition }))
