/**
 * The body of `TokenStore.layerRedis`: one token per client under a key with a TTL of its remaining
 * life, one fetch at a time fleet-wide under a lock its holder renews, compare-and-delete
 * invalidation, and marks of refused tokens the store never hands out again. Redis never fails a
 * call: when it is away, the process fetches on its own. See docs/fleet.md.
 */
import { fromJsonString } from "#edition/internal/domainSchemas"
import { catchAll } from "#edition/internal/seam"
import { Clock, DateTime, Duration, Effect, Option, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import * as AccessToken from "../../AccessToken.js"
import type { TokenError } from "../../ApiError.js"
import { compareAndDelete, compareAndExpire, keyNames, loadUnrefusedToken } from "../../core/fleet/redis.js"
import { refusedMark, refuseToken } from "../../core/fleet/redis.js"
import type { ClientIdentity, FleetUnavailable, Service as Redis } from "../../FleetRedis.js"

type Token = AccessToken.AccessToken
type Fetch = Effect.Effect<Token, TokenError>
type Obtained = { readonly token: Token; readonly shared: boolean }

/**
 * The stored form, held to the rules of a token response whoever wrote it; its text canonical, so
 * that compare-and-delete matches what another process wrote for the same token.
 */
const Stored = fromJsonString(AccessToken.Stored)
const decode = Schema.decodeUnknownOption(Stored)
const encode = Schema.encodeSync(Stored)

/** The store of one client's token in Redis. */
export const clientTokens = (
  redis: Redis,
  settings: { readonly lockMillis: number; readonly maxWaitMillis: number },
  client: ClientIdentity
) => {
  const { lockMillis, maxWaitMillis } = settings
  const tokenKey = redis.key(client, keyNames.token)
  const lockKey = redis.key(client, keyNames.lock)
  const refusedPrefix = redis.key(client, keyNames.refused)
  const load = Effect.map(redis.command("EVAL", loadUnrefusedToken, 1, tokenKey, refusedPrefix), decode)
  const save = (token: Token) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const remaining = DateTime.toEpochMillis(token.expiresAt) - now
      return remaining > 0 ? Effect.ignore(redis.command("SET", tokenKey, encode(token), "PX", remaining)) : Effect.void
    })
  const fetchAndSave = (fetch: Fetch) =>
    Effect.map(Effect.tap(fetch, save), (token): Obtained => ({ token, shared: false }))
  /** `fetchAndSave` under the lock of `owner`, renewed every third of its life while the fetch lasts. */
  const fetchHolding = (owner: string, fetch: Fetch) => {
    const renew = Effect.ignore(redis.command("EVAL", compareAndExpire, 1, lockKey, owner, lockMillis))
    const renewing = Effect.forever(Effect.andThen(Effect.sleep(Duration.millis(lockMillis / 3)), renew))
    return Effect.scoped(Effect.andThen(Effect.forkScoped(renewing), fetchAndSave(fetch)))
  }

  const obtain = (
    fetch: Fetch,
    accept: (token: Token, now: number) => boolean
  ): Effect.Effect<Obtained, TokenError> => {
    const acceptable = Effect.zipWith(
      load,
      Clock.currentTimeMillis,
      (found, now) =>
        Option.map(Option.filter(found, (token) => accept(token, now)), (token): Obtained => ({ token, shared: true }))
    )
    /** Holding the lock: the token the previous holder stored after our look, else one fetched here. */
    const holding = (owner: string) =>
      Effect.flatMap(
        Effect.orElseSucceed(acceptable, () => Option.none<Obtained>()),
        Option.match({ onSome: Effect.succeed, onNone: () => fetchHolding(owner, fetch) })
      )
    /** A stored token accepted; else, if the lock is free, one obtained holding it; else none yet. */
    const round = (owner: string) =>
      Effect.flatMap(
        acceptable,
        (found) =>
          Option.isSome(found) ? Effect.succeed(found) : Effect.acquireUseRelease(
            Effect.map(redis.command("SET", lockKey, owner, "PX", lockMillis, "NX"), (reply) => reply === "OK"),
            (locked): Effect.Effect<Option.Option<Obtained>, TokenError> =>
              locked ? Effect.asSome(holding(owner)) : Effect.succeedNone,
            (locked) => locked ? Effect.ignore(redis.command("EVAL", compareAndDelete, 1, lockKey, owner)) : Effect.void
          )
      )
    /** Another process fetches: look again, 5 ms doubling to 100 ms apart, for at most `maxWait`. */
    const looking = (pause: number, first?: number): Effect.Effect<Obtained, TokenError | FleetUnavailable> =>
      Effect.flatMap(
        Effect.suspend(() => round(randomUUID())),
        Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              now - (first ?? now) < maxWaitMillis
                ? Effect.andThen(Effect.sleep(Duration.millis(pause)), looking(Math.min(pause * 2, 100), first ?? now))
                : fetchAndSave(fetch))
        })
      )
    return Effect.catchTag(looking(5), "FleetUnavailable", () => fetchAndSave(fetch))
  }

  /**
   * Marks `token` refused and deletes it if stored. The first try goes out even while Redis looks
   * away; then again when Redis is back or 50 ms doubling to 1 s later, until heard or expired.
   */
  const invalidate = (token: Token): Effect.Effect<void> => {
    const expiresAt = DateTime.toEpochMillis(token.expiresAt)
    const mark = refusedMark(refusedPrefix, Redacted.value(token.token))
    const tell = (send: Redis["command"]) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        now >= expiresAt
          ? Effect.void
          : Effect.asVoid(send("EVAL", refuseToken, 2, tokenKey, mark, encode(token), expiresAt - now)))
    // an expired token is told no more: `tell` then succeeds at once
    const again = (pause: number): Effect.Effect<void> =>
      Effect.raceFirst(redis.reachable, Effect.sleep(Duration.millis(pause))).pipe(
        Effect.andThen(tell(redis.command)),
        catchAll(() => again(Math.min(pause * 2, 1000)))
      )
    return catchAll(tell(redis.urgent), () => again(50))
  }

  return { obtain, invalidate }
}
