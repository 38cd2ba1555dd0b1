/**
 * The one request path of every API and token request: `send` reads the answer whole within the
 * cap and one deadline on Effect's `Clock`, redirects never followed. See docs/reliability.md.
 */
import { catchAll, catchDefect, clientErrorReason, FetchHttpClient, HttpClient } from "#edition/internal/seam"
import { removeHeader, timeoutFail, updateContext, yieldNow } from "#edition/internal/seam"
import type { Headers, HttpClientError, HttpClientRequest, HttpClientResponse } from "#edition/internal/seam"
import { Context, Duration, Effect, Option, Stream } from "effect"
import { TransportError, UnexpectedResponseError } from "../../ApiError.js"
import { keptText, noMask } from "../../core/mask/mask.js"
import type { Mask } from "../../core/mask/mask.js"

/** What bounds every request: one deadline for the whole exchange, body included, and the body's size. */
export interface Limits {
  readonly timeout: Duration.Duration
  readonly maxBodyBytes: number
  /** The credentials the request carries, masked out of what a failure tells (a client may quote a header). */
  readonly mask?: (() => Mask) | undefined
}

/** What a request brings back: enough to classify it. */
export interface Answer {
  readonly status: number
  readonly headers: Headers.Headers
  readonly text: string
}

/** Why a request brought back no answer: no response in time, or a body over the cap. */
export type SendError = TransportError | UnexpectedResponseError

/** The origin of an absolute URL (`scheme://host[:port]`), or `""`. */
export const originOf = (url: string): string => URL.canParse(url) ? new URL(url).origin : ""

/**
 * `client` with the `Authorization` header dropped from any request that leaves `origin`, such as
 * a redirect a `transformClient` follows: the token goes to the configured API and nowhere else.
 * It sits below every transformation, where followed redirects pass too.
 */
export const confine = (client: HttpClient.HttpClient, origin: string): HttpClient.HttpClient =>
  HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
    (request) =>
      Effect.flatMap(request, (r) =>
        client.execute(
          r.headers["authorization"] === undefined || originOf(r.url) === origin ? r : removeHeader(r, "authorization")
        )),
    Effect.succeed
  )

const transportError = (reason: TransportError["reason"], method: string, url: string, detail: string) =>
  new TransportError({ reason, method, url, detail })

/** `error` with its `detail` masked of `mask`'s secrets and bounded, as a server's text is. */
const maskedTransport = (mask: () => Mask) => (error: SendError): SendError =>
  error._tag === "TransportError" ?
    transportError(error.reason, error.method, error.url, keptText(mask(), error.detail)) :
    error

/** What went wrong below the client, as its errors tell it (`fetch failed: ECONNREFUSED ...`), at most three deep. */
const causeOf = (cause: unknown, depth = 0): ReadonlyArray<string> =>
  cause instanceof Error && depth < 3
    ? [
      ("code" in cause && typeof cause.code === "string" ? `${cause.code} ` : "") + cause.message,
      ...causeOf(cause.cause, depth + 1)
    ]
    : []

/** A failure before any response is `Network`; one while reading the response is `Body`. */
export const fromClientError = (error: HttpClientError.HttpClientError) => {
  const { name, reason } = clientErrorReason(error)
  return transportError(
    "response" in reason ? "Body" : "Network",
    reason.request.method,
    reason.request.url,
    [name, ...(reason.description === undefined ? [] : [reason.description]), ...causeOf(reason.cause)].join(": ")
  )
}

const bodyTooLarge = (status: number, size: string, maxBytes: number) =>
  new UnexpectedResponseError({
    status,
    excerpt: "",
    issue: `response body of ${size} bytes exceeds the cap of ${maxBytes} bytes`
  })

const decoder = new TextDecoder()

/**
 * The body as text, refused past `maxBytes`: unread when its `Content-Length` says so; read whole
 * when that length is what comes (an identity encoding); else counted as it streams (a client that
 * decompresses, as fetch does, hands over more than was declared).
 */
const readCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, SendError> => {
  const declared = response.headers["content-length"]
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    // the stream started and stopped at once closes the body (and its connection) unread
    return Effect.andThen(
      Effect.ignore(Effect.raceFirst(Stream.runHead(response.stream), yieldNow)),
      Effect.fail(bodyTooLarge(response.status, declared, maxBytes))
    )
  }
  const encoding = response.headers["content-encoding"]
  if (declared !== undefined && /^\d+$/.test(declared) && (encoding === undefined || encoding === "identity")) {
    return Effect.mapError(response.text, fromClientError)
  }
  return Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let total = 0
    return Stream.runForEach(response.stream, (chunk) => {
      total += chunk.length
      if (total > maxBytes) return Effect.fail(bodyTooLarge(response.status, `more than ${maxBytes}`, maxBytes))
      chunks.push(chunk)
      return Effect.void
    }).pipe(
      Effect.map(() => decoder.decode(Buffer.concat(chunks, total))),
      // a body the platform reports as absent (a 204 of a web `Response`) is empty text
      catchAll((e): Effect.Effect<string, SendError> =>
        e._tag === "UnexpectedResponseError" ?
          Effect.fail(e) :
          clientErrorReason(e).name === "EmptyBody" ?
          Effect.succeed("") :
          Effect.fail(fromClientError(e))
      )
    )
  })
}

/** `context` with `fetch` told not to follow redirects, whatever else the application set for it. */
export const withoutFollowingRedirects = (context: Context.Context<never>): Context.Context<never> =>
  Context.add(context, FetchHttpClient.RequestInit, {
    ...Option.getOrUndefined(Context.getOption(context, FetchHttpClient.RequestInit)),
    redirect: "manual"
  })

/**
 * Sends `request` through `client` (whose base URL is `base`) and reads its answer within `limits`,
 * in a context that already tells `fetch` not to follow redirects (`withoutFollowingRedirects`).
 * What the client throws (a header value it refuses, say) is a `TransportError`, never a defect.
 */
export const exchange = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  limits: Limits,
  base = ""
): Effect.Effect<Answer, SendError> =>
  client.execute(request).pipe(
    Effect.mapError(fromClientError),
    Effect.flatMap((response) =>
      Effect.map(
        readCapped(response, limits.maxBodyBytes),
        (text): Answer => ({ status: response.status, headers: response.headers, text })
      )
    ),
    catchDefect((defect) =>
      Effect.fail(transportError(
        "Network",
        request.method,
        base + request.url,
        defect instanceof Error ? `the HTTP client failed: ${defect.name}: ${defect.message}` : "the HTTP client failed"
      ))
    ),
    timeoutFail({
      duration: limits.timeout,
      onTimeout: () =>
        transportError(
          "Timeout",
          request.method,
          base + request.url,
          `no complete response within ${Duration.format(limits.timeout)}`
        )
    }),
    Effect.mapError(maskedTransport(limits.mask ?? (() => noMask)))
  )

/** `exchange`, `fetch` told here not to follow redirects. */
export const send = (...args: Parameters<typeof exchange>): Effect.Effect<Answer, SendError> =>
  updateContext(exchange(...args), withoutFollowingRedirects)
