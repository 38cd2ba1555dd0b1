/**
 * The body of `TokenService`: the token cache's state machine. One cached token read from a `Ref`
 * with no I/O; one fetch in flight however many callers wait; a refresh ahead of expiry only for a
 * token in use; a compare-and-clear `invalidate` for 401s. Time comes from Effect's `Clock`.
 */
import { HttpClient } from "@effect/platform"
import {
  Clock,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Exit,
  FiberHandle,
  FiberId,
  Option,
  Queue,
  Redacted,
  Ref,
  Tracer
} from "effect"
import type { Schedule } from "effect"
import * as AccessToken from "../../AccessToken.js"
import { TokenError } from "../../ApiError.js"
import { DesignSearchConfig } from "../../DesignSearchConfig.js"
import * as TokenStore from "../../TokenStore.js"
import { withOwnSpan } from "../tracing.js"
import * as TokenEndpoint from "./endpoint.js"

interface State {
  readonly token: AccessToken.AccessToken | undefined
  /** Until when `token` is handed out (epoch milliseconds): its expiry less the skew. */
  readonly validUntil: number
  /** Whether `token` was handed out from the cache since it was fetched. */
  readonly used: boolean
  readonly inflight: Deferred.Deferred<AccessToken.AccessToken, TokenError> | undefined
  /** The fetch in flight for `renew`, which takes no token from the store, and when it began. */
  readonly renewal: {
    readonly deferred: Deferred.Deferred<AccessToken.AccessToken, TokenError>
    readonly since: number
  } | undefined
}

const isTransient = (error: TokenError): boolean => error.reason === "Unavailable"

/** How many refused tokens a service remembers at most (each until it expires). */
const maxRefused = 1024

/**
 * Builds the service in the current scope: the refresh fiber and any fetch in flight are bound to
 * it and stop when it closes. It uses the `TokenStore` of its context, if any, and retries
 * transient failures of the token endpoint on `retrySchedule`.
 */
export const make = (retrySchedule: Schedule.Schedule<unknown, TokenError>) =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig
    const client = yield* HttpClient.HttpClient
    const limits = { timeout: config.tokenTimeout, maxBodyBytes: config.maxBodyBytes }
    const scope = yield* Effect.scope
    const state = yield* Ref.make<State>({
      token: undefined,
      validUntil: 0,
      used: false,
      inflight: undefined,
      renewal: undefined
    })
    const refreshFiber = yield* FiberHandle.make<void, never>()
    const counters = { tokenRequests: 0, waits: 0, refreshes: 0, sharedTokens: 0 }
    const store = Option.match(yield* Effect.serviceOption(TokenStore.TokenStore), {
      onNone: () => TokenStore.memory,
      onSome: (s) => s
    }).forClient({ tokenUrl: config.tokenUrl, clientId: config.clientId })
    // Token fetches and refreshes are spans of their own (`TokenService.fetch`, `.refresh`), under
    // the span the service is built in, or root spans when it is built in none; a fetch is linked
    // to the span of the call that started it. Why not that call's span: `withOwnSpan`.
    const owner = yield* Effect.serviceOption(Tracer.ParentSpan)
    const skewMillis = Duration.toMillis(config.expirySkew)
    const refreshBeforeMillis = Duration.toMillis(config.refreshBefore)

    /**
     * Tokens fetched here, with when their request was sent (epoch milliseconds): whether a token
     * was fetched after a refusal is known only of these; a store's token is another object.
     */
    const fetchedHere = new WeakMap<AccessToken.AccessToken, number>()
    const fetchedSince = (token: AccessToken.AccessToken, since: number) =>
      (fetchedHere.get(token) ?? Number.NEGATIVE_INFINITY) >= since
    /** One token request, counted, its token remembered as fetched here. */
    const requestToken = Effect.clockWith((clock) => {
      counters.tokenRequests++
      const sent = clock.unsafeCurrentTimeMillis()
      return Effect.tap(
        TokenEndpoint.requestToken(client, config, config.tokenUrl, limits),
        (token) => void fetchedHere.set(token, sent)
      )
    })
    const expiresMillis = (token: AccessToken.AccessToken) => DateTime.toEpochMillis(token.expiresAt)
    // The skew is at most a tenth of the token's life, so that a short-lived token is still usable.
    const validUntil = (token: AccessToken.AccessToken) =>
      expiresMillis(token) - Math.min(skewMillis, Duration.toMillis(AccessToken.lifetime(token)) / 10)

    /**
     * Tokens refused with a 401 (token string → expiry, epoch milliseconds): none is handed out
     * again while it lives, whatever a store still holding it answers. Expired ones are let go;
     * past `maxRefused`, the oldest.
     */
    const refused = new Map<string, number>()
    const isRefused = (token: AccessToken.AccessToken) => refused.has(Redacted.value(token.token))
    const remember = (token: AccessToken.AccessToken, now: number) => {
      for (const [value, expires] of refused) if (expires <= now) refused.delete(value)
      if (refused.size >= maxRefused) refused.delete(refused.keys().next().value ?? "")
      refused.set(Redacted.value(token.token), expiresMillis(token))
    }
    /** `fetch` through the store, which may answer with a token it holds that `accept` takes. */
    const obtain = (
      fetch: Effect.Effect<AccessToken.AccessToken, TokenError>,
      accept: (token: AccessToken.AccessToken, now: number) => boolean
    ) =>
      Effect.map(
        store.obtain(fetch, (token, now) => now < validUntil(token) && !isRefused(token) && accept(token, now)),
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
    const runFetch = (
      deferred: Deferred.Deferred<AccessToken.AccessToken, TokenError>,
      fetch: Effect.Effect<AccessToken.AccessToken, TokenError>
    ) =>
      Effect.onExit(fetch, (exit) =>
        Ref.update(state, (s): State => {
          const flights = {
            inflight: s.inflight === deferred ? undefined : s.inflight,
            renewal: s.renewal?.deferred === deferred ? undefined : s.renewal
          }
          return Exit.isSuccess(exit)
            ? { token: exit.value, validUntil: validUntil(exit.value), used: false, ...flights }
            : { ...s, ...flights }
        }).pipe(
          Effect.zipRight(Deferred.done(deferred, Exit.isInterrupted(exit) ? Exit.fail(closedError) : exit))
        ))

    /** Waits until `refreshBefore` ahead of expiry; refreshes only a token that was used meanwhile. */
    const refreshAhead = (first: AccessToken.AccessToken) =>
      Effect.gen(function*() {
        let cached = first
        while (true) {
          const expiring = cached
          const lifetimeMillis = Duration.toMillis(AccessToken.lifetime(expiring))
          const lead = Math.min(refreshBeforeMillis, lifetimeMillis / 2)
          const now = yield* Clock.currentTimeMillis
          yield* Effect.sleep(Duration.millis(Math.max(0, expiresMillis(expiring) - lead - now)))
          const deferred = Deferred.unsafeMake<AccessToken.AccessToken, TokenError>(FiberId.none)
          const until = validUntil(expiring)
          const stillValid = () => Effect.map(Clock.currentTimeMillis, (t) => t < until)
          // another process of the fleet may have refreshed it already
          const fetch = obtain(
            Effect.retry(requestToken, {
              schedule: retrySchedule,
              while: (e) => isTransient(e) ? stillValid() : Effect.succeed(false)
            }),
            (token) => expiresMillis(token) > expiresMillis(expiring)
          ).pipe(withOwnSpan("TokenService.refresh", owner, false))
          // Claiming the fetch and starting it go together, or its waiters would wait forever.
          const exit = yield* Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(
              Ref.modify(state, (s): [boolean, State] =>
                s.token !== undefined && AccessToken.sameToken(s.token, expiring) && s.used && s.inflight === undefined
                  ? [true, { ...s, inflight: deferred }]
                  : [false, s]),
              (claimed) =>
                claimed
                  ? Effect.sync(() => void counters.refreshes++).pipe(
                    Effect.zipRight(Effect.exit(runFetch(deferred, restore(fetch)))),
                    Effect.map(Option.some)
                  )
                  : Effect.succeed(Option.none())
            )
          )
          if (Option.isNone(exit) || Exit.isFailure(exit.value)) {
            return
          }
          cached = exit.value.value
        }
      })

    /**
     * Starts the one fetch for a cold or expired cache, in the layer's scope so no caller owns it.
     * `get` forks it uninterruptibly; only the request itself is interruptible, so that closing the
     * scope stops it and its waiters still hear of it.
     */
    const startFetch = (
      deferred: Deferred.Deferred<AccessToken.AccessToken, TokenError>,
      fromStore: boolean
    ) =>
      runFetch(
        deferred,
        Effect.interruptible(
          obtain(Effect.retry(requestToken, { schedule: retrySchedule, while: isTransient }), () => fromStore).pipe(
            withOwnSpan("TokenService.fetch", owner, true)
          )
        )
      ).pipe(
        // Only for the token still cached: a newer fetch (after a 401) has started its own refresh.
        Effect.tap((token) =>
          Effect.flatMap(
            Ref.get(state),
            (s) => s.token === token ? FiberHandle.run(refreshFiber, refreshAhead(token)) : Effect.void
          )
        ),
        Effect.forkIn(scope),
        Effect.asVoid
      )

    // Closed, the service answers at once rather than start a fetch nothing would complete, and
    // hands out no token it still holds: a call made after the close fails as one waiting did.
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Effect.sync(() => void (closed = true)),
        Ref.update(state, (s): State => ({ ...s, token: undefined }))
      )
    )

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
            Effect.zipRight(startFetch(deferred, true), restore(Deferred.await(deferred))),
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

    /**
     * Refused tokens the store is still to hear of, told one at a time by one fiber of the scope:
     * the store keeps trying while it is away, and an outage queues the tokens behind it (the oldest
     * let go past `maxRefused`) rather than start a retrying fiber for each.
     */
    const unheard = yield* Queue.sliding<AccessToken.AccessToken>(maxRefused)
    yield* Effect.forkIn(Effect.forever(Effect.flatMap(Queue.take(unheard), store.invalidate)), scope)

    // Concurrent 401s for one token tell the store once; remembering a token and queueing it for
    // the store are not torn apart by an interruption.
    const invalidate = (token: AccessToken.AccessToken) =>
      Effect.uninterruptible(Effect.clockWith((clock) => {
        const told = isRefused(token)
        remember(token, clock.unsafeCurrentTimeMillis())
        return Ref.update(
          state,
          (s) => s.token !== undefined && AccessToken.sameToken(s.token, token) ? { ...s, token: undefined } : s
        ).pipe(Effect.zipRight(told ? Effect.void : Queue.offer(unheard, token)))
      }))

    /**
     * A token fetched here at or after `since`: the cached one, the renewal in flight if it began
     * since, or a new renewal. Not on the path of a call that succeeds; like `acquire`, installing a
     * flight and starting it are not torn apart.
     */
    const fetchedAfter = (since: number): Effect.Effect<AccessToken.AccessToken, TokenError> =>
      Effect.clockWith((clock) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.flatten(Ref.modify(state, (s): [Effect.Effect<AccessToken.AccessToken, TokenError>, State] => {
            const now = clock.unsafeCurrentTimeMillis()
            if (s.token !== undefined && now < s.validUntil && fetchedSince(s.token, since)) {
              return [Effect.succeed(s.token), s.used ? s : { ...s, used: true }]
            }
            if (closed) return [Effect.fail(closedError), s]
            counters.waits++
            if (s.renewal !== undefined && s.renewal.since >= since) {
              return [restore(Deferred.await(s.renewal.deferred)), s]
            }
            const deferred = Deferred.unsafeMake<AccessToken.AccessToken, TokenError>(FiberId.none)
            return [
              Effect.zipRight(startFetch(deferred, false), restore(Deferred.await(deferred))),
              { ...s, renewal: { deferred, since: now } }
            ]
          }))
        )
      )

    const renew = (token: AccessToken.AccessToken, since: number) =>
      Effect.suspend(() => fetchedSince(token, since) ? Effect.succeedNone : Effect.asSome(fetchedAfter(since)))

    return { get, invalidate, renew, stats: Effect.sync(() => ({ ...counters })) }
  })
