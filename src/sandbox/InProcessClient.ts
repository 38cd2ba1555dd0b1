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
import type { HttpApp } from "@effect/platform"
import { Effect, Stream } from "effect"
import { resetHeader } from "./State.js"

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
      const encodeError = (cause: unknown) => new HttpClientError.RequestError({ request, reason: "Encode", cause })
      const { body } = request
      const bodyInit: BodyInit | undefined = body._tag === "Empty"
        ? undefined
        : body._tag === "FormData"
        ? body.formData
        : body._tag === "Stream"
        ? Buffer.concat([...yield* Effect.mapError(Stream.runCollect(body.stream), encodeError)])
        : body.body as BodyInit
      const webRequest = yield* Effect.try({
        try: () =>
          new Request(url, {
            method: request.method,
            headers: new Headers(request.headers),
            signal,
            body: bodyInit ?? null
          }),
        catch: encodeError
      })
      const response = yield* Effect.provideService(
        app,
        HttpServerRequest.HttpServerRequest,
        HttpServerRequest.fromWeb(webRequest)
      )
      const reset = response.headers[resetHeader]
      if (reset === "reset") {
        return yield* new HttpClientError.RequestError({
          request,
          reason: "Transport",
          description: "connection reset by the sandbox"
        })
      }
      // A HEAD is answered as the app answered it (the GET's status and headers) with no body, as a
      // server sends it: there is no body to cut either.
      const web = HttpServerResponse.toWeb(response, { withoutBody: request.method === "HEAD" })
      web.headers.delete(resetHeader)
      return HttpClientResponse.fromWeb(
        request,
        reset === "reset-mid-body" && request.method !== "HEAD" ? cutMidBody(response, web) : web
      )
    })
  )

/** The response with its body failing after half of it arrived, as a connection reset would. */
const cutMidBody = (response: HttpServerResponse.HttpServerResponse, web: Response): Response => {
  const bytes = response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array(0)
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2))),
    pull: (controller) => controller.error(new Error("connection reset by the sandbox"))
  })
  return new Response(body, { status: response.status, headers: web.headers })
}
