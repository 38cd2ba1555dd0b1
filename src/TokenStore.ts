/**
 * `TokenStore`: where a `TokenService` looks for a token before it asks the token endpoint, and what
 * it tells when a token is refused. The default (`memory`) is this process alone; `layerRedis`
 * shares one token per client across a fleet of processes, with one fetch at a time fleet-wide (a
 * lock its holder renews while it fetches and that expires when it dies, so a dead holder does
 * not block the fleet), compare-and-delete invalidation, and a record of the tokens refused by any
 * process, which the store never hands out again. A `TokenService` uses the `TokenStore` it finds
 * in its context.
 *
 * @since 0.2.0
 */
import { Clock, type ConfigError, Context, DateTime, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHash, randomUUID } from "node:crypto"
import * as AccessToken from "./AccessToken.js"
import type { TokenError } from "./ApiError.js"
import { FleetRedis } from "./FleetRedis.js"
import type { ClientIdentity } from "./FleetRedis.js"
import { checkStoreOptions, storeDefaults } from "./internal/fleetOptions.js"

/**
 * A token and where it came from.
 *
 * @since 0.2.0
 * @category models
 */
export interface Obtained {
  readonly token: AccessToken.AccessToken
  /** `true` when another process fetched it; `false` when `fetch` ran here. */
  readonly shared: boolean
}

/**
 * The store of one client's token.
 *
 * @since 0.2.0
 * @category models
 */
export interface ClientTokens {
  /**
   * A token that `accept` takes (given the time in epoch milliseconds), from the store; failing
   * that, `fetch` run here, its token stored for the others. Never fails but with `fetch`'s error.
   */
  readonly obtain: (
    fetch: Effect.Effect<AccessToken.AccessToken, TokenError>,
    accept: (token: AccessToken.AccessToken, now: number) => boolean
  ) => Effect.Effect<Obtained, TokenError>
  /**
   * Records `token` as refused, for every process, until it expires, and removes it from the store
   * if it is still the stored one: the store hands out no refused token it has heard of. While the
   * store is away it keeps trying, at once when the store is back, until it is heard or the token
   * has expired: a refused token never outlives an outage in the store. Run it in the background;
   * never fails.
   */
  readonly invalidate: (token: AccessToken.AccessToken) => Effect.Effect<void>
}

/**
 * Where tokens are kept: this process alone, or a fleet's Redis.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The store of one client id's token (keyed by token URL and client id). Never fails. */
  readonly forClient: (client: ClientIdentity) => ClientTokens
}

/**
 * The store a `TokenService` keeps its token in; with none in context, `memory`.
 *
 * @since 0.2.0
 * @category tags
 */
export class TokenStore extends Context.Tag("effect-design-search/TokenStore")<TokenStore, Service>() {}

const alone: ClientTokens = {
  obtain: (fetch) => Effect.map(fetch, (token) => ({ token, shared: false })),
  invalidate: () => Effect.void
}

/**
 * This process alone: every token is fetched here; what `TokenService` does with no store.
 *
 * @since 0.2.0
 * @category stores
 */
export const memory: Service = { forClient: () => alone }

/**
 * Options of `makeRedis` and `layerRedis`.
 *
 * @since 0.2.0
 * @category options
 */
export interface RedisOptions {
  /**
   * Expiry of the fetch lock (default 10 s), which its holder renews every third of it while it
   * fetches: how long the fleet waits on a holder that died before another process takes the lock.
   */
  readonly lockTtl?: Duration.DurationInput | undefined
  /**
   * The longest a process waits for another one's fetch (default 30 s), however long the holder
   * keeps its lock; then it fetches itself.
   */
  readonly maxWait?: Duration.DurationInput | undefined
}

/**
 * Defaults of `RedisOptions`.
 *
 * @since 0.2.0
 * @category constants
 */
export const redisDefaults: typeof storeDefaults = storeDefaults

/**
 * The stored form: one JSON text, written and read by this module only. What is read back is held
 * to the rules of a token response: a token another writer left there that no header could carry,
 * or of another type, is no token.
 */
const Stored = Schema.parseJson(Schema.Struct({
  token: AccessToken.AccessTokenValue,
  tokenType: AccessToken.TokenType,
  issuedAt: Schema.Int,
  expiresAt: Schema.Int
}))
const decodeStored = Schema.decodeUnknownOption(Stored)

/** Canonical, so that compare-and-delete can match what another process wrote for the same token. */
const encode = (token: AccessToken.AccessToken): string =>
  JSON.stringify({
    token: Redacted.value(token.token),
    tokenType: token.tokenType,
    issuedAt: DateTime.toEpochMillis(token.issuedAt),
    expiresAt: DateTime.toEpochMillis(token.expiresAt)
  })

const decode = (text: unknown): Option.Option<AccessToken.AccessToken> =>
  Option.map(decodeStored(text), (s) => ({
    token: Redacted.make(s.token),
    tokenType: s.tokenType,
    issuedAt: DateTime.unsafeMake(s.issuedAt),
    expiresAt: DateTime.unsafeMake(s.expiresAt)
  }))

/** Deletes `KEYS[1]` only while it holds `ARGV[1]`. */
const compareAndDelete = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`

/**
 * Records a refused token: sets its mark `KEYS[2]` for `ARGV[2]` milliseconds (the token's remaining
 * life), then deletes the token `KEYS[1]` only while it holds `ARGV[1]`. One script, so that no
 * process can take the token between the two.
 */
const refuse = `redis.call("SET", KEYS[2], "1", "PX", ARGV[2])
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`

/**
 * The stored token `KEYS[1]`, unless it is marked refused (a mark under `ARGV[1]` followed by the
 * SHA-1 of its token string, what `markOf` names): then it is deleted and nothing is answered.
 * Marks are read under the token key's own hash tag, so they share its Redis Cluster slot.
 */
const loadUnrefused = `local stored = redis.call("GET", KEYS[1])
if not stored then return false end
local ok, value = pcall(cjson.decode, stored)
if ok and type(value) == "table" and type(value.token) == "string"
  and redis.call("EXISTS", ARGV[1] .. redis.sha1hex(value.token)) == 1 then
  redis.call("DEL", KEYS[1])
  return false
end
return stored`

/** The mark of a refused token under `prefix`: a digest of the token, never the token. */
const markOf = (prefix: string, token: AccessToken.AccessToken): string =>
  prefix + createHash("sha1").update(Redacted.value(token.token)).digest("hex")

/** Sets the expiry of `KEYS[1]` to `ARGV[2]` milliseconds only while it holds `ARGV[1]`. */
const compareAndExpire =
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`

/** Waits between tries of an invalidation while Redis is away: 50 ms, doubling up to 1 s, unless it is back sooner. */
const nextRetry = (pause: number) => Math.min(pause * 2, 1000)

/** Waits between looks at the store while another process fetches: 5 ms, doubling up to 100 ms. */
const nextPause = (pause: number) => Math.min(pause * 2, 100)

/**
 * The Redis store over `FleetRedis`. The token lives under a key of its client with a TTL of its
 * remaining life. A process that finds no token it accepts takes the lock and fetches, renewing the
 * lock while it does; the others look again until the token appears, the lock frees (they take it)
 * or `maxWait` has passed (they fetch themselves). When Redis fails, the process fetches on its own:
 * Redis never fails a call.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeRedis = (options: RedisOptions = {}): Effect.Effect<Service, ConfigError.ConfigError, FleetRedis> =>
  Effect.zipWith(checkStoreOptions(options), FleetRedis, ({ lockTtl, maxWait }, redis): Service => {
    const lockMillis = Duration.toMillis(lockTtl)
    const maxWaitMillis = Duration.toMillis(maxWait)
    return {
      forClient: (client) => {
        const tokenKey = redis.key(client, "token")
        const lockKey = redis.key(client, "lock")
        const refusedPrefix = redis.key(client, "refused:")
        const load = Effect.map(redis.command("EVAL", loadUnrefused, 1, tokenKey, refusedPrefix), decode)
        const save = (token: AccessToken.AccessToken) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const remaining = DateTime.toEpochMillis(token.expiresAt) - now
            return remaining > 0
              ? Effect.ignore(redis.command("SET", tokenKey, encode(token), "PX", remaining))
              : Effect.void
          })
        const fetchAndSave = (fetch: Effect.Effect<AccessToken.AccessToken, TokenError>) =>
          Effect.map(Effect.tap(fetch, save), (token): Obtained => ({ token, shared: false }))
        /** Keeps the lock `owner` holds from expiring, for as long as it runs. */
        const renew = (owner: string) =>
          Effect.forever(Effect.zipRight(
            Effect.sleep(Duration.millis(lockMillis / 3)),
            Effect.ignore(redis.command("EVAL", compareAndExpire, 1, lockKey, owner, lockMillis))
          ))
        /** `fetchAndSave` under the lock of `owner`, renewed while the fetch lasts. */
        const fetchHolding = (owner: string, fetch: Effect.Effect<AccessToken.AccessToken, TokenError>) =>
          Effect.scoped(Effect.zipRight(Effect.forkScoped(renew(owner)), fetchAndSave(fetch)))

        const obtain: ClientTokens["obtain"] = (fetch, accept) =>
          Effect.gen(function*() {
            const owner = randomUUID()
            const start = yield* Clock.currentTimeMillis
            const acceptable = (found: Option.Option<AccessToken.AccessToken>, now: number) =>
              Option.isSome(found) && accept(found.value, now) ? Option.some(found.value) : Option.none()
            let pause = 5
            while (true) {
              const now = yield* Clock.currentTimeMillis
              const found = acceptable(yield* load, now)
              if (Option.isSome(found)) return { token: found.value, shared: true }
              // Holding the lock: the release is in place from the moment the lock is taken.
              const held = yield* Effect.acquireUseRelease(
                Effect.map(redis.command("SET", lockKey, owner, "PX", lockMillis, "NX"), (reply) => reply === "OK"),
                (locked) =>
                  locked
                    // the previous holder may have stored its token between our look and our lock
                    ? Effect.flatMap(
                      Effect.zip(Effect.orElseSucceed(load, Option.none), Clock.currentTimeMillis),
                      ([again, at]) =>
                        Option.match(acceptable(again, at), {
                          onNone: () => Effect.asSome(fetchHolding(owner, fetch)),
                          onSome: (token) => Effect.succeedSome<Obtained>({ token, shared: true })
                        })
                    )
                    : Effect.succeedNone,
                (locked) =>
                  locked ? Effect.ignore(redis.command("EVAL", compareAndDelete, 1, lockKey, owner)) : Effect.void
              )
              if (Option.isSome(held)) return held.value
              if (now - start >= maxWaitMillis) return yield* fetchAndSave(fetch)
              yield* Effect.sleep(Duration.millis(pause))
              pause = nextPause(pause)
            }
          }).pipe(Effect.catchTag("FleetUnavailable", () => fetchAndSave(fetch)))

        const invalidate = (token: AccessToken.AccessToken) => {
          const expiresAt = DateTime.toEpochMillis(token.expiresAt)
          const stored = encode(token)
          const mark = markOf(refusedPrefix, token)
          /** One try through `send`; nothing to do for a token that has expired. */
          const tell = (send: typeof redis.command) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              now >= expiresAt
                ? Effect.void
                : Effect.asVoid(send("EVAL", refuse, 2, tokenKey, mark, stored, expiresAt - now)))
          /** Tries again after `pause`, or as soon as Redis is back, until it hears or the token expires. */
          const again = (pause: number): Effect.Effect<void> =>
            Effect.raceFirst(redis.reachable, Effect.sleep(Duration.millis(pause))).pipe(
              Effect.zipRight(tell(redis.command)),
              Effect.catchAll(() =>
                Effect.flatMap(
                  Clock.currentTimeMillis,
                  (now) => now >= expiresAt ? Effect.void : again(nextRetry(pause))
                )
              )
            )
          // The first try goes out even while Redis looks away: a paused Redis runs it first thing
          // when it resumes, even if this process is gone by then.
          return Effect.catchAll(tell(redis.urgent), () => again(50))
        }

        return { obtain, invalidate }
      }
    }
  })

/**
 * `makeRedis` as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (options: RedisOptions = {}): Layer.Layer<TokenStore, ConfigError.ConfigError, FleetRedis> =>
  Layer.effect(TokenStore, makeRedis(options))
