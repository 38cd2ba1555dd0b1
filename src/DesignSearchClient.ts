/**
 * The `DesignSearchClient`: the two operations of the design search API (quick search, get by
 * design number) and `searchDesigns`, a stream of full designs for a query. Requests are checked
 * against their schema before anything is sent; every answer becomes an `ApiResponse` or one of the
 * tagged errors of `ApiError`, with the exact union each operation can produce. The client builds
 * each call, sends it through the transport chosen when it was made (`internal/transport.ts`), and
 * classifies the answer; tokens, the request budget, 401s and retries are its business too.
 *
 * @since 0.1.0
 */
import type { HttpClient } from "@effect/platform"
import type { ConfigError, ParseResult } from "effect"
import { Context, Duration, Effect, Either, Layer, Option, Redacted, Schedule, Schema, Stream } from "effect"
import type { LazyArg } from "effect/Function"
import * as AccessToken from "./AccessToken.js"
import { UnexpectedResponseError, ValidationError } from "./ApiError.js"
import type {
  ApiResponse,
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
import {
  AdvancedSearchRequest,
  decodeDesign,
  decodeDesignPage,
  decodeQuickSearchRequest,
  decodeQuickSearchResult,
  decodeSearchResult,
  isDesignNumber,
  PageRequest
} from "./Designs.js"
import type {
  Design,
  DesignNumber,
  DesignPage,
  QuickSearchRequest,
  QuickSearchResult,
  SearchResult
} from "./Designs.js"
import * as DesignSearchConfig from "./DesignSearchConfig.js"
import { classify } from "./internal/answers.js"
import type { Decode, StatusError } from "./internal/answers.js"
import { catchFailure } from "./internal/catchFailure.js"
import { chooseTransport } from "./internal/chooseTransport.js"
import { maskOf } from "./internal/mask/mask.js"
import type { Mask } from "./internal/mask/mask.js"
import { mapInOrder } from "./internal/orderedParallel.js"
import {
  checkPagedOptions,
  fewerThanCounted as fewerThanCountedCode,
  pagedDesigns,
  pagedProblems,
  pagedSearchUnavailable as pagedSearchUnavailableCode,
  repeatedDesigns as repeatedDesignsCode
} from "./internal/pagedDesigns.js"
import type { PagedOptions, Refusal } from "./internal/pagedDesigns.js"
import { withSpanWhenTraced } from "./internal/tracing.js"
import { parameterError, pointerErrors } from "./internal/validation.js"
import * as RequestBudget from "./RequestBudget.js"
import * as TokenService from "./TokenService.js"
import * as UndiciHttpClient from "./UndiciHttpClient.js"

export type {
  /**
   * What an operation returns on success; defined in `ApiError`.
   *
   * @since 0.1.0
   * @category models
   */
  ApiResponse
} from "./ApiError.js"

/**
 * Errors every API call can produce.
 *
 * @since 0.1.0
 * @category errors
 */
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

/**
 * What `quickSearch` fails with.
 *
 * @since 0.1.0
 * @category errors
 */
export type QuickSearchError = CommonError

/**
 * What `getDesign` fails with: a 404 is `NotFoundError`.
 *
 * @since 0.1.0
 * @category errors
 */
export type GetDesignError = CommonError | NotFoundError

/**
 * What `advancedSearch` fails with.
 *
 * @since 0.3.0
 * @category errors
 */
export type AdvancedSearchError = CommonError

/**
 * What `searchPage` fails with: a 404 (no such operation for this client) is `NotFoundError`.
 *
 * @since 0.3.0
 * @category errors
 */
export type SearchPageError = CommonError | NotFoundError

/**
 * What `advancedDesigns` fails with.
 *
 * @since 0.3.0
 * @category errors
 */
export type AdvancedDesignsError = SearchPageError | AdvancedSearchError | GetDesignError

/**
 * What `searchDesigns` fails with.
 *
 * @since 0.1.0
 * @category errors
 */
export type SearchDesignsError = QuickSearchError | GetDesignError

/**
 * Options of `searchDesigns`.
 *
 * @since 0.1.0
 * @category options
 */
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

/**
 * Options of `advancedDesigns`: page size, the page to start from, requests at once, and what to
 * tell of each page (`PageInfo`).
 *
 * @since 0.3.0
 * @category options
 */
export type AdvancedDesignsOptions = PagedOptions

export type {
  /**
   * What `advancedDesigns` tells of each page before its designs.
   *
   * @since 0.3.0
   * @category models
   */
  PageInfo
} from "./internal/pagedDesigns.js"

/**
 * The code of the warning in `PageInfo.messages` when the paged operation was refused (403, 404,
 * 405) and `advancedDesigns` fetches each design on its own.
 *
 * @since 0.3.0
 * @category constants
 */
export const pagedSearchUnavailable: typeof pagedSearchUnavailableCode = pagedSearchUnavailableCode

/**
 * The code of the warning in `PageInfo.messages` when the service's pages or list hold fewer
 * designs than it counted: a page before the last held fewer than `pageSize` (no later page is asked
 * for), or in the fallback the search listed fewer numbers than it counted (its cap).
 *
 * @since 0.3.0
 * @category constants
 */
export const fewerThanCounted: typeof fewerThanCountedCode = fewerThanCountedCode

/**
 * The code of the warning in `PageInfo.messages` when a page held designs an earlier page of the
 * same stream held (the results changed while they were read): each design is emitted once.
 *
 * @since 0.3.0
 * @category constants
 */
export const repeatedDesigns: typeof repeatedDesignsCode = repeatedDesignsCode

/**
 * The operations of the design search API. Each fails only with its exact union of `ApiError`s.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * `POST {base}/search/quick`: the numbers of the designs matching the request. Fails with
   * `QuickSearchError`: a client `ValidationError` for a request its schema refuses (nothing sent).
   */
  readonly quickSearch: (
    request: QuickSearchRequest
  ) => Effect.Effect<ApiResponse<QuickSearchResult>, QuickSearchError>
  /**
   * `GET {base}/design/{number}`: everything publicly known about one design. Fails with
   * `GetDesignError`: `NotFoundError` for an unknown number, a client `ValidationError` for one
   * that is not 1 to 12 letters or digits.
   */
  readonly getDesign: (designNumber: string) => Effect.Effect<ApiResponse<Design>, GetDesignError>
  /**
   * `POST {base}/search/advanced`: the numbers of the designs matching rows of criteria. Fails with
   * `AdvancedSearchError`: a client `ValidationError` for a request its schema refuses or that
   * cannot be written as JSON (nothing sent).
   */
  readonly advancedSearch: (
    request: AdvancedSearchRequest
  ) => Effect.Effect<ApiResponse<SearchResult>, AdvancedSearchError>
  /**
   * `POST {base}/page/advanced`: one page of the full designs matching rows of criteria. Fails
   * with `SearchPageError`: a client `ValidationError` for a `pageSize` outside 1–100, a negative
   * `pageNumber` or another request its schema refuses (nothing sent).
   */
  readonly searchPage: (request: PageRequest) => Effect.Effect<ApiResponse<DesignPage>, SearchPageError>
  /**
   * Every full design matching an advanced search, in order, from `startPage` on: one request a
   * page, `concurrency` pages at once. If the paged operation is refused (403, 404, 405), the
   * designs come from `advancedSearch` and one `getDesign` each, in the same pages, and every
   * later call does the same without asking again; `PageInfo` says so. Fails with the first
   * failure (`AdvancedDesignsError`); bad options are a client `ValidationError`.
   */
  readonly advancedDesigns: (
    request: AdvancedSearchRequest,
    options?: AdvancedDesignsOptions
  ) => Stream.Stream<Design, AdvancedDesignsError>
  /**
   * Searches, then fetches every hit in full with bounded concurrency, in search order. Fails with
   * the first failure of the search or of a fetch (`SearchDesignsError`), after which no fetch starts.
   */
  readonly searchDesigns: (
    request: QuickSearchRequest,
    options?: SearchDesignsOptions
  ) => Stream.Stream<Design, SearchDesignsError>
}

/**
 * The client of the design search API: provide it with `layer` or `layerConfig`.
 *
 * @since 0.1.0
 * @category tags
 */
export class DesignSearchClient extends Context.Tag("effect-design-search/DesignSearchClient")<
  DesignSearchClient,
  Service
>() {}

/**
 * Whether a failure is worth another try of a read-only request.
 *
 * @since 0.1.0
 * @category retries
 */
export const isTransient = (error: DesignSearchError): boolean =>
  error._tag === "TransportError" ||
  error._tag === "RateLimitError" ||
  (error._tag === "ServerError" && (error.status === 502 || error.status === 503 || error.status === 504))

/**
 * Makes a retry schedule wait at least a 429's `Retry-After`, and stop retrying when the server
 * asks for a wait longer than `cap`.
 *
 * @since 0.1.0
 * @category retries
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
 * @category retries
 */
export const defaultRetrySchedule: Schedule.Schedule<unknown, DesignSearchError> = honorRetryAfter(
  Schedule.exponential("250 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3))),
  "30 seconds"
)

/**
 * Options of `make`, `layer` and `layerConfig`.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** Applied to the ambient `HttpClient` for API calls (not token requests): tracing, proxies, logging. */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /** Replaces `defaultRetrySchedule`; it sees only transient failures. */
  readonly retrySchedule?: Schedule.Schedule<unknown, DesignSearchError> | undefined
}

/**
 * How long the budget holds calls back after a 429 that named no `Retry-After`.
 *
 * @since 0.2.0
 * @category retries
 */
export const defaultBackOff: Duration.Duration = Duration.seconds(1)

/** What one API call can fail with before an operation narrows it. */
type CallError = StatusError | TransportError | TokenError

const clientValidation = (errors: ValidationError["errors"]) =>
  new ValidationError({ status: 0, errors, messages: [], excerpt: "", origin: "client" })

/**
 * `read` of what the caller gave, or the client `ValidationError` naming `what` when reading it
 * throws (a getter, a Proxy): the caller's values are read nowhere else before they are checked.
 */
const readCaller = <A>(
  what: string,
  read: () => Either.Either<A, ValidationError>
): Either.Either<A, ValidationError> =>
  Either.flatMap(
    Either.try({
      try: read,
      catch: () => clientValidation([parameterError(what, "could not be read: reading it threw")])
    }),
    (result) => result
  )

/** Whether JSON would write `value` (held at `key` of `holder`) as something else than it is. */
const changedByJson = (holder: unknown, key: string, value: unknown): boolean => {
  if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") return true
  if (typeof value === "number" && !Number.isFinite(value)) return true
  // In an array, what JSON cannot write becomes null; a hole is read as undefined.
  if (Array.isArray(holder) && value === undefined) return true
  const original: unknown = typeof holder === "object" && holder !== null ? Reflect.get(holder, key) : undefined
  return original instanceof Map || original instanceof Set ||
    (original instanceof Date && Number.isNaN(original.getTime()))
}

/**
 * `JSON.stringify` of a checked request whose criteria the toolkit does not name are sent as given:
 * a value JSON cannot write as it is (a function, a symbol, a `bigint`, a number that is not
 * finite, a `Map`, a `Set`, an invalid date, a hole, a cycle) is refused, not changed or dropped.
 */
const requestJson = (request: unknown): Either.Either<string, ValidationError> => {
  let unwritable = false
  const json = Either.try(() =>
    JSON.stringify(request, function(this: unknown, key: string, value: unknown) {
      if (changedByJson(this, key, value)) unwritable = true
      return value
    })
  )
  return Either.isRight(json) && !unwritable
    ? Either.right(json.right)
    : Either.left(clientValidation([parameterError("body", "the request cannot be written as JSON")]))
}

/** The body of a quick search, checked and written (`readCaller` without a closure: it is hot). */
const quickSearchBody = (request: unknown): Either.Either<string, ValidationError> => {
  try {
    const valid = decodeQuickSearchRequest(request)
    if (Either.isLeft(valid)) return Either.left(clientValidation(pointerErrors(valid.left)))
    // the request schema has no transformations: the decoded request is its own wire form
    return Either.right(JSON.stringify(valid.right))
  } catch {
    return Either.left(clientValidation([parameterError("body", "could not be read: reading it threw")]))
  }
}

const decodeAdvancedSearchRequest = Schema.decodeUnknownEither(AdvancedSearchRequest, { errors: "all" })
const decodePageRequest = Schema.decodeUnknownEither(PageRequest, { errors: "all" })

/** A 404 where the operation has no such outcome is an unexpected response. */
const notFoundIsUnexpected = (e: NotFoundError) =>
  new UnexpectedResponseError({ status: e.status, excerpt: e.excerpt, issue: "unexpected HTTP status 404" })

/** What the calls made with one token share: their headers, and the mask of the secrets they carry. */
interface PerToken {
  readonly token: AccessToken.AccessToken
  readonly get: Readonly<Record<string, string>>
  readonly post: Readonly<Record<string, string>>
  /** The mask of the client secret and this token, made the first time an answer needs it. */
  readonly mask: LazyArg<Mask>
}

/** `PerToken`, made once per token: every call with the same token shares it. */
const perToken = (clientSecret: Redacted.Redacted<string>) => {
  let made: PerToken | undefined
  return (token: AccessToken.AccessToken): PerToken => {
    if (made?.token !== token) {
      const authorization = AccessToken.authorization(token)
      let mask: Mask | undefined
      made = {
        token,
        get: Object.freeze({ accept: "application/json", authorization }),
        post: Object.freeze({ accept: "application/json", "content-type": "application/json", authorization }),
        mask: () => mask ??= maskOf([Redacted.value(clientSecret), Redacted.value(token.token)])
      }
    }
    return made
  }
}

/** An API call before its token: method, path below the API base, JSON body. */
interface ApiCall {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body: string | undefined
}

/**
 * `once` again after it failed with `first`: a 401 is followed by `afterRefusal` (the tries with a
 * fresh token); transient failures are retried on `schedule`, set up only now.
 */
const recover = <A>(
  once: Effect.Effect<ApiResponse<A>, CallError>,
  afterRefusal: Effect.Effect<ApiResponse<A>, CallError>,
  first: CallError,
  schedule: Schedule.Schedule<unknown, DesignSearchError>
): Effect.Effect<ApiResponse<A>, CallError> => {
  const onceMoreAfter401 = (e: CallError) => e._tag === "AuthenticationError" ? afterRefusal : Effect.fail(e)
  const retried = (error: CallError) =>
    Effect.flatMap(Schedule.driver(schedule), (driver) => {
      const attempt = Effect.catchAll(once, onceMoreAfter401)
      const again = (e: CallError): Effect.Effect<ApiResponse<A>, CallError> =>
        Effect.matchEffect(driver.next(e), {
          onFailure: () => Effect.fail(e),
          onSuccess: () => Effect.catchIf(attempt, isTransient, again)
        })
      return again(error)
    })
  return Effect.catchIf(onceMoreAfter401(first), isTransient, retried)
}

/**
 * Builds the client from the ambient `HttpClient`, `DesignSearchConfig` and `TokenService`. With a
 * `RequestBudget` in its context, every request to the API waits for a slot of it, and a 429
 * backs the budget off.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<
  Service,
  never,
  DesignSearchConfig.DesignSearchConfig | TokenService.TokenService | HttpClient.HttpClient
> =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig.DesignSearchConfig
    const tokens = yield* TokenService.TokenService
    const transport = yield* chooseTransport(
      config.apiBaseUrl,
      { timeout: config.requestTimeout, maxBodyBytes: config.maxBodyBytes },
      options.transformClient
    )
    const retrySchedule = options.retrySchedule ?? defaultRetrySchedule
    const forToken = perToken(config.clientSecret)
    const budget = Option.map(
      yield* Effect.serviceOption(RequestBudget.RequestBudget),
      (b) => b.forClient({ tokenUrl: config.tokenUrl, clientId: config.clientId })
    )

    /**
     * `effect` in its turn of the budget if there is one; a 429 backs the budget off. The turn comes
     * before the token, so that a long wait does not send a token that expired while it waited.
     */
    const paced = <A>(effect: Effect.Effect<ApiResponse<A>, CallError>): Effect.Effect<ApiResponse<A>, CallError> =>
      Option.isNone(budget) ? effect : Effect.zipRight(RequestBudget.take(budget.value), effect).pipe(
        Effect.tapErrorTag("RateLimitError", (e) => budget.value.backOff(e.retryAfter ?? defaultBackOff))
      )

    /** One try: a token (from `get`), the call sent with it, the answer classified; a 401 forgets that token. */
    const attempt = <A>(
      call: ApiCall,
      decode: Decode<A>,
      tokenOfTry: Effect.Effect<AccessToken.AccessToken, TokenError> = tokens.get
    ) =>
      paced(Effect.flatMap(tokenOfTry, (token) => {
        const shared = forToken(token)
        return catchFailure(
          Effect.flatMap(
            transport.send({
              method: call.method,
              path: call.path,
              headers: call.body === undefined ? shared.get : shared.post,
              body: call.body
            }),
            (answer) => classify(decode, answer, shared.mask)
          ),
          (e): Effect.Effect<never, StatusError | TransportError> =>
            e._tag === "AuthenticationError"
              ? Effect.zipRight(tokens.invalidate(token), Effect.fail(e))
              : Effect.fail(e)
        )
      }))

    /**
     * The tries after a 401: one with the token `get` hands out, and, when that one is refused too
     * without being known to have been fetched since the first 401 (a store may hand out a token
     * any process fetched before it), one last with a token fetched here since (`renew`). So a call
     * fails with `AuthenticationError` only when a token fetched after its first refusal is refused
     * too; three tries at most.
     */
    const afterRefusal = <A>(call: ApiCall, decode: Decode<A>): Effect.Effect<ApiResponse<A>, CallError> =>
      Effect.clockWith((clock) => {
        const since = clock.unsafeCurrentTimeMillis()
        let retried: AccessToken.AccessToken | undefined
        return Effect.catchTag(
          attempt(call, decode, Effect.tap(tokens.get, (token) => void (retried = token))),
          "AuthenticationError",
          (e) =>
            retried === undefined ?
              Effect.fail(e) :
              Effect.flatMap(
                tokens.renew(retried, since),
                (fresh) => Option.isNone(fresh) ? Effect.fail(e) : attempt(call, decode, Effect.succeed(fresh.value))
              )
        )
      })

    /** `attempt`, then `recover` after a failure. A call that succeeds passes two failure-only frames. */
    const authorized = <A>(call: ApiCall, decode: Decode<A>): Effect.Effect<ApiResponse<A>, CallError> => {
      const once = attempt(call, decode)
      return catchFailure(once, (e) => recover(once, afterRefusal(call, decode), e, retrySchedule))
    }

    const quickSearchSpan = withSpanWhenTraced("DesignSearchClient.quickSearch")
    const quickSearch = (request: QuickSearchRequest) =>
      Effect.suspend(() => {
        const body = quickSearchBody(request)
        if (Either.isLeft(body)) return Effect.fail(body.left)
        return catchFailure(
          authorized({ method: "POST", path: "/search/quick", body: body.right }, decodeQuickSearchResult),
          (e) => Effect.fail(e._tag === "NotFoundError" ? notFoundIsUnexpected(e) : e)
        )
      }).pipe(quickSearchSpan)

    const getDesign = (designNumber: string) =>
      Effect.suspend(() => {
        if (typeof designNumber !== "string" || !isDesignNumber(designNumber)) {
          return Effect.fail(clientValidation([
            parameterError("ipRightIdentifier", "expected a design number: 1 to 12 letters or digits")
          ]))
        }
        return authorized({ method: "GET", path: `/design/${designNumber}`, body: undefined }, decodeDesign)
      }).pipe(withSpanWhenTraced("DesignSearchClient.getDesign", () => ({ designNumber })))

    const searchDesigns = (request: QuickSearchRequest, searchOptions: SearchDesignsOptions = {}) => {
      const read = readCaller("options", () => {
        if (typeof searchOptions !== "object" || searchOptions === null) {
          return Either.left(clientValidation([parameterError("options", "expected an object of options")]))
        }
        const { concurrency = 8, onSearch } = searchOptions
        if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
          return Either.left(clientValidation([parameterError("concurrency", "expected a positive integer")]))
        }
        return onSearch === undefined || typeof onSearch === "function"
          ? Either.right({ concurrency, onSearch })
          : Either.left(clientValidation([parameterError("onSearch", "expected a function")]))
      })
      if (Either.isLeft(read)) return Stream.fail(read.left)
      const { concurrency, onSearch } = read.right
      return Stream.unwrap(
        quickSearch(request).pipe(
          Effect.tap((response) => onSearch?.(response) ?? Effect.void),
          Effect.map((response) =>
            mapInOrder(
              response.data.designNumbers,
              (n: DesignNumber) => Effect.map(getDesign(n), (r) => r.data),
              concurrency
            )
          )
        )
      )
    }

    /** A request of `schema`, checked, and written: or the client `ValidationError` of why it cannot be sent. */
    const checkedRequest = <A>(decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>, request: unknown) =>
      readCaller("body", () => {
        const valid = decode(request)
        if (Either.isLeft(valid)) return Either.left(clientValidation(pointerErrors(valid.left)))
        return Either.map(requestJson(valid.right), (body) => ({ value: valid.right, body }))
      })
    const bodyOf = <A>(decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>, request: unknown) =>
      Either.map(checkedRequest(decode, request), ({ body }) => body)

    const advancedSearch = (request: AdvancedSearchRequest) =>
      Effect.suspend(() => {
        const body = bodyOf(decodeAdvancedSearchRequest, request)
        if (Either.isLeft(body)) return Effect.fail(body.left)
        return catchFailure(
          authorized({ method: "POST", path: "/search/advanced", body: body.right }, decodeSearchResult),
          (e) => Effect.fail(e._tag === "NotFoundError" ? notFoundIsUnexpected(e) : e)
        )
      }).pipe(withSpanWhenTraced("DesignSearchClient.advancedSearch"))

    const searchPage = (request: PageRequest) =>
      Effect.suspend(() => {
        const body = bodyOf(decodePageRequest, request)
        if (Either.isLeft(body)) return Effect.fail(body.left)
        return authorized({ method: "POST", path: "/page/advanced", body: body.right }, decodeDesignPage)
      }).pipe(withSpanWhenTraced("DesignSearchClient.searchPage"))

    // The paged operation's refusal, remembered for the client's life.
    let refused: Option.Option<Refusal> = Option.none()
    const paged = {
      searchPage,
      advancedSearch,
      getDesign,
      refused: () => refused,
      remember: (refusal: Refusal) => void (refused = Option.some(refusal))
    }
    const advancedDesigns = (request: AdvancedSearchRequest, pagedOptions: AdvancedDesignsOptions = {}) => {
      // The request is read once, here: its pages are made from what the schema decoded.
      const valid = checkedRequest(decodeAdvancedSearchRequest, request)
      if (Either.isLeft(valid)) return Stream.fail(valid.left)
      const read = readCaller("options", () => {
        const checked = checkPagedOptions(pagedOptions)
        return typeof checked === "string"
          ? Either.left(clientValidation([parameterError(checked, pagedProblems[checked])]))
          : Either.right(checked)
      })
      if (Either.isLeft(read)) return Stream.fail(read.left)
      return pagedDesigns(paged, valid.right.value, read.right)
    }

    return { quickSearch, getDesign, searchDesigns, advancedSearch, searchPage, advancedDesigns } satisfies Service
  })

/**
 * The client and the in-memory `TokenService` it uses, from `DesignSearchConfig` and the ambient
 * `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<
  DesignSearchClient | TokenService.TokenService,
  never,
  DesignSearchConfig.DesignSearchConfig | HttpClient.HttpClient
> => Layer.effect(DesignSearchClient, make(options)).pipe(Layer.provideMerge(TokenService.layer()))

/**
 * `layer` configured from the `IPAUSTRALIA_*` variables, over the default Node transport
 * (`UndiciHttpClient.layer`). To use another `HttpClient`, compose `layer` with
 * `DesignSearchConfig.layerConfig` and provide your own.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Options = {}
): Layer.Layer<DesignSearchClient | TokenService.TokenService, ConfigError.ConfigError> =>
  layer(options).pipe(Layer.provide(DesignSearchConfig.layerConfig), Layer.provide(UndiciHttpClient.layer))
