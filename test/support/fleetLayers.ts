/**
 * The fleet's layers as the in-process Redis tests build them: two connections over one real
 * `redis-server` stand for two processes of a fleet, each with its own `TokenStore.layerRedis`,
 * `RequestBudget.layerRedis` and `FleetRedis` connection, on a fresh key prefix.
 */
import { Clock, Context, DateTime, Duration, Effect, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import type { AccessToken } from "../../src/index.js"
import { FleetRedis, RequestBudget, TokenStore } from "../../src/index.js"

/** The client every member shares a token and a budget for. */
export const client: FleetRedis.ClientIdentity = { tokenUrl: "https://auth.example/token", clientId: "fleet-client" }

let prefixes = 0
/** A key prefix no other test of this process used. */
export const freshPrefix = (): string => `test-${prefixes++}`

/** One process's view of the fleet. */
export interface Member {
  readonly tokens: TokenStore.ClientTokens
  readonly budget: RequestBudget.ClientBudget
  readonly redis: FleetRedis.Service
}

/** The options of a member's store and connection. */
export type MemberOptions = TokenStore.RedisOptions & FleetRedis.Options
type Scoped<A> = Effect.Effect<A, never, Scope.Scope>

/** One process's view: its own connection, store and budget (10 per second), alive for the rest of the scope. */
export const member = (url: string, keyPrefix: string, options: MemberOptions = {}): Scoped<Member> =>
  Effect.map(
    Layer.build(
      Layer.merge(TokenStore.layerRedis(options), RequestBudget.layerRedis({ requestsPerSecond: 10 })).pipe(
        Layer.provideMerge(FleetRedis.layer({ ...options, url, keyPrefix })),
        Layer.orDie
      )
    ),
    (context) => ({
      tokens: Context.get(context, TokenStore.TokenStore).forClient(client),
      budget: Context.get(context, RequestBudget.RequestBudget).forClient(client),
      redis: Context.get(context, FleetRedis.FleetRedis)
    })
  )

/** Two members of one fleet on a fresh key prefix. */
export const pair = (url: string, options: MemberOptions = {}): Scoped<readonly [Member, Member]> =>
  Effect.suspend(() => {
    const prefix = freshPrefix()
    return Effect.all([member(url, prefix, options), member(url, prefix, options)])
  })

/** A token `value` issued now (in whole milliseconds, as a store keeps it), living `lifetimeSeconds`. */
export const tokenOf = (value: string, lifetimeSeconds = 3600): Effect.Effect<AccessToken.AccessToken> =>
  Effect.map(DateTime.now, (now) => ({
    token: Redacted.make(value),
    tokenType: "Bearer",
    issuedAt: now,
    expiresAt: DateTime.addDuration(now, Duration.seconds(lifetimeSeconds))
  }))

/** The token string an `obtain` brought back. */
export const valueOf = (obtained: TokenStore.Obtained): string => Redacted.value(obtained.token.token)

/** Accepts any stored token. */
export const always = (): boolean => true

/** When `budget`'s next slot opens, in epoch ms. */
export const slotAt = (budget: RequestBudget.ClientBudget): Effect.Effect<number> =>
  Effect.zipWith(budget.reserve, Clock.currentTimeMillis, (wait, now) => now + Duration.toMillis(wait))

/** What building `layer` fails with, as text. */
export const failure = <A, E>(layer: Layer.Layer<A, E>) =>
  Effect.map(Effect.flip(Effect.scoped(Layer.build(layer))), String)
