/** What the fleet tests and their worker processes say to each other. */

import { literals, union } from "#edition/internal/domainSchemas"
import { Schema } from "effect"

/** A worker's settings, passed as JSON in `FLEET_WORKER`. */
export const WorkerSettings = Schema.Struct({
  /** Absent: the process works alone, with the in-memory defaults. */
  redisUrl: Schema.optional(Schema.String),
  keyPrefix: Schema.String,
  lockTtlMillis: Schema.Number,
  requestsPerSecond: Schema.optional(Schema.Number),
  client: Schema.Struct({
    clientId: Schema.String,
    clientSecret: Schema.String,
    authUrl: Schema.String,
    baseUrl: Schema.String
  })
})
export type WorkerSettings = typeof WorkerSettings.Type

/** `calls`: concurrent quick searches; `token`: got twice, the second from the cache; `stats`; `ping`: Redis answers? */
export const Command = union(
  Schema.Struct({ id: Schema.Number, op: Schema.Literal("calls"), count: Schema.Int }),
  Schema.Struct({ id: Schema.Number, op: literals("token", "stats", "ping") })
)
export type Command = typeof Command.Type

export const CallsResult = Schema.Struct({ ok: Schema.Number, failures: Schema.Array(Schema.String) })
export const StatsResult = Schema.Struct({
  tokenRequests: Schema.Number,
  waits: Schema.Number,
  refreshes: Schema.Number,
  sharedTokens: Schema.Number
})
