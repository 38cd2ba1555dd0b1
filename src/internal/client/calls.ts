/**
 * One authorized API call, from a request to its decoded answer: the budget's turn, a token, the
 * request, the answer classified; 401s and transient failures tried again (docs/reliability.md).
 */
import { catchAll, HttpClient, HttpClientRequest } from "#edition/internal/seam"
import type { Schedule } from "effect"
import { Effect, Function, Option, Redacted } from "effect"
import * as AccessToken from "../../AccessToken.js"
import type { ApiResponse, AuthenticationError, DesignSearchError, TokenError, TransportError } from "../../ApiError.js"
import { maskOf } from "../../core/mask/mask.js"
import type { Settings } from "../../DesignSearchConfig.js"
import * as RequestBudget from "../../RequestBudget.js"
import type * as TokenService from "../../TokenService.js"
import { classify } from "../http/answers.js"
import type { Decode, StatusError } from "../http/answers.js"
import { defaultBackOff, defaultRetrySchedule, isTransient, retryTransient } from "../http/retry.js"
import { confine, exchange, originOf } from "../http/send.js"
import { toldRetries } from "../waits.js"

/** What one API call can fail with before an operation narrows it. */
export type CallError = StatusError | TransportError | TokenError

/**
 * Sends a request below the API base and decodes its 2xx answer with `decode`. It runs within an
 * operation (`operations.ts`), whose context tells `fetch` not to follow redirects.
 */
export type Call = <A>(
  request: HttpClientRequest.HttpClientRequest,
  decode: Decode<A>
) => Effect.Effect<ApiResponse<A>, CallError>

/** What the calls are made over. */
export interface CallOptions {
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  readonly retrySchedule?: Schedule.Schedule<unknown, DesignSearchError> | undefined
}

/**
 * The API's calls over `ambient`: the base URL and `accept` set on every request, then the
 * application's `transformClient`; the `Authorization` header confined to the API's origin.
 */
export const makeCall = (
  config: Settings,
  tokens: TokenService.Service,
  ambient: HttpClient.HttpClient,
  options: CallOptions
): Effect.Effect<Call> =>
  Effect.map(Effect.serviceOption(RequestBudget.RequestBudget), (budgets) => {
    const base = config.apiBaseUrl
    const limits = { timeout: config.requestTimeout, maxBodyBytes: config.maxBodyBytes }
    // Every request goes to `base`; only a `transformClient` can send one elsewhere (a redirect it
    // follows, a URL it rewrites), so only then is the ambient client confined to the API's origin.
    const client = (options.transformClient === undefined ? ambient : confine(ambient, originOf(base))).pipe(
      HttpClient.mapRequest(Function.flow(HttpClientRequest.prependUrl(base), HttpClientRequest.acceptJson)),
      options.transformClient ?? Function.identity
    )
    const budget = Option.map(budgets, (b) => b.forClient({ tokenUrl: config.tokenUrl, clientId: config.clientId }))

    /**
     * `effect` in its turn of the budget, if there is one; a 429 backs the budget off. The turn comes
     * before the token, so that a long wait does not send a token that expired while it waited.
     */
    const paced = <A>(effect: Effect.Effect<A, CallError>): Effect.Effect<A, CallError> =>
      Option.isNone(budget) ? effect : Effect.andThen(RequestBudget.take(budget.value), effect).pipe(
        Effect.tapErrorTag("RateLimitError", (e) => budget.value.backOff(e.retryAfter ?? defaultBackOff))
      )

    /** One try with the token `tokenOfTry` gives; a 401 forgets that token. Answers are masked of it. */
    const attempt = <A>(
      request: HttpClientRequest.HttpClientRequest,
      decode: Decode<A>,
      tokenOfTry: Effect.Effect<AccessToken.AccessToken, TokenError> = tokens.get
    ) =>
      paced(Effect.flatMap(tokenOfTry, (token) => {
        const authorized = HttpClientRequest.setHeader(request, "authorization", AccessToken.authorization(token))
        const mask = () => maskOf([Redacted.value(token.token)])
        return exchange(client, authorized, { ...limits, mask }, base).pipe(
          Effect.flatMap((answer) => classify(decode, answer, mask)),
          Effect.tapErrorTag("AuthenticationError", () => tokens.invalidate(token))
        )
      }))

    /**
     * A try, and after a 401 another with the refused token's renewal (`renew`), which every call
     * refused with that token shares. Only when the renewal was not fetched here after the first
     * refusal (a store's token, which may predate it) is it renewed once more. So a call fails with
     * `AuthenticationError` only when a token fetched after its first refusal is refused too; three
     * tries at most, two without a store's token.
     */
    const withRenewals = <A>(request: HttpClientRequest.HttpClientRequest, decode: Decode<A>) =>
      Effect.suspend(() => {
        const used: Array<AccessToken.AccessToken> = []
        const tryWith = (token: Effect.Effect<AccessToken.AccessToken, TokenError>) =>
          attempt(request, decode, Effect.map(token, (t) => (used.push(t), t)))
        const afterRefusal = (e: AuthenticationError): Effect.Effect<ApiResponse<A>, CallError> => {
          const [first, refused] = [used[0], used.at(-1)]
          if (refused === undefined || used.length > 2) return Effect.fail(e)
          return Effect.flatMap(tokens.renew(refused, used.length > 1 ? first : undefined), (next) =>
            Option.isNone(next)
              ? Effect.fail(e)
              : Effect.catchTag(tryWith(Effect.succeed(next.value)), "AuthenticationError", afterRefusal))
        }
        return Effect.catchTag(tryWith(tokens.get), "AuthenticationError", afterRefusal)
      })

    // The retry policy is built once: `Effect.retry`'s options form would build it again on every call.
    const policy = toldRetries(options.retrySchedule ?? defaultRetrySchedule)
    return (request, decode) => {
      const once = withRenewals(request, decode)
      // Most calls succeed at once: the policy starts at the first failure, which it is handed first.
      return catchAll(once, (first) => {
        let replayed = false
        const again = Effect.suspend(() => replayed ? once : (replayed = true, Effect.fail(first)))
        return retryTransient(again, isTransient, policy)
      })
    }
  })
