/**
 * The body of `AuthorizedClient`: any request to the family's APIs sent as the design search
 * operations are (`calls.ts`: budget, token, renewal on a 401, retries, one deadline), its answer
 * handed back as a response masked of the token; and the one reader of answers as `ApiResponse`s.
 */
import type { Decoding } from "#edition/internal/domainSchemas"
import { decodeUnknownResult, HttpClient, HttpClientRequest, HttpClientResponse } from "#edition/internal/seam"
import { catchAll, invalidConfig, reportInput, updateContext } from "#edition/internal/seam"
import type { ConfigErrorType } from "#edition/internal/seam"
import type { Context } from "effect"
import { Clock, Effect, Function } from "effect"
import { UnexpectedResponseError } from "../../ApiError.js"
import type { ApiResponse, TokenError, TransportError } from "../../ApiError.js"
import { noMask } from "../../core/mask/mask.js"
import type { Mask } from "../../core/mask/mask.js"
import { apiPaths, resolveUrl } from "../../core/wire/service.js"
import type { Api } from "../../core/wire/service.js"
import { DesignSearchConfig } from "../../DesignSearchConfig.js"
import { TokenService } from "../../TokenService.js"
import { classify, errorFromResponse } from "../http/answers.js"
import type { StatusError } from "../http/answers.js"
import { isTransient } from "../http/retry.js"
import { exchange, fromClientError, originOf, withoutFollowingRedirects } from "../http/send.js"
import type { Answer } from "../http/send.js"
import type { CallError, CallOptions } from "./calls.js"
import { makeCall } from "./calls.js"

/** What a request of the `AuthorizedClient` fails with: no answer, no token, or an answer no response can hold. */
export type AuthorizedError = TransportError | TokenError | UnexpectedResponseError

/** Options of the `AuthorizedClient`. */
export interface Options {
  /**
   * Which API a relative URL is below: a name of `apiPaths` (default `designSearch`) or a base path
   * (`/public/australian-trade-mark-search-api/v1`). A path that starts with `/public/` is below the
   * host, and an absolute URL is sent as it is.
   */
  readonly api?: Api | `/${string}` | undefined
  /** Applied to the ambient `HttpClient` for these requests (not token requests): tracing, proxies, logging. */
  readonly transformClient?: CallOptions["transformClient"]
  /**
   * Replaces `DesignSearchClient.defaultRetrySchedule`; it sees the transient failures of a request
   * that may be sent again (idempotent, or a search). Any other is tried again only after a 429.
   */
  readonly retrySchedule?: CallOptions["retrySchedule"]
}

/** The base path of `api`, or the `ConfigError` naming the option. */
const basePath = (api: unknown): Effect.Effect<string, ConfigErrorType> =>
  api === undefined
    ? Effect.succeed(apiPaths.designSearch)
    : typeof api === "string" && Object.hasOwn(apiPaths, api)
    ? Effect.succeed(apiPaths[api as Api])
    : typeof api === "string" && /^(?:\/[\w.~!$&'()*+,;=:@%-]+)+\/?$/.test(api)
    ? Effect.succeed(api.replace(/\/+$/, ""))
    : Effect.fail(invalidConfig(["api"], `expected one of ${Object.keys(apiPaths).join(", ")}, or a base path`))

/** Methods that may be sent again after a failure the server may have acted on (RFC 9110, 9.2.2). */
const idempotent = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"])

/**
 * Whether `request` may be tried again after any transient failure: an idempotent method, or a POST
 * to one of the family's searches (`.../search/quick`, `.../search/advanced`, `.../page/advanced`),
 * which change nothing. Any other (a renewal) is tried again only after a 429, which was not acted on.
 */
const repeatable = (request: HttpClientRequest.HttpClientRequest): boolean =>
  idempotent.has(request.method) ||
  (request.method === "POST" && URL.canParse(request.url) &&
    /\/(?:search\/quick|search\/advanced|page\/advanced)$/.test(new URL(request.url).pathname))

const onlyRateLimits = (error: CallError) => error._tag === "RateLimitError"

/** An answer as the application sees it: its headers as pairs. */
type Shown = Omit<Answer, "headers"> & { readonly headers: Array<[string, string]> }

/** Headers that describe the body as it was sent: the response holds it decoded and masked. */
const ofTheWire = new Set(["content-length", "content-encoding", "transfer-encoding"])

/**
 * `answer` with every form of the token masked out of its body and headers; a header named by
 * one, one of the wire, or one a response cannot hold (a name with a space) is dropped.
 */
const masked = (answer: Answer, mask: Mask): Shown => ({
  status: answer.status,
  headers: Object.entries(answer.headers).flatMap(([name, value]) =>
    mask.inName(name) || ofTheWire.has(name) || !/^[!#$%&'*+.^`|~\w-]+$/.test(name) || /[\0\r\n]/.test(value)
      ? []
      : [[name, mask.text(value)] as [string, string]]
  ),
  text: mask.text(answer.text)
})

const encoder = new TextEncoder()

/** Statuses whose response has no body (the Fetch standard's null body statuses). */
const nullBody = new Set([204, 205, 304])

/** The response of `request` that holds `answer`; a status a response cannot have is an `UnexpectedResponseError`. */
const toResponse = (request: HttpClientRequest.HttpClientRequest, answer: Shown) => {
  const refused = (issue: string) => new UnexpectedResponseError({ status: answer.status, excerpt: "", issue })
  return answer.status < 200 || answer.status > 599
    ? Effect.fail(refused(`unexpected HTTP status ${answer.status}`))
    : Effect.try({
      try: () =>
        HttpClientResponse.fromWeb(
          request,
          // bytes, not a string: a string would give the response a content type the server never sent
          new Response(nullBody.has(answer.status) ? null : encoder.encode(answer.text), answer)
        ),
      catch: () => refused("the answer's headers cannot be held in a response")
    })
}

/**
 * One request's reader: a 2xx, 3xx or 4xx answer is the response; a 401 and a 429 or 5xx fail
 * with their typed errors, for the renewal and the retries to see. `settle` gives back the answer
 * whose error ended the call: the last try's answer is the response, whatever its status.
 */
const reader = () => {
  let last: { readonly error: CallError; readonly answer: Shown } | undefined
  const read = (answer: Answer, mask: () => Mask) => {
    const shown = masked(answer, mask())
    if (answer.status !== 401 && answer.status !== 429 && answer.status < 500) return Effect.succeed(shown)
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const error = errorFromResponse(answer.status, answer.headers, answer.text, now, mask())
      last = { error, answer: shown }
      return Effect.fail(error)
    })
  }
  const settle = (error: CallError): Effect.Effect<Shown, AuthorizedError> =>
    last?.error === error
      ? Effect.succeed(last.answer)
      : error._tag === "TransportError" || error._tag === "TokenError" || error._tag === "UnexpectedResponseError"
      ? Effect.fail(error)
      // only `read` fails with a status error, and it keeps that error's answer: never reached
      : Effect.fail(new UnexpectedResponseError({ status: 0, excerpt: "", issue: error.message }))
  return { read, settle }
}

/** The client over the ambient `HttpClient`, `DesignSearchConfig` and `TokenService`. */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const config = yield* DesignSearchConfig
    const tokens = yield* TokenService
    const ambient = yield* HttpClient.HttpClient
    const base = yield* basePath(options.api)
    const send = yield* makeCall(config, tokens, ambient, { ...options, base: "" })
    const origin = originOf(config.apiBaseUrl)
    const limits = { timeout: config.requestTimeout, maxBodyBytes: config.maxBodyBytes }
    const elsewhere = (options.transformClient ?? Function.identity)(ambient)

    const execute = (
      request: HttpClientRequest.HttpClientRequest
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, AuthorizedError> => {
      const resolved = HttpClientRequest.setUrl(request, resolveUrl(config.apiBaseUrl, base, request.url))
      // Another origin gets the request as the application wrote it: no token, no turn of the budget.
      if (originOf(resolved.url) !== origin) {
        return Effect.flatMap(exchange(elsewhere, resolved, limits), (answer) =>
          toResponse(resolved, masked(answer, noMask)))
      }
      const { read, settle } = reader()
      const answered = catchAll(send(resolved, read, repeatable(resolved) ? isTransient : onlyRateLimits), settle)
      return Effect.flatMap(answered, (answer) =>
        toResponse(resolved, answer))
    }
    return HttpClient.makeWith<never, never, AuthorizedError, never>(
      (request) =>
        Effect.flatMap(request, (r) =>
          updateContext(execute(r), (context: Context.Context<never>) =>
            withoutFollowingRedirects(context))),
      Effect.succeed
    )
  })

/**
 * Reads `response` as the design search operations read their answers: a 2xx as an `ApiResponse`
 * of `schema`'s data and the messages beside it, anything else as its typed error (spec 7).
 */
export const apiResponse = <A, I>(schema: Decoding<A, I>) => {
  const decode = decodeUnknownResult(schema, reportInput)
  return (
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<ApiResponse<A>, StatusError | TransportError> =>
    Effect.flatMap(
      Effect.mapError(response.text, fromClientError),
      (text) => classify(decode, { status: response.status, headers: response.headers, text }, () => noMask)
    )
}
