/**
 * The `TokenService`: hands out a valid access token, fetching one from the token endpoint only
 * when it must. One cached token read from a `Ref` with no I/O; one fetch in flight however many
 * callers wait (single flight); a refresh ahead of expiry only for a token that is in use; a
 * compare-and-clear `invalidate` for 401s. Time comes from Effect's `Clock`. With a `TokenStore` in
 * its context (`TokenStore.layerRedis`), fetches and refreshes go through it, to share one token
 * across a fleet of processes.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import {
  Clock,
  Context,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Exit,
  FiberHandle,
  FiberId,
  Layer,
  Option,
  ParseResult,
  Redacted,
  Ref,
  Schedule,
  Schema
} from "effect"
import type { Scope } from "effect"
import * as AccessToken from "./AccessToken.js"
import { TokenError } from "./ApiError.js"
import { DesignSearchConfig } from "./DesignSearchConfig.js"
import type { Settings } from "./DesignSearchConfig.js"
import { excerpt, parseJson, readText } from "./internal/responses.js"
import * as TokenStore from "./TokenStore.js"

/** Counters of the service's work since it started. @since 0.1.0 */
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

/** @since 0.1.0 */
export interface Service {
  /** A token valid for at least the configured skew: the cached one, or a fresh one. */
  readonly get: Effect.Effect<AccessToken.AccessToken, TokenError>
  /**
   * Forgets `token` if it is still the cached one (compare-and-clear), so the next `get` fetches a
   * new one. Called on a 401; a late 401 for an old token leaves a newer token alone.
   */
  readonly invalidate: (token: AccessToken.AccessToken) => Effect.Effect<void>
  readonly stats: Effect.Effect<Stats>
}

/** @since 0.1.0 */
export class TokenService extends Context.Tag("effect-design-search/TokenService")<TokenService, Service>() {}

/**
 * Backoff of token requests that failed transiently (network, timeout, 408, 429, 5xx): jittered
 * exponential, four retries at most.
 *
 * @since 0.1.0
 */
export const defaultRetrySchedule: Schedule.Schedule<unknown, TokenError> = Schedule.exponential("500 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(4))
)

/** @since 0.1.0 */
export interface Options {
  /** Replaces `defaultRetrySchedule` for transient token endpoint failures. */
  readonly retrySchedule?: Schedule.Schedule<unknown, TokenError> | undefined
}

interface State {
  readonly token: AccessToken.AccessToken | undefined
  /** Until when `token` is handed out (epoch milliseconds): its expiry less the skew. */
  readonly validUntil: number
  /** Whether `token` was handed out from the cache since it was fetched. */
  readonly used: boolean
  readonly inflight: Deferred.Deferred<AccessToken.AccessToken, TokenError> | undefined
}

const decodeTokenResponse = Schema.decodeUnknownEither(AccessToken.TokenResponse, { errors: "all" })
const decodeOAuthError = Schema.decodeUnknownOption(AccessToken.OAuthErrorResponse)

/**
 * Describes why a 2xx body is no token response, never echoing the token: issues at the root or
 * at `access_token` are told without the value.
 */
const describeInvalid = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => {
      const path = issue.path.join(".")
      if (path === "") return "expected a JSON object with access_token, expires_in and token_type"
      if (issue._tag === "Missing") return `${path}: is missing`
      return path === "access_token" ? "access_token: expected a non-empty string" : `${path}: ${issue.message}`
    })
    .join("; ")

/**
 * Builds the request of a token and the interpretation of its answer. Exposed for stores that
 * fetch on behalf of a fleet.
 *
 * @since 0.1.0
 */
export const makeRequestToken = (
  config: Settings,
  client: HttpClient.HttpClient
): Effect.Effect<AccessToken.AccessToken, TokenError> => {
  const request = HttpClientRequest.post(config.tokenUrl).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyUrlParams({
      grant_type: "client_credentials",
      client_id: config.clientId,
      client_secret: Redacted.value(config.clientSecret)
    })
  )
  const unavailable = (detail: string, status?: number) =>
    new TokenError(status === undefined ? { reason: "Unavailable", detail } : { reason: "Unavailable", status, detail })
  return Effect.gen(function*() {
    const response = yield* Effect.mapError(
      client.execute(request),
      (e) => unavailable(`${e.reason} error reaching ${config.tokenUrl}${e.description === undefined ? "" : `: ${e.description}`}`)
    )
    const text = yield* readText(response, config.maxBodyBytes).pipe(
      Effect.mapError((e) =>
        e._tag === "TransportError"
          ? unavailable(e.detail, response.status)
          : new TokenError({ reason: "InvalidResponse", status: response.status, detail: e.issue })
      )
    )
    const status = response.status
    if (status >= 200 && status < 300) {
      const decoded = decodeTokenResponse(Option.getOrUndefined(parseJson(text)))
      if (decoded._tag === "Left") {
        return yield* new TokenError({
          reason: "InvalidResponse",
          status,
          detail: `not a token response: ${describeInvalid(decoded.left)}`
        })
      }
      return AccessToken.fromResponse(decoded.right, yield* DateTime.now)
    }
    const oauth = Option.flatMap(parseJson(text), decodeOAuthError)
    const rfc = Option.match(oauth, {
      onNone: () => ({}),
      onSome: (o) => o.error_description === undefined ? { error: o.error } : { error: o.error, errorDescription: o.error_description }
    })
    if (status === 400 || status === 401 || status === 403) {
      return yield* new TokenError({
        reason: "InvalidCredentials",
        status,
        ...rfc,
        detail: "the token endpoint refused the client credentials"
      })
    }
    if (status === 408 || status === 429 || status >= 500) {
      return yield* new TokenError({ reason: "Unavailable", status, ...rfc, detail: excerpt(text) || "no body" })
    }
    return yield* new TokenError({
      reason: "InvalidResponse",
      status,
      ...rfc,
      detail: `unexpected status ${status}: ${excerpt(text) || "no body"}`
    })
  }).pipe(
    Effect.timeoutFail({
      duration: config.tokenTimeout,
      onTimeout: () => unavailable(`no token response within ${Duration.format(config.tokenTimeout)}`)
    })
  )
}

const isTransient = (error: TokenError): boolean => error.reason === "Unavailable"

/**
 * Builds the service in the current scope: the refresh fiber and any fetch in flight are bound to
 * it and stop when it closes. It uses the `TokenStore` of its context, if any.
 *
 * @since 0.1.0
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, never, DesignSearchConfig | HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig
    const client = yield* HttpClient.HttpClient
    const scope = yield* Effect.scope
    const retrySchedule = options.retrySchedule ?? defaultRetrySchedule
    const state = yield* Ref.make<State>({ token: undefined, validUntil: 0, used: false, inflight: undefined })
    const refreshFiber = yield* FiberHandle.make<void, never>()
    const counters = { tokenRequests: 0, waits: 0, refreshes: 0, sharedTokens: 0 }
    const store = Option.match(yield* Effect.serviceOption(TokenStore.TokenStore), {
      onNone: () => TokenStore.memory,
      onSome: (s) => s
    }).forClient({ tokenUrl: config.tokenUrl, clientId: config.clientId })
    const skewMillis = Duration.toMillis(config.expirySkew)
    const refreshBeforeMillis = Duration.toMillis(config.refreshBefore)

    const requestToken = Effect.zipRight(
      Effect.sync(() => void counters.tokenRequests++),
      makeRequestToken(config, client)
    )
    const expiresMillis = (token: AccessToken.AccessToken) => DateTime.toEpochMillis(token.expiresAt)
    // The skew is at most a tenth of the token's life, so that a short-lived token is still usable.
    const validUntil = (token: AccessToken.AccessToken) =>
      expiresMillis(token) - Math.min(skewMillis, Duration.toMillis(AccessToken.lifetime(token)) / 10)

    /** The last token refused with a 401: a store still holding it must not hand it back. */
    let refused: AccessToken.AccessToken | undefined
    /** `fetch` through the store, which may answer with a token it holds that `accept` takes. */
    const obtain = (
      fetch: Effect.Effect<AccessToken.AccessToken, TokenError>,
      accept: (token: AccessToken.AccessToken, now: number) => boolean
    ) =>
      Effect.map(
        store.obtain(fetch, (token, now) =>
          now < validUntil(token) && (refused === undefined || !AccessToken.sameToken(token, refused)) &&
          accept(token, now)),
        (obtained) => {
          if (obtained.shared) counters.sharedTokens++
          return obtained.token
        }
      )

    /** The answer of a fetch stopped by the layer's scope closing, to whoever waits on it. */
    const closedError = new TokenError({ reason: "Unavailable", detail: "the token service was shut down" })
    let closed = false

    /**
     * Runs one fetch for `deferred`: stores the result, then completes every waiter with it. Call
     * it uninterruptibly with `fetch` made interruptible, so that the completion is always in place
     * before an interruption can land; an interrupted fetch completes its waiters with an error.
     */
    const fly = (
      deferred: Deferred.Deferred<AccessToken.AccessToken, TokenError>,
      fetch: Effect.Effect<AccessToken.AccessToken, TokenError>
    ) =>
      Effect.onExit(fetch, (exit) =>
        Ref.update(state, (s): State =>
          Exit.isSuccess(exit)
            ? { token: exit.value, validUntil: validUntil(exit.value), used: false, inflight: undefined }
            : s.inflight === deferred
            ? { ...s, inflight: undefined }
            : s).pipe(
            Effect.zipRight(Deferred.done(deferred, Exit.isInterrupted(exit) ? Exit.fail(closedError) : exit))
          ))

    /** Waits until `refreshBefore` ahead of expiry; refreshes only a token that was used meanwhile. */
    const refreshAhead = (first: AccessToken.AccessToken) =>
      Effect.gen(function*() {
        let current = first
        while (true) {
          const lifetimeMillis = Duration.toMillis(AccessToken.lifetime(current))
          const lead = Math.min(refreshBeforeMillis, lifetimeMillis / 2)
          const now = yield* Clock.currentTimeMillis
          yield* Effect.sleep(Duration.millis(Math.max(0, expiresMillis(current) - lead - now)))
          const deferred = Deferred.unsafeMake<AccessToken.AccessToken, TokenError>(FiberId.none)
          const current_ = current
          const until = validUntil(current_)
          const stillValid = () => Effect.map(Clock.currentTimeMillis, (t) => t < until)
          // another process of the fleet may have refreshed it already
          const fetch = obtain(
            Effect.retry(requestToken, {
              schedule: retrySchedule,
              while: (e) => isTransient(e) ? stillValid() : Effect.succeed(false)
            }),
            (token) => expiresMillis(token) > expiresMillis(current_)
          )
          // Taking the flight and starting it go together, or its waiters would wait forever.
          const exit = yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(
              Ref.modify(state, (s): [boolean, State] =>
                s.token !== undefined && AccessToken.sameToken(s.token, current_) && s.used && s.inflight === undefined
                  ? [true, { ...s, inflight: deferred }]
                  : [false, s]),
              (takeOff) =>
                takeOff
                  ? Effect.sync(() => void counters.refreshes++).pipe(
                    Effect.zipRight(Effect.exit(fly(deferred, restore(fetch)))),
                    Effect.map(Option.some)
                  )
                  : Effect.succeed(Option.none())
            )
          )
          if (Option.isNone(exit) || Exit.isFailure(exit.value)) return
          current = exit.value.value
        }
      })

    /**
     * Starts the one fetch for a cold or expired cache, in the layer's scope so no caller owns it.
     * `get` forks it uninterruptibly; only the request itself is interruptible, so that closing the
     * scope stops it and its waiters still hear of it.
     */
    const startFetch = (deferred: Deferred.Deferred<AccessToken.AccessToken, TokenError>) =>
      fly(
        deferred,
        Effect.interruptible(obtain(Effect.retry(requestToken, { schedule: retrySchedule, while: isTransient }), () => true))
      ).pipe(
        // Only for the token still cached: a newer fetch (after a 401) has started its own refresh.
        Effect.tap((token) =>
          Effect.flatMap(Ref.get(state), (s) =>
            s.token === token ? FiberHandle.run(refreshFiber, refreshAhead(token)) : Effect.void)
        ),
        Effect.forkIn(scope),
        Effect.asVoid
      )

    // Closed, the service answers at once rather than start a fetch nothing would complete.
    yield* Effect.addFinalizer(() => Effect.sync(() => void (closed = true)))

    // Installing a flight and starting its fetch must not be torn apart by an interruption, or
    // every later caller would wait on a fetch that never starts.
    const acquire = (now: number): Effect.Effect<AccessToken.AccessToken, TokenError> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatten(Ref.modify(state, (s): [Effect.Effect<AccessToken.AccessToken, TokenError>, State] => {
          if (s.token !== undefined && now < s.validUntil) {
            return [Effect.succeed(s.token), s.used ? s : { ...s, used: true }]
          }
          if (closed) return [Effect.fail(closedError), s]
          counters.waits++
          if (s.inflight !== undefined) return [restore(Deferred.await(s.inflight)), s]
          const deferred = Deferred.unsafeMake<AccessToken.AccessToken, TokenError>(FiberId.none)
          return [
            Effect.zipRight(startFetch(deferred), restore(Deferred.await(deferred))),
            { ...s, inflight: deferred }
          ]
        }))
      )

    // The common case, a usable token already marked used, is one read and no write (and the
    // clock read in place: the common case is every call's).
    const get: Effect.Effect<AccessToken.AccessToken, TokenError> = Effect.clockWith((clock) =>
      Effect.flatMap(Ref.get(state), (s) => {
        const now = clock.unsafeCurrentTimeMillis()
        return s.used && s.token !== undefined && now < s.validUntil ? Effect.succeed(s.token) : acquire(now)
      })
    )

    // Concurrent 401s for one token tell the store once.
    const invalidate = (token: AccessToken.AccessToken) =>
      Effect.suspend(() => {
        const told = refused !== undefined && AccessToken.sameToken(refused, token)
        refused = token
        return Ref.update(state, (s) =>
          s.token !== undefined && AccessToken.sameToken(s.token, token) ? { ...s, token: undefined } : s).pipe(
            Effect.zipRight(told ? Effect.void : store.invalidate(token))
          )
      })

    return { get, invalidate, stats: Effect.sync((): Stats => ({ ...counters })) } satisfies Service
  })

/** The service, with the `TokenStore` of its context if there is one. @since 0.1.0 */
export const layer = (
  options: Options = {}
): Layer.Layer<TokenService, never, DesignSearchConfig | HttpClient.HttpClient> =>
  Layer.scoped(TokenService, make(options))
