/**
 * The body of `FleetRedis`: each command answered within the command timeout or failed with
 * `FleetUnavailable`; while Redis is away, one probe an interval, or at once when it shows it is
 * back; one warning when it goes, one line when it returns.
 */
import { type ConfigErrorType, invalidConfig, latchUnsafe, timeoutFail } from "#edition/internal/seam"
import { Clock, Data, Duration, Effect, type Scope } from "effect"
import * as Redis from "../../core/fleet/redis.js"
import * as OptionalPeer from "../optionalPeer.js"
import type { ConnectionSettings } from "./options.js"

/**
 * A Redis connection as the fleet uses it: an `ioredis` client made with `enableOfflineQueue: false`
 * (so that it fails rather than queue while disconnected) fits it.
 * @since 0.3.0
 * @category models
 */
export interface Connection {
  /** `ready` when commands can be sent; `wait` for a client made with `lazyConnect`. */
  readonly status: string
  /** Starts connecting a client made with `lazyConnect`. */
  readonly connect: () => Promise<unknown>
  /** Sends one command with its arguments and answers Redis's reply. */
  readonly call: (command: string, ...args: Array<string | number>) => Promise<unknown>
}

/**
 * A Redis command that failed, timed out, or was not sent because Redis is away.
 * @since 0.2.0
 * @category errors
 */
export class FleetUnavailable extends Data.TaggedError("FleetUnavailable")<{ readonly detail: string }> {}

/**
 * Which client a fleet shares a token and a budget for: never the secret.
 * @since 0.2.0
 * @category models
 */
export type ClientIdentity = Redis.ClientIdentity

/**
 * The key of `name` for `client` under `prefix`: a digest of token URL and client id in braces, so
 * that all of a client's keys share one Redis Cluster slot and a script may touch several.
 * @since 0.2.0
 * @category utils
 */
export const keyOf: (prefix: string, client: ClientIdentity, name: string) => string = Redis.keyOf

const unavailable = (detail: string) => new FleetUnavailable({ detail })

/** One command sent, as `FleetRedis.Service` sends it. */
type Command = (name: string, ...args: Array<string | number>) => Effect.Effect<unknown, FleetUnavailable>

/**
 * The service over `redis`. `onReady`, where given, tells of each new connection of the client
 * `layer` made, so that a Redis back from a restart is tried at once.
 */
export const over = (redis: Connection, settings: ConnectionSettings, onReady?: (listener: () => void) => void) => {
  const { commandTimeoutMillis: timeout, probeIntervalMillis: probe } = settings
  let healthy = true
  let nextProbeAt = 0
  /** Open while Redis may answer: closed by a failure, opened by an answer or a sign it is back. */
  const answering = latchUnsafe(true)
  /** Redis showed it is back: the next command is a probe, sent at once, and the waiters go on. */
  const heard = () => {
    nextProbeAt = 0
    answering.open()
  }
  // a client made with `lazyConnect` connects on its first command, which is never sent unready
  if (redis.status === "wait") redis.connect().catch(() => {})
  onReady?.(heard)

  /** One command over a ready connection (ioredis's own refusal while disconnected says less). */
  const send = (name: string, args: Array<string | number>) =>
    Effect.suspend(() => {
      if (redis.status !== "ready") return Effect.fail(unavailable(`not connected (${redis.status})`))
      let late = false
      return Effect.tryPromise({
        try: async () => {
          const value = await redis.call(name, ...args)
          // an answer after the timeout: Redis was slow or paused, and is back
          if (late) heard()
          return value
        },
        catch: (error) => unavailable(error instanceof Error ? `${error.name}: ${error.message}` : "unknown failure")
      }).pipe(timeoutFail({
        duration: Duration.millis(timeout),
        onTimeout: () => {
          late = true
          return unavailable(`no answer within ${timeout} ms`)
        }
      }))
    })

  const command = (gated: boolean): Command => (name, ...args) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (!healthy && gated) {
        if (now < nextProbeAt) {
          // a probe is out: whoever waits for Redis waits for its answer
          answering.close()
          return Effect.fail(unavailable("Redis is away"))
        }
        nextProbeAt = now + probe
      }
      return send(name, args).pipe(
        Effect.tapError((e) => {
          nextProbeAt = now + probe
          answering.close()
          if (!healthy) return Effect.void
          healthy = false
          return Effect.logWarning(
            `Redis unreachable (${e.detail}): tokens and rate budget are kept in this process until it returns`
          )
        }),
        Effect.tap(() => {
          answering.open()
          if (healthy) return Effect.void
          healthy = true
          return Effect.logInfo("Redis reachable again: tokens and rate budget are shared with the fleet")
        })
      )
    })

  return {
    command: command(true),
    urgent: command(false),
    reachable: answering.await,
    key: (client: ClientIdentity, name: string) => keyOf(settings.keyPrefix, client, name)
  }
}

const loadIoredis = OptionalPeer.load({
  packageName: "ioredis",
  feature: "FleetRedis.layer (and Fleet.layer)",
  install: "npm install ioredis",
  load: () => import("ioredis")
})

/** A connection of our own, closed with the scope, waited for up to `connectTimeout`, never failing for Redis. */
export const connect = (settings: ConnectionSettings): Effect.Effect<
  { readonly connection: Connection; readonly onReady: (listener: () => void) => void },
  ConfigErrorType,
  Scope.Scope
> =>
  Effect.acquireRelease(
    Effect.flatMap(loadIoredis, ({ Redis }) =>
      Effect.try({
        try: () =>
          new Redis(settings.url, {
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            connectTimeout: settings.connectTimeoutMillis,
            // reconnects for as long as the process lives, at most a second apart
            retryStrategy: (attempt) => Math.min(attempt * 100, 1000)
            // connection errors are answered per command; unheard, ioredis would print them
          }).on("error", () => {}),
        // what ioredis refuses in a checked url is the url's fault (never told: its message may quote it)
        catch: () => invalidConfig(["url"], "url is not one ioredis accepts")
      })),
    (redis) => Effect.sync(() => redis.disconnect())
  ).pipe(
    Effect.tap((redis) =>
      redis.status === "ready" ? Effect.void : Effect.promise((signal) =>
        new Promise<void>((ready) => {
          redis.once("ready", ready)
          signal.addEventListener("abort", () => void redis.off("ready", ready))
        })
      ).pipe(Effect.timeoutOption(Duration.millis(settings.connectTimeoutMillis)))
    ),
    Effect.map((redis) => ({ connection: redis, onReady: (listener) => void redis.on("ready", listener) }))
  )
