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
import { type ConfigError, Context, type Duration, Effect, Layer } from "effect"
import type * as AccessToken from "./AccessToken.js"
import type { TokenError } from "./ApiError.js"
import { FleetRedis } from "./FleetRedis.js"
import type { ClientIdentity } from "./FleetRedis.js"
import { checkStore, storeDefaults } from "./internal/fleet/options.js"
import { clientTokens } from "./internal/fleet/tokenStore.js"

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
 * The Redis store over `FleetRedis`. A process that finds no token it accepts takes the lock and
 * fetches, renewing the lock while it does; the others look again until the token appears, the
 * lock frees (they take it) or `maxWait` has passed (they fetch themselves). When Redis fails, the
 * process fetches on its own: Redis never fails a call.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeRedis = (options: RedisOptions = {}): Effect.Effect<Service, ConfigError.ConfigError, FleetRedis> =>
  Effect.zipWith(checkStore(options), FleetRedis, (settings, redis): Service => ({
    forClient: (client) => clientTokens(redis, settings, client)
  }))

/**
 * `makeRedis` as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (options: RedisOptions = {}): Layer.Layer<TokenStore, ConfigError.ConfigError, FleetRedis> =>
  Layer.effect(TokenStore, makeRedis(options))
