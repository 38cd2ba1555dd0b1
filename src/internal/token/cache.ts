/**
 * The body of `TokenService`: the token cache's state machine. One cached token read from a `Ref`
 * with no I/O; one fetch in flight however many callers wait; a refresh ahead of expiry only for a
 * token in use; a compare-and-clear `invalidate` for 401s. Time comes from Effect's `Clock`.
 */
import { clockMillis, exitInterrupted, forkInUninterruptible, whileInputEffect } from "#edition/internal/seam"
import { HttpClient } from "#edition/internal/seam"
import { Clock, DateTime, Deferred, Duration, Effect, Exit, FiberHandle, Option } from "effect"
import { Queue, Redacted, Ref, type Schedule, type Scope, Tracer } from "effect"
import * as AccessToken from "../../AccessToken.js"
import { TokenError } from "../../ApiError.js"
import { DesignSearchConfig, type Settings } from "../../DesignSearchConfig.js"
import * as TokenStore from "../../TokenStore.js"
import { retryTransient } from "../http/retry.js"
import { toldRetries } from "../waits.js"
import * as TokenEndpoint from "./endpoint.js"

type Token = AccessToken.AccessToken
type Fetch = Effect.Effect<Token, TokenError>
/** One fetch's outcome, for every caller that waits on it. */
type Flight = Deferred.Deferred<Token, TokenError>

interface State {
  readonly token: Token | undefined
  /** Until when `token` is handed out (epoch milliseconds): its expiry less the skew. */
  readonly validUntil: number
  /** Whether `token` was handed out from the cache since it was fetched. */
  readonly used: boolean
  readonly inflight: Flight | undefined
}

const empty: State = { token: undefined, validUntil: 0, used: false, inflight: undefined }

/** A token refused with a 401: until when it lives, how many token requests had begun when it was first refused, and its renewal. */
interface Refusal {
  readonly expires: number
  readonly requests: number
  renewal: Token | undefined
}

/** What the pieces of one service share. */
interface Cache {
  readonly config: Settings
  readonly client: HttpClient.HttpClient
  readonly retrySchedule: Schedule.Schedule<unknown, TokenError>
  readonly scope: Scope.Scope
  readonly state: Ref.Ref<State>
  readonly refreshFiber: FiberHandle.FiberHandle<void, never>
  readonly counters: { tokenRequests: number; waits: number; refreshes: number; sharedTokens: number }
  readonly store: TokenStore.ClientTokens
  /** The span the service is built in: the parent of its fetches' spans (`withOwnSpan`). */
  readonly owner: Option.Option<Tracer.AnySpan>
  /** Tokens fetched here, with how many token requests had begun before theirs: a store's token is another object. */
  readonly fetchedHere: WeakMap<Token, number>
  /** Tokens refused with a 401, by value: none is handed out again while it lives. */
  readonly refused: Map<string, Refusal>
  /**
   * Refused tokens the store is still to hear of, told one at a time by one fiber: an outage
   * queues them (the oldest let go past `maxRefused`) rather than start a retrying fiber for each.
   */
  readonly unheard: Queue.Queue<Token>
  closed: boolean
}

/** The answer of a fetch stopped by the layer's scope closing, and of a call made after it. */
const closedError = new TokenError({ reason: "Unavailable", detail: "the token service was shut down" })
const isTransient = (error: TokenError): boolean => error.reason === "Unavailable"
const newFlight = Deferred.make<Token, TokenError>()
/** How many refused tokens a service remembers at most (each until it expires). */
const maxRefused = 1024

const expiresMillis = (token: Token) => DateTime.toEpochMillis(token.expiresAt)
const lifeMillis = (token: Token) => Duration.toMillis(AccessToken.lifetime(token))
// The skew is at most a tenth of the token's life, so that a short-lived token is still usable.
const validUntil = (c: Cache, token: Token) =>
  expiresMillis(token) - Math.min(Duration.toMillis(c.config.expirySkew), lifeMillis(token) / 10)
const issuedMillis = (token: Token) => DateTime.toEpochMillis(token.issuedAt)
/** Whether `token` is the cached one. */
const holds = (s: State, token: Token) => s.token !== undefined && AccessToken.sameToken(s.token, token)

const isRefused = (c: Cache, token: Token) => c.refused.has(Redacted.value(token.token))
const remember = (c: Cache, token: Token, now: number) => {
  for (const [value, { expires }] of c.refused) if (expires <= now) c.refused.delete(value)
  if (isRefused(c, token)) return
  if (c.refused.size >= maxRefused) c.refused.delete(c.refused.keys().next().value ?? "")
  const refusal = { expires: expiresMillis(token), requests: c.counters.tokenRequests, renewal: undefined }
  c.refused.set(Redacted.value(token.token), refusal)
}

/**
 * `effect` as a span of the service (`c.owner`), or a root span, rather than of the caller that
 * happened to start it: a fetch serves every caller until the token expires, and would outlive
 * the first one's request if it were interrupted. A link leads from that caller (`linkCaller`).
 */
const withOwnSpan = (c: Cache, name: string, linkCaller: boolean) => (effect: Fetch): Fetch =>
  Effect.flatMap(Effect.option(Effect.currentSpan), (caller) => {
    // `_tag` is Effect 3's `SpanLink`'s; Effect 4's has none, and reads none
    const links = Option.toArray(Option.map(caller, (span) => ({ _tag: "SpanLink", span, attributes: {} }) as const))
    return Effect.withSpan(effect, name, {
      kind: "client",
      parent: Option.getOrUndefined(c.owner),
      root: true,
      links: linkCaller ? links : []
    })
  })

/** One token request, counted, its token remembered as fetched here. */
const requestToken = (c: Cache): Fetch =>
  Effect.suspend(() => {
    const before = c.counters.tokenRequests++
    const limits = { timeout: c.config.tokenTimeout, maxBodyBytes: c.config.maxBodyBytes }
    return Effect.tap(
      TokenEndpoint.requestToken(c.client, c.config, c.config.tokenUrl, limits),
      (token) => Effect.sync(() => c.fetchedHere.set(token, before))
    )
  })

/** Token requests, transient failures retried on the service's schedule while `holding` holds. */
const requestRetried = (c: Cache, holding = Effect.succeed(true)): Fetch =>
  retryTransient(requestToken(c), isTransient, toldRetries(whileInputEffect(c.retrySchedule, () => holding)))

/** `fetch` through the store, which may answer with a token it holds that `accept` takes. */
const obtain = (c: Cache, fetch: Fetch, accept: (token: Token, now: number) => boolean): Fetch =>
  Effect.map(
    c.store.obtain(fetch, (token, now) => now < validUntil(c, token) && !isRefused(c, token) && accept(token, now)),
    (obtained) => {
      if (obtained.shared) c.counters.sharedTokens++
      return obtained.token
    }
  )

/**
 * Waits until `refreshBefore` ahead of `cached`'s expiry, then refreshes it if it is still cached,
 * was used, and no fetch is in flight. It retries while `cached` is handed out; once callers wait on
 * it instead, it starts over with every retry a fetch they started would have had.
 */
const refreshAhead = (c: Cache, cached: Token) =>
  Effect.gen(function*() {
    const lead = Math.min(Duration.toMillis(c.config.refreshBefore), lifeMillis(cached) / 2)
    const now = yield* Clock.currentTimeMillis
    yield* Effect.sleep(Duration.millis(Math.max(0, expiresMillis(cached) - lead - now)))
    const handedOut = Effect.zipWith(Ref.get(c.state), Clock.currentTimeMillis, (s, t) =>
      holds(s, cached) && t < s.validUntil)
    // another process of the fleet may have refreshed it already
    const newer = (token: Token) =>
      expiresMillis(token) > expiresMillis(cached)
    const fetch = obtain(c, requestRetried(c, handedOut), newer).pipe(
      Effect.catchIf(isTransient, (e) =>
        Effect.flatMap(handedOut, (still) =>
          still ? Effect.fail(e) : obtain(c, requestRetried(c), newer))),
      withOwnSpan(c, "TokenService.refresh", false)
    )
    const deferred = yield* newFlight
    // Claiming the fetch and starting it go together, or its waiters would wait forever.
    yield* Effect.flatten(Ref.modify(c.state, (s): [Effect.Effect<void>, State] => {
      if (!holds(s, cached) || !s.used || s.inflight !== undefined) {
        return [Effect.void, s]
      }
      c.counters.refreshes++
      return [startFetch(c, deferred, fetch), { ...s, inflight: deferred }]
    })).pipe(Effect.uninterruptible)
  })

/**
 * Starts `fetch` for `deferred`, in the layer's scope so no caller owns it: stores its token, then
 * completes every waiter, and starts the refresh of that token. Forked uninterruptibly; only the
 * request itself is interruptible, so that closing the scope stops it and its waiters still hear
 * of it (with an error).
 */
const startFetch = (c: Cache, deferred: Flight, fetch: Fetch): Effect.Effect<void> =>
  Effect.interruptible(fetch).pipe(
    Effect.onExit((exit) =>
      Ref.update(c.state, (s): State => {
        const flights = {
          inflight: s.inflight === deferred ? undefined : s.inflight
        }
        return Exit.isSuccess(exit)
          ? { token: exit.value, validUntil: validUntil(c, exit.value), used: false, ...flights }
          : { ...s, ...flights }
      }).pipe(Effect.andThen(Deferred.done(deferred, exitInterrupted(exit) ? Exit.fail(closedError) : exit)))
    ),
    // Only for the token still cached: a newer fetch (after a 401) has started its own refresh.
    Effect.tap((token) =>
      Effect.flatMap(
        Ref.get(c.state),
        (s) => s.token === token ? FiberHandle.run(c.refreshFiber, refreshAhead(c, token)) : Effect.void
      )
    ),
    // its outcome reaches every waiter through the flight: the fiber itself has no one to tell
    Effect.ignore,
    forkInUninterruptible(c.scope),
    Effect.asVoid
  )

/**
 * The cached token if usable, else the one fetch for it, joined or started; for the renewal of a
 * `refused` token, the cached one if it is another, and from the store only a token issued after
 * it. Installing a flight and starting its fetch are not torn apart by an interruption, or every
 * later caller would wait on a fetch that never starts.
 */
const claim = (c: Cache, refused?: Token): Fetch =>
  Effect.clockWith((clock) =>
    Effect.uninterruptibleMask((restore) =>
      // what the caller is to run next, and the state it leaves
      Effect.flatMap(newFlight, (deferred) =>
        Effect.flatten(Ref.modify(c.state, (s): [Fetch, State] => {
          const other = s.token !== undefined && (refused === undefined || !AccessToken.sameToken(s.token, refused))
          if (s.token !== undefined && other && clockMillis(clock) < s.validUntil) {
            return [Effect.succeed(s.token), s.used ? s : { ...s, used: true }]
          }
          if (c.closed) return [Effect.fail(closedError), s]
          c.counters.waits++
          if (s.inflight !== undefined) return [restore(Deferred.await(s.inflight)), s]
          const newer = (token: Token) => refused === undefined || issuedMillis(token) > issuedMillis(refused)
          const fetch = obtain(c, requestRetried(c), newer)
          const started = startFetch(c, deferred, withOwnSpan(c, "TokenService.fetch", true)(fetch))
          return [Effect.andThen(started, restore(Deferred.await(deferred))), { ...s, inflight: deferred }]
        })))
    )
  )

// The common case, a usable token already marked used, is one read and no write.
const get = (c: Cache): Fetch =>
  Effect.clockWith((clock) =>
    Effect.flatMap(
      Ref.get(c.state),
      (s) =>
        s.used && s.token !== undefined && clockMillis(clock) < s.validUntil
          ? Effect.succeed(s.token)
          : claim(c)
    )
  )

// Concurrent 401s for one token tell the store once; remembering a token and queueing it for
// the store are not torn apart by an interruption.
const invalidate = (c: Cache) => (token: Token): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.clockWith((clock) => {
    const told = isRefused(c, token)
    remember(c, token, clockMillis(clock))
    const cleared = Ref.update(c.state, (s) => holds(s, token) ? { ...s, token: undefined } : s)
    return Effect.andThen(cleared, told ? Effect.void : Queue.offer(c.unheard, token))
  }))

/** A refusal's renewal, or, where that was refused and renewed in turn, the last of that line. */
const latestRenewal = (c: Cache, refusal: Refusal | undefined): Token | undefined => {
  let renewal = refusal?.renewal
  for (let n = 0; renewal !== undefined && n < maxRefused; n++) {
    const next: Token | undefined = c.refused.get(Redacted.value(renewal.token))?.renewal
    if (next === undefined) break
    renewal = next
  }
  return renewal
}

/**
 * One renewal per refused token, for every call refused with it however late it asks: a herd
 * refused together makes one fetch, and a straggler is not handed a third token.
 */
const renew = (c: Cache) => (token: Token, first?: Token): Effect.Effect<Option.Option<Token>, TokenError> =>
  Effect.clockWith((clock) => {
    const firstRefused = first === undefined ? undefined : c.refused.get(Redacted.value(first.token))
    const fetchedAt = c.fetchedHere.get(token)
    if (firstRefused !== undefined && fetchedAt !== undefined && fetchedAt >= firstRefused.requests) {
      return Effect.succeedNone
    }
    const refusal = c.refused.get(Redacted.value(token.token))
    const renewal = latestRenewal(c, refusal)
    if (renewal !== undefined && clockMillis(clock) < validUntil(c, renewal)) {
      return Effect.succeed(isRefused(c, renewal) ? Option.none() : Option.some(renewal))
    }
    return Effect.map(claim(c, token), (fresh) => {
      if (refusal !== undefined) refusal.renewal = fresh
      return Option.some(fresh)
    })
  })

/** `TokenService.make`, transient failures of the token endpoint retried on `retrySchedule`. */
export const make = (retrySchedule: Schedule.Schedule<unknown, TokenError>) =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig
    const c: Cache = {
      config,
      client: yield* HttpClient.HttpClient,
      retrySchedule,
      scope: yield* Effect.scope,
      state: yield* Ref.make(empty),
      refreshFiber: yield* FiberHandle.make<void, never>(),
      counters: { tokenRequests: 0, waits: 0, refreshes: 0, sharedTokens: 0 },
      store: Option.getOrElse(yield* Effect.serviceOption(TokenStore.TokenStore), () => TokenStore.memory)
        .forClient({ tokenUrl: config.tokenUrl, clientId: config.clientId }),
      owner: yield* Effect.serviceOption(Tracer.ParentSpan),
      fetchedHere: new WeakMap(),
      refused: new Map(),
      unheard: yield* Queue.sliding<Token>(maxRefused),
      closed: false
    }
    // Closed, the service answers at once rather than start a fetch nothing would complete, and
    // hands out no token it still holds: a call made after the close fails as one waiting did.
    yield* Effect.addFinalizer(() =>
      Effect.andThen(
        Effect.sync(() => void (c.closed = true)),
        Ref.update(c.state, (s): State => ({ ...s, token: undefined }))
      )
    )
    yield* Effect.forkIn(Effect.forever(Effect.flatMap(Queue.take(c.unheard), c.store.invalidate)), c.scope)
    return { get: get(c), invalidate: invalidate(c), renew: renew(c), stats: Effect.sync(() => ({ ...c.counters })) }
  })
