/**
 * The `DesignSearchClient`: the two operations of the design search API (quick search, get by
 * design number) and `searchDesigns`, a stream of full designs for a query. Requests are checked
 * against their schema before anything is sent; every answer becomes an `ApiResponse` or one of the
 * tagged errors of `ApiError`, with the exact union each operation can produce.
 *
 * @since 0.1.0
 */
import { Headers, HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpClientError } from "@effect/platform"
import type { HttpClientResponse } from "@effect/platform"
import type { ParseResult } from "effect"
import {
  Clock,
  ConfigError,
  Context,
  Duration,
  Effect,
  Either,
  Layer,
  Option,
  Schedule,
  Stream
} from "effect"
import * as AccessToken from "./AccessToken.js"
import { UnexpectedResponseError, ValidationError } from "./ApiError.js"
import type {
  AuthenticationError,
  BadRequestError,
  DesignSearchError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TokenError,
  TransportError
} from "./ApiError.js"
import * as DesignSearchConfig from "./DesignSearchConfig.js"
import { Design, decodeDesign, decodeQuickSearchRequest, decodeQuickSearchResult, isDesignNumber, QuickSearchRequest } from "./Designs.js"
import type { DesignNumber, QuickSearchResult } from "./Designs.js"
import { catchFailure } from "./internal/catchFailure.js"
import { decodeSuccess, errorFromResponse, fromClientError, readText, timeoutError } from "./internal/responses.js"
import type { ApiResponse, StatusError } from "./internal/responses.js"
import * as DirectExchange from "./internal/directExchange.js"
import { mapInOrder } from "./internal/orderedParallel.js"
import { currentRequestTimeout, isTimeoutAware } from "./internal/requestTimeout.js"
import { splitUrl } from "./internal/undici.js"
import { withSpanWhenTraced } from "./internal/tracing.js"
import { parameterError, pointerErrors } from "./internal/validation.js"
import * as RequestBudget from "./RequestBudget.js"
import * as TokenService from "./TokenService.js"
import * as UndiciHttpClient from "./UndiciHttpClient.js"

export type { ApiResponse } from "./internal/responses.js"

/** Errors every API call can produce. @since 0.1.0 */
export type CommonError =
  | BadRequestError
  | ValidationError
  | AuthenticationError
  | ForbiddenError
  | RateLimitError
  | ServerError
  | TokenError
  | TransportError
  | UnexpectedResponseError

/** @since 0.1.0 */
export type QuickSearchError = CommonError

/** @since 0.1.0 */
export type GetDesignError = CommonError | NotFoundError

/** @since 0.1.0 */
export type SearchDesignsError = QuickSearchError | GetDesignError

/** Options of `searchDesigns`. @since 0.1.0 */
export interface SearchDesignsOptions {
  /**
   * How many designs are fetched at once (default 8; a positive integer, or the stream fails with
   * a client `ValidationError`). Designs are emitted in search order, in chunks of up to half the
   * concurrency.
   */
  readonly concurrency?: number | undefined
  /** Sees the search's answer (count, numbers, messages) before the first design is fetched. */
  readonly onSearch?: ((response: ApiResponse<QuickSearchResult>) => Effect.Effect<void>) | undefined
}

/** @since 0.1.0 */
export interface Service {
  /** `POST {base}/search/quick`: the numbers of the designs matching the request. */
  readonly quickSearch: (
    request: QuickSearchRequest
  ) => Effect.Effect<ApiResponse<QuickSearchResult>, QuickSearchError>
  /** `GET {base}/design/{number}`: everything publicly known about one design. */
  readonly getDesign: (designNumber: string) => Effect.Effect<ApiResponse<Design>, GetDesignError>
  /** Searches, then fetches every hit in full with bounded concurrency. */
  readonly searchDesigns: (
    request: QuickSearchRequest,
    options?: SearchDesignsOptions
  ) => Stream.Stream<Design, SearchDesignsError>
}

/** @since 0.1.0 */
export class DesignSearchClient extends Context.Tag("effect-design-search/DesignSearchClient")<
  DesignSearchClient,
  Service
>() {}

/** Whether a failure is worth another try of a read-only request. @since 0.1.0 */
export const isTransient = (error: DesignSearchError): boolean =>
  error._tag === "TransportError" ||
  error._tag === "RateLimitError" ||
  (error._tag === "ServerError" && (error.status === 502 || error.status === 503 || error.status === 504))

/**
 * Makes a retry schedule wait at least a 429's `Retry-After`, and stop retrying when the server
 * asks for a wait longer than `cap`.
 *
 * @since 0.1.0
 */
export const honorRetryAfter = <Out, R>(
  schedule: Schedule.Schedule<Out, DesignSearchError, R>,
  cap: Duration.DurationInput
): Schedule.Schedule<[Out, DesignSearchError], DesignSearchError, R> => {
  const capMillis = Duration.toMillis(cap)
  const retryAfterMillis = (e: DesignSearchError) =>
    e._tag === "RateLimitError" && e.retryAfter !== undefined ? Duration.toMillis(e.retryAfter) : 0
  return Schedule.intersect(schedule, Schedule.identity<DesignSearchError>()).pipe(
    Schedule.whileInput((e: DesignSearchError) => retryAfterMillis(e) <= capMillis),
    Schedule.modifyDelay(([, e], delay) => Duration.max(delay, Duration.millis(retryAfterMillis(e))))
  )
}

/**
 * Retries of read-only calls: jittered exponential backoff from 250 ms, three retries, a 429's
 * `Retry-After` honoured up to 30 seconds. Only transient failures are retried (`isTransient`).
 *
 * @since 0.1.0
 */
export const defaultRetrySchedule: Schedule.Schedule<unknown, DesignSearchError> = honorRetryAfter(
  Schedule.exponential("250 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3))),
  "30 seconds"
)

/** @since 0.1.0 */
export interface Options {
  /** Applied to the ambient `HttpClient` for API calls (not token requests): tracing, proxies, logging. */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /** Replaces `defaultRetrySchedule`; it sees only transient failures. */
  readonly retrySchedule?: Schedule.Schedule<unknown, DesignSearchError> | undefined
}

const clientValidation = (errors: ValidationError["errors"]) =>
  new ValidationError({ status: 0, errors, messages: [], excerpt: "", origin: "client" })

/** The same request without its `Authorization` header. */
const withoutAuthorization = (request: HttpClientRequest.HttpClientRequest): HttpClientRequest.HttpClientRequest => {
  const stripped = HttpClientRequest.make(request.method)(request.url, {
    headers: Headers.remove(request.headers, "authorization"),
    urlParams: request.urlParams
  })
  return HttpClientRequest.setBody(
    Option.match(request.hash, { onNone: () => stripped, onSome: (hash) => HttpClientRequest.setHash(stripped, hash) }),
    request.body
  )
}

/**
 * Drops the `Authorization` header from any request that leaves the API origin, such as a redirect
 * followed by a `transformClient`: the token goes to the configured API and nowhere else. It sits
 * below `transformClient`, at the last step before the wire, where redirected requests pass too.
 */
const confineAuthorization = (client: HttpClient.HttpClient, origin: string): HttpClient.HttpClient =>
  HttpClient.makeWith(
    (request: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>) =>
      Effect.flatMap(request, (r) =>
        client.execute(
          r.url.startsWith(origin + "/") || r.headers["authorization"] === undefined
            ? r
            : withoutAuthorization(r)
        )),
    Effect.succeed
  )

/** An API call before its token: method, path below the API base, JSON body. */
interface Call {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body: string | undefined
}

/** A 404 where the operation has no such outcome is an unexpected response. */
const notFoundIsUnexpected = (e: NotFoundError) =>
  new UnexpectedResponseError({ status: e.status, excerpt: e.excerpt, issue: "unexpected HTTP status 404" })

/** How long the budget holds calls back after a 429 that named no `Retry-After`. @since 0.2.0 */
export const defaultBackOff: Duration.Duration = Duration.seconds(1)

/**
 * Builds the client from the ambient `HttpClient`, `DesignSearchConfig` and `TokenService`. With a
 * `RequestBudget` in its context, every request to the API waits for a slot of it, and a 429
 * backs the budget off.
 *
 * @since 0.1.0
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, never, DesignSearchConfig.DesignSearchConfig | TokenService.TokenService | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig.DesignSearchConfig
    const tokens = yield* TokenService.TokenService
    const ambientClient = yield* HttpClient.HttpClient
    const baseClient = confineAuthorization(ambientClient, new URL(config.apiBaseUrl).origin)
    const client = options.transformClient === undefined ? baseClient : options.transformClient(baseClient)
    const retrySchedule = options.retrySchedule ?? defaultRetrySchedule

    // A transport that enforces the request timeout itself is told it; any other gets an
    // Effect-level timeout, which forks a timer fiber per request. (Told to the transport, the
    // timeout applies to each exchange a `transformClient` makes, redirects included.)
    const withRequestTimeout = isTimeoutAware(ambientClient)
      ? <A, E>(effect: Effect.Effect<A, E>) => Effect.locally(effect, currentRequestTimeout, Option.some(config.requestTimeout))
      : <A, E>(effect: Effect.Effect<A, E | TransportError>, request: HttpClientRequest.HttpClientRequest) =>
        Effect.timeoutFail(effect, { duration: config.requestTimeout, onTimeout: () => timeoutError(request, config.requestTimeout) })

    /** A read answer as the operation's result or its typed error. */
    const classify = <A>(
      decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>,
      status: number,
      headers: Readonly<Record<string, string | undefined>>,
      text: string
    ): Effect.Effect<ApiResponse<A>, StatusError> =>
      status >= 200 && status < 300
        ? decodeSuccess(decode, status, text)
        : Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(errorFromResponse(status, headers, text, now)))

    // Over the default transport with no `transformClient`, the fast lane sends and reads in one
    // step; anything else goes through `HttpClient.execute`.
    const dispatcher = options.transformClient === undefined ? DirectExchange.dispatcherOf(ambientClient) : undefined
    // The API's origin and the path its calls' paths go below ("" for an API at the host's root).
    const api = Option.map(
      Option.fromNullable(splitUrl(config.apiBaseUrl)),
      ({ origin, path }) => ({ origin, prefix: path === "/" ? "" : path })
    )

    /** The fast lane's headers, made once per token. */
    let headersOf: { token: AccessToken.AccessToken; get: Record<string, string>; post: Record<string, string> } | undefined
    const wireHeaders = (token: AccessToken.AccessToken, withBody: boolean) => {
      if (headersOf?.token !== token) {
        const authorization = AccessToken.authorization(token)
        headersOf = {
          token,
          get: Object.freeze({ accept: "application/json", authorization }),
          post: Object.freeze({ accept: "application/json", "content-type": "application/json", authorization })
        }
      }
      return withBody ? headersOf.post : headersOf.get
    }

    /** `call` as an `HttpClientRequest`, for the general path. */
    const toRequest = (call: Call, token: AccessToken.AccessToken) => {
      const request = HttpClientRequest.make(call.method)(config.apiBaseUrl + call.path).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.setHeader("authorization", AccessToken.authorization(token))
      )
      return call.body === undefined ? request : HttpClientRequest.bodyText(request, call.body, "application/json")
    }

    /** One exchange: send, read the capped body, classify. */
    const exchange = <A>(
      call: Call,
      token: AccessToken.AccessToken,
      decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
    ): Effect.Effect<ApiResponse<A>, StatusError | TransportError> => {
      if (dispatcher !== undefined && Option.isSome(api)) {
        const wire: DirectExchange.Wire = {
          method: call.method,
          origin: api.value.origin,
          path: api.value.prefix + call.path,
          headers: wireHeaders(token, call.body !== undefined),
          body: call.body ?? null
        }
        return Effect.flatMap(
          DirectExchange.exchange(dispatcher, wire, config.requestTimeout, config.maxBodyBytes),
          (answer) => classify(decode, answer.status, answer.headers, answer.text)
        )
      }
      const request = toRequest(call, token)
      return withRequestTimeout(
        client.execute(request).pipe(
          Effect.mapError(fromClientError),
          Effect.flatMap((response: HttpClientResponse.HttpClientResponse) =>
            Effect.flatMap(
              readText(response, config.maxBodyBytes),
              (text) => classify(decode, response.status, response.headers, text)
            )
          )
        ),
        request
      )
    }

    const budget = Option.map(
      yield* Effect.serviceOption(RequestBudget.RequestBudget),
      (b) => b.forClient({ tokenUrl: config.tokenUrl, clientId: config.clientId })
    )
    /**
     * `effect` in its turn of the budget if there is one; a 429 backs the budget off. The turn comes
     * before the token, so that a long wait does not send a token that expired while it waited.
     */
    const paced = <A>(
      effect: Effect.Effect<ApiResponse<A>, StatusError | TransportError | TokenError>
    ): Effect.Effect<ApiResponse<A>, StatusError | TransportError | TokenError> =>
      Option.isNone(budget) ? effect : Effect.zipRight(RequestBudget.take(budget.value), effect).pipe(
        Effect.tapErrorTag("RateLimitError", (e) => budget.value.backOff(e.retryAfter ?? defaultBackOff))
      )

    type Failure = StatusError | TransportError | TokenError

    /**
     * After a failed first try (`once`): a 401 gets one more try with a fresh token; transient
     * failures are retried on `retrySchedule`, set up only now.
     */
    const recover = <A>(once: Effect.Effect<ApiResponse<A>, Failure>, first: Failure): Effect.Effect<ApiResponse<A>, Failure> => {
      const onceMoreAfter401 = (e: Failure) => e._tag === "AuthenticationError" ? once : Effect.fail(e)
      const retried = (error: Failure) =>
        Effect.flatMap(Schedule.driver(retrySchedule), (driver) => {
          const attempt = Effect.catchAll(once, onceMoreAfter401)
          const again = (e: Failure): Effect.Effect<ApiResponse<A>, Failure> =>
            Effect.matchEffect(driver.next(e), {
              onFailure: () => Effect.fail(e),
              onSuccess: () => Effect.catchIf(attempt, isTransient, again)
            })
          return again(error)
        })
      return Effect.catchIf(onceMoreAfter401(first), isTransient, retried)
    }

    /**
     * With a token; a 401 forgets that token (then `recover`). A call that succeeds passes two
     * failure-only frames and nothing else of this.
     */
    const authorized = <A>(
      call: Call,
      decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
    ): Effect.Effect<ApiResponse<A>, Failure> => {
      const once = paced(Effect.flatMap(tokens.get, (token) =>
        catchFailure(exchange(call, token, decode), (e): Effect.Effect<never, StatusError | TransportError> =>
          e._tag === "AuthenticationError" ? Effect.zipRight(tokens.invalidate(token), Effect.fail(e)) : Effect.fail(e))))
      return catchFailure(once, (e) => recover(once, e))
    }

    const quickSearchSpan = withSpanWhenTraced("DesignSearchClient.quickSearch")
    const quickSearch = (request: QuickSearchRequest) =>
      Effect.suspend(() => {
        const valid = decodeQuickSearchRequest(request)
        if (Either.isLeft(valid)) return Effect.fail(clientValidation(pointerErrors(valid.left)))
        // the request schema has no transformations: the decoded request is its own wire form
        const call: Call = { method: "POST", path: "/search/quick", body: JSON.stringify(valid.right) }
        return catchFailure(
          authorized(call, decodeQuickSearchResult),
          (e) => Effect.fail(e._tag === "NotFoundError" ? notFoundIsUnexpected(e) : e)
        )
      }).pipe(quickSearchSpan)

    const getDesign = (designNumber: string) =>
      Effect.suspend(() => {
        if (!isDesignNumber(designNumber)) {
          return Effect.fail(clientValidation([
            parameterError("ipRightIdentifier", "expected a design number: 1 to 12 letters or digits")
          ]))
        }
        return authorized({ method: "GET", path: `/design/${designNumber}`, body: undefined }, decodeDesign)
      }).pipe(withSpanWhenTraced("DesignSearchClient.getDesign", () => ({ designNumber })))

    const searchDesigns = (request: QuickSearchRequest, searchOptions: SearchDesignsOptions = {}) => {
      const concurrency = searchOptions.concurrency ?? 8
      if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
        return Stream.fail(clientValidation([parameterError("concurrency", "expected a positive integer")]))
      }
      return Stream.unwrap(
        quickSearch(request).pipe(
          Effect.tap((response) => searchOptions.onSearch?.(response) ?? Effect.void),
          Effect.map((response) =>
            mapInOrder(response.data.designNumbers, (n: DesignNumber) => Effect.map(getDesign(n), (r) => r.data), concurrency)
          )
        )
      )
    }

    return { quickSearch, getDesign, searchDesigns } satisfies Service
  })

/**
 * The client and the in-memory `TokenService` it uses, from `DesignSearchConfig` and the ambient
 * `HttpClient`.
 *
 * @since 0.1.0
 */
export const layer = (
  options: Options = {}
): Layer.Layer<DesignSearchClient | TokenService.TokenService, never, DesignSearchConfig.DesignSearchConfig | HttpClient.HttpClient> =>
  Layer.effect(DesignSearchClient, make(options)).pipe(Layer.provideMerge(TokenService.layer()))

/**
 * `layer` configured from the `IPAUSTRALIA_*` variables, over the default Node transport
 * (`UndiciHttpClient.layer`). To use another `HttpClient`, compose `layer` with
 * `DesignSearchConfig.layerConfig` and provide your own.
 *
 * @since 0.1.0
 */
export const layerConfig = (
  options: Options = {}
): Layer.Layer<DesignSearchClient | TokenService.TokenService, ConfigError.ConfigError> =>
  layer(options).pipe(Layer.provide(DesignSearchConfig.layerConfig), Layer.provide(UndiciHttpClient.layer))
