/** The sandbox's in-process `HttpClient`: each request handed to the sandbox's app, with no socket. */
import { HttpClient, HttpClientResponse, requestError } from "#edition/internal/seam"
import { HttpServerRequest, HttpServerResponse } from "#edition/internal/seam"
import { Effect, Stream } from "effect"
import type { App } from "./Control.js"
import { resetHeader } from "./State.js"

/**
 * An `HttpClient` that runs `app` in the caller's fiber, with no sockets: requests and responses go
 * through web `Request`/`Response`, so they are encoded as on the wire, and the app's delays are on
 * the caller's `Clock`, which `TestClock` drives. A `reset` fault is a `Transport` error (a
 * `TransportError` in Effect 4), a `resetMidBody` one a body cut half-way.
 * @since 0.1.0
 * @category constructors
 */
export const httpClient = (app: App): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.gen(function*() {
      const encodeError = (cause: unknown) => requestError(request, "Encode", { cause })
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
        return yield* Effect.fail(
          requestError(request, "Transport", { description: "connection reset by the sandbox" })
        )
      }
      // A HEAD is the GET's status and headers with no body, and no body to cut.
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
