/**
 * The sandbox's in-process `HttpClient`: each request handed to the sandbox's app with no socket,
 * and a fault of kind `reset` or `resetMidBody` played as a connection would: no answer, or a body
 * cut half-way.
 */
import {
  HttpClient,
  HttpClientError,
  HttpClientResponse,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import type { HttpApp, HttpBody } from "@effect/platform"
import { Effect, Stream } from "effect"
import * as State from "./State.js"

const toBodyInit = (body: HttpBody.HttpBody): Effect.Effect<BodyInit | undefined, unknown> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(undefined)
    case "Uint8Array":
      return Effect.succeed(body.body as BodyInit)
    case "Raw":
      return Effect.succeed(body.body as BodyInit)
    case "FormData":
      return Effect.succeed(body.formData)
    case "Stream":
      return Effect.map(Stream.runCollect(body.stream), (chunks) => Buffer.concat([...chunks]))
  }
}

/**
 * An `HttpClient` that hands every request to `app` in process, with no sockets. Requests and
 * responses still go through the platform's web `Request`/`Response`, so headers and bodies are
 * encoded exactly as they would be on the wire. The app's delays are on the `Clock`, and so is the
 * deadline the toolkit's clients put on each call over any `HttpClient`: `TestClock` drives both.
 *
 * @since 0.1.0
 * @category constructors
 */
export const httpClient = (app: HttpApp.Default): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.gen(function*() {
      const body = yield* Effect.catchAll(toBodyInit(request.body), (cause) =>
        Effect.fail(new HttpClientError.RequestError({ request, reason: "Encode", cause })))
      const webRequest = yield* Effect.try({
        try: () =>
          new Request(url, {
            method: request.method,
            headers: new Headers(request.headers),
            signal,
            ...(body === undefined ? {} : { body })
          }),
        catch: (cause) =>
          new HttpClientError.RequestError({ request, reason: "Encode", cause })
      })
      const response = yield* Effect.provideService(
        app,
        HttpServerRequest.HttpServerRequest,
        HttpServerRequest.fromWeb(webRequest)
      )
      const reset = response.headers[State.resetHeader]
      if (reset === "reset") {
        return yield* Effect.fail(
          new HttpClientError.RequestError({
            request,
            reason: "Transport",
            description: "connection reset by the sandbox"
          })
        )
      }
      // A HEAD is answered as the app answered it (the GET's status and headers), with no body, as
      // a server sends it: there is no body to cut either.
      if (request.method === "HEAD") return HttpClientResponse.fromWeb(request, headersOnly(response))
      return HttpClientResponse.fromWeb(
        request,
        reset === "reset-mid-body" ? cutMidBody(response) : HttpServerResponse.toWeb(response)
      )
    })
  )

/** The response's status and headers (`Content-Length` included), without its body. */
const headersOnly = (response: HttpServerResponse.HttpServerResponse): Response => {
  const web = HttpServerResponse.toWeb(response, { withoutBody: true })
  web.headers.delete(State.resetHeader)
  return web
}

/** The response with its body failing after half of it arrived, as a connection reset would. */
const cutMidBody = (response: HttpServerResponse.HttpServerResponse): Response => {
  const web = HttpServerResponse.toWeb(response)
  const headers = new Headers(web.headers)
  headers.delete(State.resetHeader)
  const bytes = response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array(0)
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2))),
    pull: (controller) => controller.error(new Error("connection reset by the sandbox"))
  })
  return new Response(body, { status: response.status, headers })
}
