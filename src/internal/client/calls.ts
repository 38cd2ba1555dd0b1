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
import type { Mask } from "../../core/mask/mask.js"
import type { Settings } from "../../DesignSearchConfig.js"
import * as RequestBudget from "../../RequestBudget.js"
import type * as TokenService from "../../TokenService.js"
import { classify } from "../http/answers.js"
import type { Decode, StatusError } from "../http/answers.js"
import { defaultBackOff, defaultRetrySchedule, isTransient, retryTransient } from "../http/retry.js"
import type { Answer } from "../http/send.js"
import { confine, exchange, originOf } from "../http/send.js"
import { toldRetries } from "../waits.js"

/** What one API call can fail with before an operation narrows it. */
export type CallError = StatusError | TransportError | TokenError

/** What an answer means to its caller, the mask of the token it was sent with at hand: a 401 must fail. */
export type Read<A> = (answer: Answer, mask: () => Mask) => Effect.Effect<A, CallError>

/**
 * Sends a request below the API base (or anywhere, when the base is `""`) and reads its answer with
 * `read`; `transient` says which failures are tried again (default `isTransient`). It runs within a
 * context that tells `fetch` not to follow redirects (`withoutFollowingRedirects`).
 */
export type Send = <A>(
  request: HttpClientRequest.HttpClientRequest,
  read: Read<A>,
  transient?: (error: CallError) => boolean
) => Effect.Effect<A, CallError>

/** A `Send` whose 2xx answers are decoded with `decode` into an `ApiResponse`: an operation's call. */
export type Call = <A>(
  request: HttpClientRequest.HttpClientRequest,
  decode: Decode<A>
) => Effect.Effect<ApiResponse<A>, CallError>

/** `send`, each answer classified: decoded when 2xx, else its typed error. */
export const callOf = (send: Send): Call => (request, decode) =>
  send(request, (answer, mask) => classify(decode, answer, mask))

/** `accept: application/json` on a request that names no type it accepts. */
const acceptJsonUnlessTold = (request: HttpClientRequest.HttpClientRequest) =>
  request.headers["accept"] === undefined ? HttpClientRequest.acceptJson(request) : request

/** What the calls are made over. */
export interface CallOptions {
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  readonly retrySchedule?: Schedule.Schedule<unknown, DesignSearchError> | undefined
  /** The base of every request's URL; `""` when requests come with absolute URLs (`AuthorizedClient`). */
  readonly base?: string | undefined
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
): Effect.Effect<Send> =>
  Effect.map(Effect.serviceOption(RequestBudget.RequestBudget), (budgets) => {
    const base = options.base ?? config.apiBaseUrl
    const limits = { timeout: config.requestTimeout, maxBodyBytes: config.maxBodyBytes }
    // Every request goes to `base`; only a `transformClient` (a redirect it follows, a URL it
    // rewrites) or absolute URLs can send one elsewhere, so only then is the ambient client confined
    // to the API's origin.
    const open = options.transformClient === undefined && options.base === undefined
    const client = (open ? ambient : confine(ambient, originOf(config.apiBaseUrl))).pipe(
      HttpClient.mapRequest(Function.flow(HttpClientRequest.prependUrl(base), acceptJsonUnlessTold)),
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
      read: Read<A>,
      tokenOfTry: Effect.Effect<AccessToken.AccessToken, TokenError> = tokens.get
    ) =>
      paced(Effect.flatMap(tokenOfTry, (token) => {
        const authorized = HttpClientRequest.setHeader(request, "authorization", AccessToken.authorization(token))
        const mask = () => maskOf([Redacted.value(token.token)])
        return exchange(client, authorized, { ...limits, mask }, base).pipe(
          Effect.flatMap((answer) => read(answer, mask)),
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
    const withRenewals = <A>(request: HttpClientRequest.HttpClientRequest, read: Read<A>) =>
      Effect.suspend(() => {
        const used: Array<AccessToken.AccessToken> = []
        const tryWith = (token: Effect.Effect<AccessToken.AccessToken, TokenError>) =>
          attempt(request, read, Effect.map(token, (t) => (used.push(t), t)))
        const afterRefusal = (e: AuthenticationError): Effect.Effect<A, CallError> => {
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
    return (request, read, transient = isTransient) => {
      const once = withRenewals(request, read)
      // Most calls succeed at once: the policy starts at the first failure, which it is handed first.
      return catchAll(once, (first) => {
        let replayed = false
        const again = Effect.suspend(() => replayed ? once : (replayed = true, Effect.fail(first)))
        return retryTransient(again, transient, policy)
      })
    }
  })
