/**
 * Every full design matching an advanced search, page by page: about one request per `pageSize`
 * designs instead of one per design. Where the paged operation is refused (403, 404 or 405: not
 * subscribed, or absent), the same designs come from an advanced search and one get per hit,
 * split into the same pages; the client remembers the refusal for its life, so it is asked once.
 */
import { Effect, Option, Stream } from "effect"
import type { ApiResponse, ForbiddenError, Message, NotFoundError, UnexpectedResponseError } from "../ApiError.js"
import type { AdvancedSearchRequest, Design, DesignNumber, DesignPage, PageRequest, SearchResult } from "../Designs.js"
import { maxPageSize } from "../Designs.js"
import { mapInOrder } from "./orderedParallel.js"

/** What one page of the stream was, told before its designs are emitted. */
export interface PageInfo {
  /** The page's number, from 0. */
  readonly pageNumber: number
  /** How many pages the search has in all, at `pageSize` designs a page. */
  readonly pages: number
  /** How many designs match, as the service counted them. */
  readonly count: number
  /** How many designs this page holds. */
  readonly designs: number
  /** Whether the designs come from the advanced search and one get each (`pagedSearchUnavailable`). */
  readonly fallback: boolean
  /** The service's messages with this page (with the search's, in the fallback), and the fallback's notice. */
  readonly messages: ReadonlyArray<Message>
}

/** Options of the paged stream. */
export interface PagedOptions {
  /** Designs a page, 1 to 100 (default 100). */
  readonly pageSize?: number | undefined
  /** The first page to fetch, from 0 (default 0): a stopped run resumes where it stopped. */
  readonly startPage?: number | undefined
  /** Requests at once: pages, or in the fallback designs (default 4). */
  readonly concurrency?: number | undefined
  /** Told of each page, in order, before its designs are emitted. */
  readonly onPage?: ((page: PageInfo) => Effect.Effect<void>) | undefined
  /**
   * In the fallback, a design the service no longer finds (withdrawn since the search) is left out
   * and told here; without it, its `NotFoundError` fails the stream.
   */
  readonly onNotFound?: ((designNumber: DesignNumber) => Effect.Effect<void>) | undefined
}

/** The code of the notice that the paged operation was refused and the fallback is used. */
export const pagedSearchUnavailable = "PAGED_SEARCH_UNAVAILABLE"

/** A refusal of the paged operation: not subscribed (403) or absent (404, 405). */
export type Refusal = ForbiddenError | NotFoundError | UnexpectedResponseError

/** Whether a failure of the paged operation means it is not there for this client. */
export const isRefusal = <E extends { readonly _tag: string }>(error: E): error is E & Refusal =>
  error._tag === "ForbiddenError" || error._tag === "NotFoundError" ||
  (error._tag === "UnexpectedResponseError" && "status" in error && error.status === 405)

/** The operations the stream is made of, and the client's memory of a refusal. */
export interface PagedDeps<E> {
  readonly searchPage: (request: PageRequest) => Effect.Effect<ApiResponse<DesignPage>, E>
  readonly advancedSearch: (request: AdvancedSearchRequest) => Effect.Effect<ApiResponse<SearchResult>, E>
  readonly getDesign: (designNumber: string) => Effect.Effect<ApiResponse<Design>, E | NotFoundError>
  /** The refusal remembered, if the paged operation was refused before. */
  readonly refused: () => Option.Option<Refusal>
  readonly remember: (refusal: Refusal) => void
}

/** What is wrong with each option that can be. */
export const pagedProblems = {
  pageSize: "expected an integer from 1 to 100",
  startPage: "expected an integer from 0",
  concurrency: "expected a positive integer"
} as const

type PagedProblems = typeof pagedProblems

/** The options, checked: the name of the first one that is wrong, or the values to use. */
export const checkPagedOptions = (
  options: PagedOptions
): { readonly pageSize: number; readonly startPage: number; readonly concurrency: number } | keyof PagedProblems => {
  const { concurrency = 4, pageSize = maxPageSize, startPage = 0 } = options
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > maxPageSize) return "pageSize"
  if (!Number.isSafeInteger(startPage) || startPage < 0) return "startPage"
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) return "concurrency"
  return { pageSize, startPage, concurrency }
}

const pagesOf = (count: number, pageSize: number) => Math.ceil(count / pageSize)

/** `request` as the page `pageNumber` of `pageSize` designs. */
const pageOf = (request: AdvancedSearchRequest, pageNumber: number, pageSize: number): PageRequest => ({
  ...request,
  pageNumber,
  pageSize
})

/**
 * The designs of `request` from page `startPage` on, in order. `E` is the operations' failure; a
 * refusal of the first page request switches to the fallback instead of failing.
 */
export const pagedDesigns = <E extends { readonly _tag: string }>(
  deps: PagedDeps<E>,
  request: AdvancedSearchRequest,
  { concurrency, pageSize, startPage }: {
    readonly pageSize: number
    readonly startPage: number
    readonly concurrency: number
  },
  options: PagedOptions
): Stream.Stream<Design, E | NotFoundError> => {
  const onPage = options.onPage ?? (() => Effect.void)
  const told = (page: PageInfo, designs: ReadonlyArray<Design>) => Effect.as(onPage(page), designs)

  const paged = (first: ApiResponse<DesignPage>): Stream.Stream<Design, E> => {
    const { count } = first.data
    const pages = pagesOf(count, pageSize)
    const info = (pageNumber: number, page: ApiResponse<DesignPage>): PageInfo => ({
      pageNumber,
      pages,
      count,
      designs: page.data.designs.length,
      fallback: false,
      messages: page.messages
    })
    const rest = Array.from({ length: Math.max(0, pages - startPage - 1) }, (_, i) => startPage + 1 + i)
    const later = mapInOrder(
      rest,
      (n: number) =>
        Effect.flatMap(deps.searchPage(pageOf(request, n, pageSize)), (page) => told(info(n, page), page.data.designs)),
      concurrency
    )
    return Stream.concat(
      Stream.fromIterableEffect(told(info(startPage, first), first.data.designs)),
      Stream.flattenIterables(later)
    )
  }

  const fallback = (refusal: Refusal): Stream.Stream<Design, E | NotFoundError> =>
    Stream.unwrap(Effect.map(deps.advancedSearch(request), (search) => {
      const numbers = search.data.designNumbers
      const pages = pagesOf(numbers.length, pageSize)
      const notice: Message = {
        code: pagedSearchUnavailable,
        detail: `the paged search was refused (HTTP ${refusal.status}); each design is fetched on its own`,
        severity: "warning"
      }
      // Like the paged operation, a page past the end is told, with no designs.
      const pageNumbers = Array.from({ length: Math.max(1, pages - startPage) }, (_, i) => startPage + i)
      const get = (n: DesignNumber): Effect.Effect<Option.Option<Design>, E | NotFoundError> => {
        const got = Effect.map(deps.getDesign(n), (r) => Option.some(r.data))
        const { onNotFound } = options
        return onNotFound === undefined
          ? got
          : Effect.catchIf(
            got,
            (e): e is NotFoundError => e._tag === "NotFoundError",
            () => Effect.as(onNotFound(n), Option.none())
          )
      }
      return Stream.flatMap(Stream.fromIterable(pageNumbers), (pageNumber) => {
        const slice = numbers.slice(pageNumber * pageSize, (pageNumber + 1) * pageSize)
        const page: PageInfo = {
          pageNumber,
          pages,
          count: search.data.count,
          designs: slice.length,
          fallback: true,
          messages: pageNumber === startPage ? [notice, ...search.messages] : []
        }
        return Stream.unwrap(Effect.as(onPage(page), Stream.filterMap(mapInOrder(slice, get, concurrency), (d) => d)))
      })
    }))

  return Stream.unwrap(Effect.sync(() => {
    const known = deps.refused()
    if (Option.isSome(known)) return fallback(known.value)
    return Stream.unwrap(
      deps.searchPage(pageOf(request, startPage, pageSize)).pipe(
        Effect.map(paged),
        Effect.catchIf(isRefusal, (refusal) => Effect.sync(() => (deps.remember(refusal), fallback(refusal))))
      )
    )
  }))
}
