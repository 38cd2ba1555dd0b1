/**
 * Every full design matching an advanced search, page by page, or, where the paged operation is
 * refused, from an advanced search and one get per hit in the same pages. See docs/library.md.
 */
import { Effect, Option, Stream } from "effect"
import type { ApiResponse, ForbiddenError, Message, NotFoundError, UnexpectedResponseError } from "../../ApiError.js"
import * as NumberSet from "../../core/sandbox/numberSet.js"
import {
  fewerListedWarning,
  pagesOf,
  refusedWarning,
  repeatedWarning,
  shortPageWarning
} from "../../core/wire/paging.js"
import type {
  AdvancedSearchRequest,
  Design,
  DesignNumber,
  DesignPage,
  PageRequest,
  SearchResult
} from "../../Designs.js"
import { maxPageSize } from "../../Designs.js"

/**
 * The toolkit's one "then get each": `get` of every number, `concurrency` at once, emitted in the
 * numbers' order. The first failure fails the stream; the gets still running are interrupted.
 */
export const getEach = <B, E, R, E2 = never, R2 = never>(
  numbers: Stream.Stream<DesignNumber, E2, R2>,
  get: (designNumber: DesignNumber) => Effect.Effect<B, E, R>,
  concurrency: number
): Stream.Stream<B, E | E2, R | R2> => Stream.mapEffect(numbers, get, { concurrency })

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

export { fewerThanCounted, pagedProblems, pagedSearchUnavailable, repeatedDesigns } from "../../core/wire/paging.js"

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

const isOptionalFunction = (u: unknown): boolean => u === undefined || typeof u === "function"

/** The options, checked: the name of the first one that is wrong, or the values to use. */
export const checkPagedOptions = (options: unknown) => {
  if (typeof options !== "object" || options === null) return "options" as const
  const { concurrency = 4, onNotFound, onPage, pageSize = maxPageSize, startPage = 0 } = options as PagedOptions
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > maxPageSize) return "pageSize" as const
  if (!Number.isSafeInteger(startPage) || startPage < 0) return "startPage" as const
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) return "concurrency" as const
  if (!isOptionalFunction(onPage)) return "onPage" as const
  if (!isOptionalFunction(onNotFound)) return "onNotFound" as const
  return { pageSize, startPage, concurrency, onPage, onNotFound }
}

/** The options as the stream uses them: checked, each read once, the sizes given their defaults. */
export type CheckedPagedOptions = Exclude<ReturnType<typeof checkPagedOptions>, string>

/**
 * The designs of `request` from page `startPage` on, in order, each once. `E` is the operations'
 * failure; a refusal of the first page request switches to the fallback instead of failing.
 */
export const pagedDesigns = <E extends { readonly _tag: string }>(
  deps: PagedDeps<E>,
  request: AdvancedSearchRequest,
  { concurrency, onNotFound, onPage = () => Effect.void, pageSize, startPage }: CheckedPagedOptions
): Stream.Stream<Design, E | NotFoundError> => {
  /** A run of the stream over the paged operation; `emitted` is that run's own. */
  const paged = (first: ApiResponse<DesignPage>, emitted: NumberSet.NumberSet): Stream.Stream<Design, E> => {
    const { count } = first.data
    const pages = pagesOf(count, pageSize)

    /** A page read in order: its designs not emitted before (each is emitted once), set aside now. */
    const sift = (pageNumber: number, page: ApiResponse<DesignPage>) => {
      const { designs } = page.data
      const kept = designs.filter((d) => emitted.add(d.number))
      return { pageNumber, page, kept, short: designs.length < pageSize }
    }
    type Sifted = ReturnType<typeof sift>
    /**
     * Whether a page is the last one asked for: it holds fewer designs than a page holds, or none
     * that is new. The service's count decides nothing: a count that lies, or pages that repeat
     * themselves, never keep the stream asking.
     */
    const ends = (s: Sifted) => s.short || s.kept.length === 0

    /** Tells of a page, with what the stream has to say of it, then emits its new designs. */
    const tell = ({ kept, page, pageNumber, short }: Sifted) => {
      const held = page.data.designs.length
      const messages: Array<Message> = [...page.messages]
      const repeated = held - kept.length
      if (repeated > 0) messages.push(repeatedWarning(repeated, kept.length === 0 && !short))
      if (short && pageNumber < pages - 1) messages.push(shortPageWarning({ pageNumber, held, pageSize }, count, pages))
      const info: PageInfo = { pageNumber, pages, count, designs: kept.length, fallback: false, messages }
      return Stream.fromIterableEffect(Effect.as(onPage(info), kept))
    }

    return Stream.unwrap(Effect.sync(() => {
      const head = sift(startPage, first)
      const rest = ends(head) || startPage + 1 > pages - 1
        ? Stream.empty
        : Stream.range(startPage + 1, pages - 1).pipe(
          Stream.mapEffect(
            (n) => Effect.map(deps.searchPage({ ...request, pageNumber: n, pageSize }), (page) => [n, page] as const),
            { concurrency }
          ),
          Stream.map(([n, page]) => sift(n, page)),
          Stream.takeUntil(ends),
          Stream.flatMap(tell)
        )
      return Stream.concat(tell(head), rest)
    }))
  }

  const fallback = (refusal: Refusal): Stream.Stream<Design, E | NotFoundError> =>
    Stream.unwrap(Effect.map(deps.advancedSearch(request), (search) => {
      const numbers = [...new Set(search.data.designNumbers)]
      const pages = pagesOf(numbers.length, pageSize)
      // A get answered with a design already emitted (under another number) is not emitted again.
      const emitted = NumberSet.make()
      const once = (design: Option.Option<Design>): design is Option.Some<Design> =>
        Option.isSome(design) && emitted.add(design.value.number)
      const notices: Array<Message> = [refusedWarning(refusal.status)]
      if (search.data.count > numbers.length) notices.push(fewerListedWarning(search.data.count, numbers.length))
      // Like the paged operation, a page past the end is told, with no designs.
      const pageNumbers = Array.from({ length: Math.max(1, pages - startPage) }, (_, i) => startPage + i)
      const get = (n: DesignNumber): Effect.Effect<Option.Option<Design>, E | NotFoundError> => {
        const got = Effect.map(deps.getDesign(n), (r) => Option.some(r.data))
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
          messages: pageNumber === startPage ? [...notices, ...search.messages] : []
        }
        const designs = getEach(Stream.fromIterable(slice), get, concurrency)
        return Stream.unwrap(Effect.as(onPage(page), Stream.map(Stream.filter(designs, once), (d) => d.value)))
      })
    }))

  return Stream.unwrap(Effect.sync(() => {
    const known = deps.refused()
    if (Option.isSome(known)) return fallback(known.value)
    return Stream.unwrap(
      deps.searchPage({ ...request, pageNumber: startPage, pageSize }).pipe(
        // The numbers emitted so far: a design the results moved onto a later page is emitted once.
        Effect.map((first) => paged(first, NumberSet.make())),
        Effect.catchIf(isRefusal, (refusal) => Effect.sync(() => (deps.remember(refusal), fallback(refusal))))
      )
    )
  }))
}
