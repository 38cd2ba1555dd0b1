/**
 * The transport over any `@effect/platform` `HttpClient` (the sandbox's in-process client,
 * `NodeHttpClient`, `FetchHttpClient`, a `transformClient`'s): each call is an `HttpClientRequest`
 * executed by the client, its body read within the cap. The deadline is an Effect timeout on the
 * `Clock`, so that `TestClock` drives it in process.
 */
import { FetchHttpClient, Headers, HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpClientError, HttpClientResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { traceHeaders } from "./tracing.js"
import type { Answer, Base, Call, Limits, SendError, Transport } from "./transport.js"
import { bodyTooLarge, CappedBody, declaredOverCap, originOf, timeoutDetail, transportError } from "./transport.js"

/** A platform client error as the call's `TransportError`: no answer, or a body cut short. */
const fromClientError = (error: HttpClientError.HttpClientError) =>
  transportError(
    error._tag === "RequestError" ? "Network" : "Body",
    error.request.method,
    error.request.url,
    error.reason + (error.description === undefined ? "" : `: ${error.description}`)
  )

/**
 * `effect` with `fetch` told not to follow redirects, whatever else the application set for it:
 * a redirect is an answer (README, "Reliability"), and a followed one would carry the request, the
 * token request's form with the secret included, to wherever it points. Clients other than
 * `FetchHttpClient` do not read this.
 */
const withoutFollowingRedirects = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Effect.serviceOption(FetchHttpClient.RequestInit),
    (init) =>
      Effect.provideService(effect, FetchHttpClient.RequestInit, { ...Option.getOrUndefined(init), redirect: "manual" })
  )

/** What the client threw, in a line. */
const describeDefect = (defect: unknown): string =>
  defect instanceof Error ? `the HTTP client failed: ${defect.name}: ${defect.message}` : "the HTTP client failed"

/**
 * Drops a body unread: its stream is started and stopped at once, which closes it (and, over a
 * socket, the connection), whether or not any of it has arrived.
 */
const discard = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.ignore(Effect.raceFirst(Stream.runHead(response.stream), Effect.yieldNow()))

/** A body the platform reports as absent (a 204 of a web `Response`, say) is empty text. */
const isEmptyBody = (error: HttpClientError.ResponseError | SendError) =>
  error._tag === "ResponseError" && error.reason === "EmptyBody"

/**
 * Reads a response body as text, refusing one over `maxBytes`: by `Content-Length` before
 * reading, by counting while streaming when its length is not declared or it is encoded.
 */
const readCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, SendError> => {
  const contentLength = response.headers["content-length"]
  const declared = declaredOverCap(contentLength, maxBytes)
  if (declared !== undefined) {
    return Effect.zipRight(discard(response), Effect.fail(bodyTooLarge(response.status, declared, maxBytes)))
  }
  // A length declared within the cap is the length handed over, unless the client decodes a
  // compressed body (as fetch does): then it is counted like an undeclared one.
  const encoding = response.headers["content-encoding"]
  if (
    contentLength !== undefined && /^\d+$/.test(contentLength) && (encoding === undefined || encoding === "identity")
  ) {
    return Effect.mapError(response.text, fromClientError)
  }
  return Effect.suspend(() => {
    const body = new CappedBody(maxBytes)
    return Stream.runForEach(
      response.stream,
      (chunk) => body.add(chunk) ? Effect.void : Effect.fail(bodyTooLarge(response.status, body.overCapSize, maxBytes))
    ).pipe(
      Effect.map(() => body.text()),
      Effect.catchIf(isEmptyBody, () => Effect.succeed("")),
      Effect.mapError((error) => error._tag === "ResponseError" ? fromClientError(error) : error)
    )
  })
}

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
 * The last step before the wire, below `transformClient`, where redirected requests pass too:
 *
 * - drops the `Authorization` header from any request that leaves `origin`, such as a redirect
 *   followed by a `transformClient`: the token goes to the configured API and nowhere else;
 * - adds the trace headers of the span the request is sent from (`internal/tracing.ts`), for a
 *   client that does not (a client made with `HttpClient.make` replaces them with its own request
 *   span's), unless a `transformClient` turned propagation off.
 */
const lastStep = (client: HttpClient.HttpClient, origin: string): HttpClient.HttpClient =>
  HttpClient.makeWith(
    (request: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>) =>
      Effect.flatMap(request, (r) =>
        Effect.withFiberRuntime((fiber) => {
          const confined = r.headers["authorization"] === undefined || originOf(r.url) === origin
            ? r
            : withoutAuthorization(r)
          const trace = traceHeaders(fiber)
          return client.execute(trace === undefined ? confined : HttpClientRequest.setHeaders(confined, trace))
        })),
    Effect.succeed
  )

/** `call` as a platform request to `url`; its `content-type` goes with its body. */
const toRequest = (call: Call, url: string): HttpClientRequest.HttpClientRequest => {
  const { "content-type": contentType, ...headers } = call.headers
  const request = HttpClientRequest.make(call.method)(url, { headers })
  return call.body === undefined ? request : HttpClientRequest.bodyText(request, call.body, contentType)
}

/**
 * The transport of calls below `base` over `client`, with `transform` (a `transformClient`)
 * applied to it. The `Authorization` header never leaves `base`'s origin; a call sent from a span
 * carries its trace headers.
 */
export const make = (
  client: HttpClient.HttpClient,
  base: Base,
  limits: Limits,
  transform: (client: HttpClient.HttpClient) => HttpClient.HttpClient = (c) => c
): Transport => {
  const confined = transform(lastStep(client, base.origin))
  const baseUrl = base.origin + base.path
  return {
    send: (call) => {
      const url = baseUrl + call.path
      const exchange = Effect.flatMap(
        Effect.mapError(withoutFollowingRedirects(confined.execute(toRequest(call, url))), fromClientError),
        (response): Effect.Effect<Answer, SendError> =>
          Effect.map(readCapped(response, limits.maxBodyBytes), (text) => ({
            status: response.status,
            headers: response.headers,
            text
          }))
      )
      return Effect.timeoutFail(
        // what the client throws (a header value it refuses, a redirect to no URL) is no defect of ours
        Effect.catchAllDefect(
          exchange,
          (defect) => Effect.fail(transportError("Network", call.method, url, describeDefect(defect)))
        ),
        {
          duration: limits.timeout,
          onTimeout: () => transportError("Timeout", call.method, url, timeoutDetail(limits.timeout))
        }
      )
    }
  }
}
