/**
 * The `DesignSearchClient`: the operations of the design search API (quick, advanced and paged
 * search, get by design number) and streams of full designs, over the ambient `HttpClient`. Each
 * request is checked by its schema before it is sent; each answer is an `ApiResponse` or one of the
 * exact union of `ApiError`s its operation can produce. The body is in `internal/client/`; see
 * docs/library.md.
 * @since 0.1.0
 */
import { FetchHttpClient, Service as Tag } from "#edition/internal/seam"
import type { ConfigErrorType, HttpClient } from "#edition/internal/seam"
import type { Effect, Schedule, Stream } from "effect"
import { Layer } from "effect"
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
  TransportError,
  UnexpectedResponseError,
  ValidationError
} from "./ApiError.js"
import type {
  AdvancedSearchRequest,
  Design,
  DesignPage,
  PageRequest,
  QuickSearchRequest,
  QuickSearchResult,
  SearchResult
} from "./Designs.js"
import * as DesignSearchConfig from "./DesignSearchConfig.js"
import * as Operations from "./internal/client/operations.js"
import type { PagedOptions } from "./internal/client/paged.js"
import * as TokenService from "./TokenService.js"

export type {
  /**
   * What an operation returns on success; defined in `ApiError`.
   * @since 0.1.0
   * @category models
   */
  ApiResponse
} from "./ApiError.js"

/**
 * Errors every API call can produce.
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
 * @since 0.1.0
 * @category errors
 */
export type QuickSearchError = CommonError

/**
 * What `getDesign` fails with: a 404 is `NotFoundError`.
 * @since 0.1.0
 * @category errors
 */
export type GetDesignError = CommonError | NotFoundError

/**
 * What `advancedSearch` fails with.
 * @since 0.3.0
 * @category errors
 */
export type AdvancedSearchError = CommonError

/**
 * What `searchPage` fails with: a 404 (no such operation for this client) is `NotFoundError`.
 * @since 0.3.0
 * @category errors
 */
export type SearchPageError = CommonError | NotFoundError

/**
 * What `advancedDesigns` fails with.
 * @since 0.3.0
 * @category errors
 */
export type AdvancedDesignsError = SearchPageError | AdvancedSearchError | GetDesignError

/**
 * What `searchDesigns` fails with.
 * @since 0.1.0
 * @category errors
 */
export type SearchDesignsError = QuickSearchError | GetDesignError

/**
 * Options of `searchDesigns`.
 * @since 0.1.0
 * @category options
 */
export interface SearchDesignsOptions {
  /**
   * How many designs are fetched at once (default 8; a positive integer, or the stream fails with
   * a client `ValidationError`). Designs are emitted in search order (in Effect 3, in chunks of up
   * to half the concurrency).
   */
  readonly concurrency?: number | undefined
  /** Sees the search's answer (count, numbers, messages) before the first design is fetched. */
  readonly onSearch?: ((response: ApiResponse<QuickSearchResult>) => Effect.Effect<void>) | undefined
}

/**
 * Options of `advancedDesigns`: page size, the page to start from, requests at once, and what to
 * tell of each page (`PageInfo`).
 * @since 0.3.0
 * @category options
 */
export type AdvancedDesignsOptions = PagedOptions

export {
  /**
   * The code of the warning in `PageInfo.messages` when the service's pages or list hold fewer
   * designs than it counted: a page before the last held fewer than `pageSize` (no later page is
   * asked for), or in the fallback the search listed fewer numbers than it counted (its cap).
   * @since 0.3.0
   * @category constants
   */
  fewerThanCounted,
  /**
   * The code of the warning in `PageInfo.messages` when the paged operation was refused (403, 404,
   * 405) and `advancedDesigns` fetches each design on its own.
   * @since 0.3.0
   * @category constants
   */
  pagedSearchUnavailable,
  /**
   * The code of the warning in `PageInfo.messages` when a page held designs an earlier page of the
   * same stream held (the results changed while they were read): each design is emitted once.
   * @since 0.3.0
   * @category constants
   */
  repeatedDesigns
} from "./internal/client/paged.js"

export type {
  /**
   * What `advancedDesigns` tells of each page before its designs.
   * @since 0.3.0
   * @category models
   */
  PageInfo
} from "./internal/client/paged.js"

/**
 * The operations of the design search API. Each fails only with its exact union of `ApiError`s.
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
 * @since 0.1.0
 * @category tags
 */
export class DesignSearchClient extends Tag<DesignSearchClient, Service>()("effect-design-search/DesignSearchClient") {}

export {
  /**
   * How long the budget holds calls back after a 429 that named no `Retry-After`.
   * @since 0.2.0
   * @category retries
   */
  defaultBackOff,
  /**
   * Retries of read-only calls: jittered exponential backoff from 250 ms, three retries, a 429's
   * `Retry-After` honoured up to 30 seconds. Only transient failures are retried (`isTransient`).
   * @since 0.1.0
   * @category retries
   */
  defaultRetrySchedule,
  /**
   * Makes a retry schedule wait at least a 429's `Retry-After`, and stop retrying when the server
   * asks for a wait longer than `cap`.
   * @since 0.1.0
   * @category retries
   */
  honorRetryAfter,
  /**
   * Whether a failure is worth another try of a read-only request.
   * @since 0.1.0
   * @category retries
   */
  isTransient
} from "./internal/http/retry.js"

/**
 * Options of `make`, `layer` and `layerConfig`.
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
 * Builds the client from the ambient `HttpClient`, `DesignSearchConfig` and `TokenService`. With a
 * `RequestBudget` in its context, every request to the API waits for a slot of it, and a 429
 * backs the budget off.
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<
  Service,
  never,
  DesignSearchConfig.DesignSearchConfig | TokenService.TokenService | HttpClient.HttpClient
> => Operations.make(options)

/**
 * The client and the in-memory `TokenService` it uses, from `DesignSearchConfig` and the ambient
 * `HttpClient`.
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
 * `layer` configured from the `IPAUSTRALIA_*` variables, over `FetchHttpClient.layer` (no runtime
 * dependency). To use another `HttpClient` (`NodeHttpClient.layerUndici` from
 * `@effect/platform-node`, say), compose `layer` with `DesignSearchConfig.layerConfig` and provide
 * your own.
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Options = {}
): Layer.Layer<DesignSearchClient | TokenService.TokenService, ConfigErrorType> =>
  layer(options).pipe(Layer.provide(DesignSearchConfig.layerConfig), Layer.provide(FetchHttpClient.layer))
