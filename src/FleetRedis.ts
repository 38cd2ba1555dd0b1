/**
 * `FleetRedis`: the Redis connection through which the processes of a fleet share one token and one
 * rate budget. Redis is an optimisation, never a dependency of a request: a command that fails or
 * is slower than `commandTimeout` is a `FleetUnavailable`, which every user of the connection
 * answers locally. One warning is logged when Redis goes away and one line when it is back; while
 * it is away, commands fail at once but for one probe every `probeInterval`, or at once when Redis
 * shows it is back (a late answer to a command that timed out, a new connection).
 *
 * @since 0.2.0
 */
import { Clock, ConfigError, Context, Data, Duration, Effect, Either, Layer } from "effect"
import type { Scope } from "effect"
import type { Redis } from "ioredis"
import { createHash } from "node:crypto"
import * as OptionalPeer from "./internal/optionalPeer.js"
import { positive } from "./internal/optionChecks.js"

/**
 * A Redis connection as the fleet uses it: an `ioredis` client (configured with
 * `enableOfflineQueue: false`, so that it fails rather than queue while disconnected) fits it.
 *
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
 *
 * @since 0.2.0
 * @category errors
 */
export class FleetUnavailable extends Data.TaggedError("FleetUnavailable")<{ readonly detail: string }> {}

/**
 * Which client a fleet shares a token and a budget for: never the secret.
 *
 * @since 0.2.0
 * @category models
 */
export interface ClientIdentity {
  readonly tokenUrl: string
  readonly clientId: string
}

/**
 * The fleet's Redis connection, as the token store and the budget use it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /**
   * Sends one command (`command("GET", key)`) and answers Redis's reply; fails with
   * `FleetUnavailable` when Redis is away, refuses it, or answers later than `commandTimeout`.
   */
  readonly command: (name: string, ...args: Array<string | number>) => Effect.Effect<unknown, FleetUnavailable>
  /**
   * `command`, sent even while Redis is away as long as the connection is open: a paused or
   * partitioned Redis carries it out as soon as it answers again, before anything sent later and
   * even if this process is gone by then. For the few writes the fleet must hear at once (a
   * refused token); fails like `command`.
   */
  readonly urgent: (name: string, ...args: Array<string | number>) => Effect.Effect<unknown, FleetUnavailable>
  /**
   * Waits until Redis may answer again: at once while it does; otherwise until it shows it is back
   * (a late answer; a new connection of the client `layer` makes), after which the next command is
   * let through. Never fails.
   */
  readonly reachable: Effect.Effect<void>
  /** `keyOf` under this connection's prefix. Never fails. */
  readonly key: (client: ClientIdentity, name: string) => string
}

/**
 * The Redis connection of a fleet: `layer` makes its own, `layerClient` wraps the caller's.
 *
 * @since 0.2.0
 * @category tags
 */
export class FleetRedis extends Context.Tag("effect-design-search/FleetRedis")<FleetRedis, Service>() {}

/**
 * Options of `make`, `layer` and `layerClient`.
 *
 * @since 0.2.0
 * @category options
 */
export interface Options {
  /** Default `redis://127.0.0.1:6379`. May carry a password; it is never logged. */
  readonly url?: string | undefined
  /** Prefix of every key (default `design-search`). */
  readonly keyPrefix?: string | undefined
  /** Longest wait for one command before Redis counts as away (default 500 ms). */
  readonly commandTimeout?: Duration.DurationInput | undefined
  /** While Redis is away, how often one command is let through to see whether it is back (default 1 s). */
  readonly probeInterval?: Duration.DurationInput | undefined
  /** Longest wait for the first connection when the layer is built (default 2 s); it never fails. */
  readonly connectTimeout?: Duration.DurationInput | undefined
}

/**
 * Defaults of `Options`.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaults = {
  url: "redis://127.0.0.1:6379",
  keyPrefix: "design-search",
  commandTimeout: Duration.millis(500),
  probeInterval: Duration.seconds(1),
  connectTimeout: Duration.seconds(2)
} as const

/**
 * The key of `name` for `client` under `prefix`: a digest of token URL and client id in braces, so
 * that all of a client's keys share one Redis Cluster slot and a script may touch several.
 *
 * @since 0.2.0
 * @category utils
 */
export const keyOf = (prefix: string, client: ClientIdentity, name: string): string =>
  `${prefix}:{${
    createHash("sha256").update(`${client.tokenUrl}\n${client.clientId}`).digest("hex").slice(0, 32)
  }}:${name}`

/** The options checked, durations in milliseconds. */
interface CheckedOptions {
  readonly url: string
  readonly keyPrefix: string
  readonly commandTimeoutMillis: number
  readonly probeIntervalMillis: number
  readonly connectTimeoutMillis: number
}

/** The options checked: a `redis:` or `rediss:` URL, a prefix, positive durations. */
const checkOptions = (options: Options): Either.Either<CheckedOptions, ConfigError.ConfigError> =>
  Either.gen(function*() {
    const url = options.url ?? defaults.url
    const protocol = URL.canParse(url) ? new URL(url).protocol : undefined
    if (protocol !== "redis:" && protocol !== "rediss:") {
      // the URL may hold a password: only its scheme is told
      return yield* Either.left(ConfigError.InvalidData(["url"], "url must be a redis:// or rediss:// URL"))
    }
    const keyPrefix = options.keyPrefix ?? defaults.keyPrefix
    if (keyPrefix === "") {
      return yield* Either.left(ConfigError.InvalidData(["keyPrefix"], "keyPrefix must not be empty"))
    }
    const millis = (name: string, input: Duration.DurationInput | undefined, fallback: Duration.Duration) =>
      Either.map(positive(name, input, fallback), Duration.toMillis)
    return {
      url,
      keyPrefix,
      commandTimeoutMillis: yield* millis("commandTimeout", options.commandTimeout, defaults.commandTimeout),
      probeIntervalMillis: yield* millis("probeInterval", options.probeInterval, defaults.probeInterval),
      connectTimeoutMillis: yield* millis("connectTimeout", options.connectTimeout, defaults.connectTimeout)
    }
  })

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : "unknown Redis failure"

/**
 * The service over `redis`, a connection the caller owns (an `ioredis` client configured to fail
 * rather than queue commands while disconnected, `enableOfflineQueue: false`, as `layer` configures
 * its own).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (redis: Connection, options: Options = {}): Effect.Effect<Service, ConfigError.ConfigError> =>
  Effect.map(checkOptions(options), (checked) => over(redis, checked))

/**
 * The service over `redis`. `onReady`, where given, is how `layer` tells of each new connection of
 * its own client, so that a Redis back from a restart is tried at once; a caller's client is left
 * without a listener of ours.
 */
const over = (
  redis: Connection,
  checked: CheckedOptions,
  onReady?: (listener: () => void) => void
): Service => {
  const prefix = checked.keyPrefix
  const timeoutMillis = checked.commandTimeoutMillis
  const probeMillis = checked.probeIntervalMillis
  let healthy = true
  let nextProbeAt = 0
  /** Who waits in `reachable`. */
  const waiting = new Set<() => void>()
  /** Redis showed it is back: the next command is a probe, sent at once, and the waiters go on. */
  const heard = () => {
    nextProbeAt = 0
    for (const wake of waiting) wake()
    waiting.clear()
  }
  // a client made with `lazyConnect` connects on its first command, which `send` never issues
  if (redis.status === "wait") redis.connect().catch(() => {})
  onReady?.(heard)

  /** Sends only over a ready connection: ioredis's own refusal while disconnected says less. */
  const send = (name: string, args: Array<string | number>): Effect.Effect<unknown, FleetUnavailable> =>
    Effect.suspend(() =>
      redis.status !== "ready"
        ? Effect.fail(new FleetUnavailable({ detail: `not connected (${redis.status})` }))
        : Effect.async<unknown, FleetUnavailable>((resume) => {
          let done = false
          const timer = setTimeout(() => {
            done = true
            resume(Effect.fail(new FleetUnavailable({ detail: `no answer within ${timeoutMillis} ms` })))
          }, timeoutMillis)
          const settle = (effect: Effect.Effect<unknown, FleetUnavailable>) => {
            if (done) return
            done = true
            clearTimeout(timer)
            resume(effect)
          }
          // A command that throws synchronously is a failure like any other.
          Promise.resolve().then(() => redis.call(name, ...args)).then(
            (value) => {
              // an answer after the timeout: Redis was slow or paused, and is back
              if (done) heard()
              settle(Effect.succeed(value))
            },
            (error: unknown) => settle(Effect.fail(new FleetUnavailable({ detail: describe(error) })))
          )
          return Effect.sync(() => {
            done = true
            clearTimeout(timer)
          })
        })
    )

  const command = (
    gated: boolean,
    name: string,
    args: Array<string | number>
  ): Effect.Effect<unknown, FleetUnavailable> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (!healthy && gated) {
        if (now < nextProbeAt) return Effect.fail(new FleetUnavailable({ detail: "Redis is away" }))
        nextProbeAt = now + probeMillis
      }
      return send(name, args).pipe(
        Effect.tapBoth({
          onFailure: (e) =>
            Effect.suspend(() => {
              nextProbeAt = now + probeMillis
              if (!healthy) return Effect.void
              healthy = false
              return Effect.logWarning(
                `Redis unreachable (${e.detail}): tokens and rate budget are kept in this process until it returns`
              )
            }),
          onSuccess: () =>
            Effect.suspend(() => {
              if (healthy) return Effect.void
              healthy = true
              return Effect.logInfo("Redis reachable again: tokens and rate budget are shared with the fleet")
            })
        })
      )
    })

  const reachable = Effect.suspend(() =>
    healthy ? Effect.void : Effect.async<void>((resume) => {
      const wake = () => resume(Effect.void)
      waiting.add(wake)
      return Effect.sync(() => void waiting.delete(wake))
    })
  )

  return {
    command: (name, ...args) => command(true, name, args),
    urgent: (name, ...args) => command(false, name, args),
    reachable,
    key: (client, name) => keyOf(prefix, client, name)
  } satisfies Service
}

/**
 * The service over its own `ioredis` connection, closed with the scope. Building it waits up to
 * `connectTimeout` for Redis and fails only on bad options, or with `ConfigError.MissingData` naming
 * `ioredis` when that optional package is not installed (`npm install ioredis`): a fleet whose
 * Redis is down starts working alone.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<FleetRedis, ConfigError.ConfigError> =>
  Layer.scoped(
    FleetRedis,
    Effect.flatMap(checkOptions(options), (checked) =>
      Effect.map(connect(checked), (redis) =>
        over(redis, checked, (listener) => void redis.on("ready", listener))))
  )

/**
 * The service over a connection the caller owns (configured with `enableOfflineQueue: false`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerClient = (
  redis: Connection,
  options: Options = {}
): Layer.Layer<FleetRedis, ConfigError.ConfigError> => Layer.effect(FleetRedis, make(redis, options))

/**
 * `ioredis`, an optional peer dependency: loaded when a fleet's own connection is made, not by every
 * user of `TokenService`, and not installed by an application without a fleet.
 */
const loadIoredis = OptionalPeer.load({
  packageName: "ioredis",
  feature: "FleetRedis.layer (and Fleet.layer)",
  install: "npm install ioredis",
  load: () => import("ioredis")
})

const connect = (checked: CheckedOptions): Effect.Effect<Redis, ConfigError.ConfigError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.map(loadIoredis, ({ Redis }) => {
      const redis = new Redis(checked.url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: checked.connectTimeoutMillis,
        // reconnects for as long as the process lives, at most a second apart
        retryStrategy: (attempt) => Math.min(attempt * 100, 1000)
      })
      // Connection errors are answered per command; unheard, ioredis would print them.
      redis.on("error", () => {})
      return redis
    }),
    (redis) => Effect.sync(() => redis.disconnect())
  ).pipe(Effect.tap((redis) => awaitReady(redis, Duration.millis(checked.connectTimeoutMillis))))

const awaitReady = (redis: Redis, within: Duration.Duration): Effect.Effect<void> =>
  redis.status === "ready" ? Effect.void : Effect.async<void>((resume) => {
    const ready = () => resume(Effect.void)
    redis.once("ready", ready)
    return Effect.sync(() => void redis.off("ready", ready))
  }).pipe(Effect.timeoutTo({ duration: within, onSuccess: () => undefined, onTimeout: () => undefined }))
