/**
 * The transport over any `@effect/platform` `HttpClient` (the sandbox's in-process client,
 * `NodeHttpClient`, `FetchHttpClient`, a `transformClient`'s): each call is an `HttpClientRequest`
 * executed by the client, its body read within the cap. The deadline is an Effect timeout on the
 * `Clock`, so that `TestClock` drives it in process.
 */
import { Headers, HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpClientError, HttpClientResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import type { Answer, Base, Call, Limits, SendError, Transport } from "./transport.js"
import { bodyTooLarge, CappedBody, declaredOverCap, timeoutDetail, transportError } from "./transport.js"

/** A platform client error as the call's `TransportError`: no answer, or a body cut short. */
const fromClientError = (error: HttpClientError.HttpClientError) =>
  transportError(
    error._tag === "RequestError" ? "Network" : "Body",
    error.request.method,
    error.request.url,
    error.reason + (error.description === undefined ? "" : `: ${error.description}`)
  )

/**
 * Reads a response body as text, refusing one over `maxBytes`: by `Content-Length` before
 * reading, by counting while streaming otherwise.
 */
const readCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, SendError> => {
  const declared = declaredOverCap(response.headers["content-length"], maxBytes)
  // Refused unread: the body is dropped (one chunk read, then the stream closed), not left open.
  if (declared !== undefined) {
    return Effect.zipRight(
      Effect.ignore(Stream.runHead(response.stream)),
      Effect.fail(bodyTooLarge(response.status, declared, maxBytes))
    )
  }
  return Effect.suspend(() => {
    const body = new CappedBody(maxBytes)
    return Stream.runForEach(response.stream, (chunk) =>
      body.add(chunk) ? Effect.void : Effect.fail(bodyTooLarge(response.status, body.overCapSize, maxBytes))).pipe(
        Effect.mapError((error) => error._tag === "ResponseError" ? fromClientError(error) : error),
        Effect.map(() => body.text())
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
 * Drops the `Authorization` header from any request that leaves `origin`, such as a redirect
 * followed by a `transformClient`: the token goes to the configured API and nowhere else. It sits
 * below `transformClient`, at the last step before the wire, where redirected requests pass too.
 */
const confineAuthorization = (client: HttpClient.HttpClient, origin: string): HttpClient.HttpClient =>
  HttpClient.makeWith(
    (request: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>) =>
      Effect.flatMap(request, (r) =>
        client.execute(
          r.url.startsWith(origin + "/") || r.headers["authorization"] === undefined ? r : withoutAuthorization(r)
        )),
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
 * applied to it. The `Authorization` header never leaves `base`'s origin.
 */
export const make = (
  client: HttpClient.HttpClient,
  base: Base,
  limits: Limits,
  transform: (client: HttpClient.HttpClient) => HttpClient.HttpClient = (c) => c
): Transport => {
  const confined = transform(confineAuthorization(client, base.origin))
  const baseUrl = base.origin + base.path
  return {
    send: (call) => {
      const url = baseUrl + call.path
      return Effect.timeoutFail(
        Effect.flatMap(
          Effect.mapError(confined.execute(toRequest(call, url)), fromClientError),
          (response): Effect.Effect<Answer, SendError> =>
            Effect.map(readCapped(response, limits.maxBodyBytes), (text) => ({
              status: response.status,
              headers: response.headers,
              text
            }))
        ),
        {
          duration: limits.timeout,
          onTimeout: () => transportError("Timeout", call.method, url, timeoutDetail(limits.timeout))
        }
      )
    }
  }
}
