/**
 * The `TokenService`: hands out a valid access token, fetching one from the token endpoint only
 * when it must (see `Service`). With a `TokenStore` in its context (`TokenStore.layerRedis`),
 * fetches and refreshes go through it, to share one token across a fleet of processes. The body is
 * in `internal/token/`; see docs/library.md.
 * @since 0.1.0
 */
import { type HttpClient, layerScoped, scheduleBoth, Service as Tag } from "#edition/internal/seam"
import { type Effect, type Layer, type Option, Schedule, type Scope } from "effect"
import type * as AccessToken from "./AccessToken.js"
import type { TokenError } from "./ApiError.js"
import type { DesignSearchConfig } from "./DesignSearchConfig.js"
import { honorRetryAfter } from "./internal/http/retry.js"
import * as Cache from "./internal/token/cache.js"

/**
 * Counters of the service's work since it started.
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  /** Requests sent to the token endpoint, retries included. */
  readonly tokenRequests: number
  /** Calls to `get` that found no usable token and waited on a fetch. */
  readonly waits: number
  /** Refreshes started ahead of expiry. */
  readonly refreshes: number
  /** Tokens taken from the `TokenStore` that another process fetched. */
  readonly sharedTokens: number
}

/**
 * Hands out access tokens: cached, fetched once however many callers ask, refreshed ahead while in use.
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * A token valid for at least the configured skew: the cached one, or a fresh one. Fails with
   * `TokenError` when none could be had (refused credentials, an endpoint unavailable through the
   * retries, an answer that is no token, or the service shut down).
   */
  readonly get: Effect.Effect<AccessToken.AccessToken, TokenError>
  /**
   * Forgets `token` if it is still the cached one (compare-and-clear), so the next `get` fetches a
   * new one, and never hands it out again while it lives, even if a `TokenStore` still holds it
   * (the store is told in the background by one fiber, again until it hears). Called on a 401; a late
   * 401 for an old token leaves a newer token alone. Never fails.
   */
  readonly invalidate: (token: AccessToken.AccessToken) => Effect.Effect<void>
  /**
   * A token to retry a call with after `token` got a 401: `token`'s renewal, one for every call
   * refused with it however late it asks (the cached token if it is another, else one fetch,
   * through the `TokenStore`, which may hand out a token issued after `token`, by any process);
   * none when that renewal was refused too. With `first`, the token of the call's first try, which
   * `token` renewed: none when this service fetched `token` after `first` was refused (the API
   * refuses the tokens fetched since as well: the call fails); otherwise `token`'s own renewal, for
   * a store's token that may predate the refusal. Fails with `TokenError` as `get` does.
   */
  readonly renew: (
    token: AccessToken.AccessToken,
    first?: AccessToken.AccessToken
  ) => Effect.Effect<Option.Option<AccessToken.AccessToken>, TokenError>
  /** The counters of the service's work since it started. Never fails. */
  readonly stats: Effect.Effect<Stats>
}

/**
 * The token service a `DesignSearchClient` takes its tokens from.
 * @since 0.1.0
 * @category tags
 */
export class TokenService extends Tag<TokenService, Service>()("effect-design-search/TokenService") {}

/**
 * How many times `defaultRetrySchedule` tries a token request again.
 * @since 0.3.0
 * @category retries
 */
export const defaultRetries = 4

/**
 * Backoff of token requests that failed transiently (network, timeout, 408, 429, 5xx): jittered
 * exponential, four retries at most, a 429's `Retry-After` honoured up to 30 seconds.
 * @since 0.1.0
 * @category retries
 */
export const defaultRetrySchedule: Schedule.Schedule<unknown, TokenError> = honorRetryAfter(
  scheduleBoth(Schedule.jittered(Schedule.exponential("500 millis")), Schedule.recurs(defaultRetries)),
  "30 seconds"
)

/**
 * Options of `make` and `layer`.
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** Replaces `defaultRetrySchedule` for transient token endpoint failures. */
  readonly retrySchedule?: Schedule.Schedule<unknown, TokenError> | undefined
}

/**
 * Builds the service in the current scope: the refresh fiber and any fetch in flight are bound to
 * it and stop when it closes. It uses the `TokenStore` of its context, if any.
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, never, DesignSearchConfig | HttpClient.HttpClient | Scope.Scope> =>
  Cache.make(options.retrySchedule ?? defaultRetrySchedule)

/** The layer of the default options, one value: layers built together share what one value builds. */
const layerDefault = layerScoped(TokenService, make())

/**
 * The service, with the `TokenStore` of its context if there is one. Called without options it is
 * always the same layer, so the clients that each provide it (`DesignSearchClient.layer`,
 * `AuthorizedClient.layer`), built together, share one token service: one token, one renewal.
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<TokenService, never, DesignSearchConfig | HttpClient.HttpClient> =>
  options === undefined ? layerDefault : layerScoped(TokenService, make(options))
