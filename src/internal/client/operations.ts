/**
 * The operations of `DesignSearchClient`: each request checked by its schema (nothing is sent when
 * it fails), sent as one authorized call, its answer decoded by the operation's schema; and the
 * streams of full designs built on them.
 */
import { decodeUnknownResult, fromResult, HttpClient, HttpClientRequest } from "#edition/internal/seam"
import { reportInput, Result, updateContext } from "#edition/internal/seam"
import { Context, Effect, Option, Stream, Tracer } from "effect"
import type { ApiResponse, NotFoundError, ValidationError } from "../../ApiError.js"
import { UnexpectedResponseError } from "../../ApiError.js"
import { Design, DesignPage, SearchResult } from "../../Designs.js"
import type { AdvancedSearchRequest, QuickSearchRequest } from "../../Designs.js"
import { DesignSearchConfig } from "../../DesignSearchConfig.js"
import { TokenService } from "../../TokenService.js"
import { withoutFollowingRedirects } from "../http/send.js"
import { clientValidation, parameterError } from "../validation.js"
import { callOf, makeCall } from "./calls.js"
import type { Call, CallError, CallOptions } from "./calls.js"
import { checkPagedOptions, getEach, pagedDesigns, pagedProblems } from "./paged.js"
import type { PagedOptions, Refusal } from "./paged.js"
import { checkAdvancedSearch, checkDesignNumber, checkPage, checkQuickSearch, positiveInt } from "./requests.js"

const decodeDesign = decodeUnknownResult(Design, reportInput)
const decodeDesignPage = decodeUnknownResult(DesignPage, reportInput)
const decodeResult = decodeUnknownResult(SearchResult, reportInput)

/** A search result, its numbers read from `designNumbers` or, failing that, `designIds`. */
export const decodeSearchResult = (u: unknown) => {
  if (typeof u !== "object" || u === null || !("designIds" in u) || "designNumbers" in u) return decodeResult(u)
  const { designIds, ...rest } = u
  return decodeResult({ ...rest, designNumbers: designIds })
}

/** A 404 where the operation has no such outcome is an unexpected response. */
const notFoundIsUnexpected = <A>(effect: Effect.Effect<A, CallError>) =>
  Effect.catchTag(effect, "NotFoundError", (e: NotFoundError) =>
    Effect.fail(
      new UnexpectedResponseError({ status: e.status, excerpt: e.excerpt, issue: "unexpected HTTP status 404" })
    ))

const post = (path: string, body: unknown) =>
  HttpClientRequest.bodyText(HttpClientRequest.post(path), JSON.stringify(body), "application/json")

/** The options of `searchDesigns`: an object, `concurrency` a positive integer, `onSearch` a function. */
const checkSearchOptions = (options: unknown) => {
  if (typeof options !== "object" || options === null) {
    return Result.fail(clientValidation([parameterError("options", pagedProblems.options)]))
  }
  const { concurrency = 8, onSearch } = options as { concurrency?: unknown; onSearch?: unknown }
  return onSearch === undefined || typeof onSearch === "function"
    ? positiveInt("concurrency", concurrency)
    : Result.fail(clientValidation([parameterError("onSearch", pagedProblems.onSearch)]))
}

/**
 * The operation `DesignSearchClient.{name}`: its input checked (nothing is sent when it is refused),
 * then sent as what the check decoded; a client span whose context also tells `fetch` not to follow
 * redirects (what `call` needs), both provided at once, as a span provides itself anyway.
 */
const operation = <I, B, A, E>(
  name: string,
  check: (input: I) => Result<B, ValidationError>,
  send: (checked: B) => Effect.Effect<A, E>,
  attributes?: (input: I) => Readonly<Record<string, unknown>>
) =>
(input: I): Effect.Effect<A, E | ValidationError> => {
  // not a literal: Effect 4's `useSpan` takes no `captureStackTrace` (it captures no stack anyway)
  const options = { kind: "client", attributes: attributes?.(input), captureStackTrace: false } as const
  return Effect.useSpan(`DesignSearchClient.${name}`, options, (span) => {
    const checked: Effect.Effect<A, E | ValidationError> = Effect.flatMap(fromResult(check(input)), send)
    return updateContext(
      checked,
      (context: Context.Context<never>) => withoutFollowingRedirects(Context.add(context, Tracer.ParentSpan, span))
    )
  })
}

/** The operations over one authorized `call`. */
const operations = (call: Call) => {
  const search = (path: string) => (body: unknown) => notFoundIsUnexpected(call(post(path, body), decodeSearchResult))
  const quickSearch = operation("quickSearch", checkQuickSearch, search("/search/quick"))
  const advancedSearch = operation("advancedSearch", checkAdvancedSearch, search("/search/advanced"))
  const searchPage = operation("searchPage", checkPage, (body) => call(post("/page/advanced", body), decodeDesignPage))
  const getDesign = operation(
    "getDesign",
    checkDesignNumber,
    (n) => call(HttpClientRequest.get(`/design/${n}`), decodeDesign),
    (designNumber) => ({ designNumber })
  )

  const searchDesigns = (
    request: QuickSearchRequest,
    options: {
      readonly concurrency?: number | undefined
      readonly onSearch?: ((response: ApiResponse<SearchResult>) => Effect.Effect<void>) | undefined
    } = {}
  ) =>
    Stream.unwrap(
      Effect.flatMap(Effect.suspend(() => fromResult(checkSearchOptions(options))), (concurrency) =>
        Effect.map(
          Effect.tap(quickSearch(request), (response) => options.onSearch?.(response) ?? Effect.void),
          (response) =>
            getEach(
              Stream.fromIterable(response.data.designNumbers),
              (n) => Effect.map(getDesign(n), (r) => r.data),
              concurrency
            )
        ))
    )

  // The paged operation's refusal, remembered for the client's life.
  let refused: Option.Option<Refusal> = Option.none()
  const paged = {
    searchPage,
    advancedSearch,
    getDesign,
    refused: () => refused,
    remember: (refusal: Refusal) => void (refused = Option.some(refusal))
  }
  // The request is read once, when the stream runs (a getter that throws dies there, not in the
  // call): its pages are made from what the schema decoded.
  const advancedDesigns = (request: AdvancedSearchRequest, options: PagedOptions = {}) =>
    Stream.unwrap(Effect.suspend(() => {
      const read = checkPagedOptions(options)
      return Effect.map(fromResult(checkAdvancedSearch(request)), (checked) =>
        typeof read === "string"
          ? Stream.fail(clientValidation([parameterError(read, pagedProblems[read])]))
          : pagedDesigns(paged, checked, read))
    }))

  return { quickSearch, getDesign, advancedSearch, searchPage, searchDesigns, advancedDesigns }
}

/** The operations over the ambient `HttpClient`, `DesignSearchConfig` and `TokenService`. */
export const make = (options: CallOptions) =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig
    const tokens = yield* TokenService
    const ambient = yield* HttpClient.HttpClient
    return operations(callOf(yield* makeCall(config, tokens, ambient, options)))
  })
