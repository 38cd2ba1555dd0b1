/**
 * `TokenStore`: where a `TokenService` looks for a token before it asks the token endpoint, and what
 * it tells when a token is refused. `memory` is this process alone; `layerRedis` shares one token
 * per client across a fleet (of either edition), fetched by one process at a time, and never hands
 * out a token any process saw refused. A `TokenService` uses the one in its context. See docs/fleet.md.
 * @since 0.2.0
 */
import { type ConfigErrorType, type DurationInput, Service as Tag } from "#edition/internal/seam"
import { Effect, Layer } from "effect"
import type * as AccessToken from "./AccessToken.js"
import type { TokenError } from "./ApiError.js"
import { FleetRedis } from "./FleetRedis.js"
import type { ClientIdentity } from "./FleetRedis.js"
import { checkStore, storeDefaults } from "./internal/fleet/options.js"
import { clientTokens } from "./internal/fleet/tokenStore.js"

/**
 * A token and where it came from.
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
 * @since 0.2.0
 * @category models
 */
export interface ClientTokens {
  /** A stored token `accept` takes (at a time in epoch ms), else `fetch`'s, stored; fails as `fetch` does. */
  readonly obtain: (
    fetch: Effect.Effect<AccessToken.AccessToken, TokenError>,
    accept: (token: AccessToken.AccessToken, now: number) => boolean
  ) => Effect.Effect<Obtained, TokenError>
  /**
   * Records `token` as refused for every process while it lives, and removes it if stored; while
   * the store is away, tries until heard or expired. Run it in the background; never fails.
   */
  readonly invalidate: (token: AccessToken.AccessToken) => Effect.Effect<void>
}

/**
 * Where tokens are kept: this process alone, or a fleet's Redis.
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The store of one client id's token (keyed by token URL and client id). Never fails. */
  readonly forClient: (client: ClientIdentity) => ClientTokens
}

/**
 * The store a `TokenService` keeps its token in; with none in context, `memory`.
 * @since 0.2.0
 * @category tags
 */
export class TokenStore extends Tag<TokenStore, Service>()("effect-design-search/TokenStore") {}

/**
 * This process alone: every token is fetched here; what `TokenService` does with no store.
 * @since 0.2.0
 * @category stores
 */
export const memory: Service = {
  forClient: () => ({
    obtain: (fetch) => Effect.map(fetch, (token) => ({ token, shared: false })),
    invalidate: () => Effect.void
  })
}

/**
 * Options of `makeRedis` and `layerRedis`.
 * @since 0.2.0
 * @category options
 */
export interface RedisOptions {
  /** Expiry of the fetch lock (default 10 s), renewed while its holder fetches: how long a dead one blocks. */
  readonly lockTtl?: DurationInput | undefined
  /** The longest a process waits for another one's fetch (default 30 s); then it fetches itself. */
  readonly maxWait?: DurationInput | undefined
}

/**
 * Defaults of `RedisOptions`.
 * @since 0.2.0
 * @category constants
 */
export const redisDefaults: typeof storeDefaults = storeDefaults

/**
 * The Redis store over `FleetRedis`: a process with no token it accepts fetches under a lock while
 * the others wait for its token, for at most `maxWait`. When Redis fails, the process fetches on
 * its own: Redis never fails a call.
 * @since 0.2.0
 * @category constructors
 */
export const makeRedis = (options: RedisOptions = {}): Effect.Effect<Service, ConfigErrorType, FleetRedis> =>
  Effect.zipWith(checkStore(options), FleetRedis, (settings, redis): Service => ({
    forClient: (client) => clientTokens(redis, settings, client)
  }))

/**
 * `makeRedis` as a layer.
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (options: RedisOptions = {}): Layer.Layer<TokenStore, ConfigErrorType, FleetRedis> =>
  Layer.effect(TokenStore, makeRedis(options))
