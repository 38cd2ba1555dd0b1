/**
 * The default Node transport: a lean `@effect/platform` `HttpClient` over undici's callback API.
 * It keeps the platform client's semantics (interruption aborts the request, bodies stream,
 * failures are `HttpClientError`s) without what costs most per request on the stock path: a span
 * per request (made here only when a tracer other than Effect's built-in one is installed), a
 * finalization registry entry per response, and headers rebuilt on every access. It does not add
 * trace propagation headers. It enforces the toolkit client's request timeout itself, with one
 * timer per request that aborts the socket; a request made without that timeout has none.
 *
 * Any other `HttpClient` works with the toolkit too; this one is what `layerConfig` and the CLI use.
 *
 * @since 0.1.0
 */
import { Cookies, Headers, HttpClient, HttpClientError, HttpIncomingMessage, UrlParams } from "@effect/platform"
import type { HttpBody, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Duration, Effect, FiberRef, Inspectable, Layer, Option } from "effect"
import type { Stream } from "effect"
import { Agent } from "undici"
import type { Dispatcher } from "undici"
import { Deadline, requestOptions, splitUrl } from "./internal/undici.js"
import type { Target } from "./internal/undici.js"
import { withDispatcher } from "./internal/directExchange.js"
import { currentRequestTimeout, markTimeoutAware } from "./internal/requestTimeout.js"
import { withSpanWhenTraced } from "./internal/tracing.js"

const ClientResponseTypeId: HttpClientResponse.TypeId = Symbol.for(
  "@effect/platform/HttpClientResponse"
) as HttpClientResponse.TypeId

/** The failure's cause: the deadline's `RequestTimeout` when that is what aborted the request. */
const causeOf = (deadline: Deadline, error: unknown): unknown => deadline.timedOut ?? error

const ignore = () => {}

class UndiciResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [ClientResponseTypeId]: HttpClientResponse.TypeId = ClientResponseTypeId

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    private readonly source: Dispatcher.ResponseData,
    private readonly deadline: Deadline
  ) {
    super()
    // An error after nobody reads the body must not become an unhandled 'error' event.
    source.body.on("error", ignore)
    if (deadline.pending) source.body.once("close", () => deadline.clear())
  }

  get status(): number {
    return this.source.statusCode
  }

  private cachedHeaders: Headers.Headers | undefined
  get headers(): Headers.Headers {
    return this.cachedHeaders ??= Headers.fromInput(this.source.headers)
  }

  get cookies(): Cookies.Cookies {
    const header = this.source.headers["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(Array.isArray(header) ? header : [header])
  }

  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }

  private failure(cause: unknown): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({
      request: this.request,
      response: this,
      reason: "Decode",
      cause: causeOf(this.deadline, cause)
    })
  }

  /** Awaits a read of the body. Interruption destroys the body, which aborts the read. */
  private await<A>(read: Promise<A>): Effect.Effect<A, HttpClientError.ResponseError> {
    return Effect.async<A, HttpClientError.ResponseError>((resume) => {
      read.then(
        (value) => resume(Effect.succeed(value)),
        (cause: unknown) => resume(Effect.fail(this.failure(cause)))
      )
      return Effect.sync(() => this.source.body.destroy())
    })
  }

  // The body can be read once: later reads share the first one's result.
  private textRead: Promise<string> | undefined
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.suspend(() => this.await(this.textRead ??= this.source.body.text()))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => text === "" ? null : JSON.parse(text) as unknown,
        catch: (cause) => this.failure(cause)
      }))
  }

  private arrayBufferRead: Promise<ArrayBuffer> | undefined
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.suspend(() => this.await(this.arrayBufferRead ??= this.source.body.arrayBuffer()))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => UrlParams.fromInput(new URLSearchParams(text)),
        catch: (cause) => this.failure(cause)
      }))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.suspend(() => this.await(this.source.body.formData() as Promise<FormData>))
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return NodeStream.fromReadable<HttpClientError.ResponseError, Uint8Array>(
      () => this.source.body,
      (cause) => this.failure(cause)
    )
  }

  toJSON(): unknown {
    return { _id: "@effect/platform/HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}

type RequestBody = Exclude<Dispatcher.DispatchOptions["body"], undefined>

const toBody = (body: HttpBody.HttpBody): Effect.Effect<RequestBody> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(null)
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw":
      return Effect.succeed(body.body as RequestBody)
    case "FormData":
      return Effect.succeed(body.formData as unknown as RequestBody)
    case "Stream":
      return NodeStream.toReadable(body.stream)
  }
}

/** Where a request goes: split by hand when it has no query parameters or hash. */
const targetOf = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<Target, HttpClientError.RequestError> => {
  const target = request.urlParams.length === 0 && request.hash._tag === "None" ? splitUrl(request.url) : undefined
  if (target !== undefined) return Effect.succeed(target)
  const full = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
  return full._tag === "Right"
    ? Effect.succeed({ origin: full.right.origin, path: full.right.pathname + full.right.search })
    : Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: full.left }))
}

const send = (
  dispatcher: Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  target: Target,
  body: RequestBody,
  timeout: Option.Option<Duration.Duration>
) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
    const deadline = new Deadline(Option.getOrUndefined(timeout))
    dispatcher.request(requestOptions(request, target, body, deadline), (error, data) => {
      if (error === null) return resume(Effect.succeed(new UndiciResponse(request, data, deadline)))
      deadline.clear()
      resume(Effect.fail(
        new HttpClientError.RequestError({
          request,
          reason: "Transport",
          cause: causeOf(deadline, error),
          description: error.message
        })
      ))
    })
    // Interrupted while waiting for the response: abort the request and its socket.
    return Effect.sync(() => {
      deadline.clear()
      deadline.abort()
    })
  })

/**
 * An `HttpClient` over `dispatcher`. Interrupting a request aborts it; a request timeout set by the
 * toolkit's client aborts it too, failing with a `RequestTimeout` cause.
 *
 * @since 0.1.0
 */
export const make = (dispatcher: Dispatcher): HttpClient.HttpClient =>
  withDispatcher(markTimeoutAware(HttpClient.makeWith(
    (effect: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>) =>
      Effect.flatMap(effect, (request) =>
        Effect.flatMap(targetOf(request), (target) =>
          Effect.flatMap(toBody(request.body), (body) =>
            Effect.flatMap(FiberRef.get(currentRequestTimeout), (timeout) =>
              send(dispatcher, request, target, body, timeout).pipe(
                withSpanWhenTraced(`http.client ${request.method}`, () => ({
                  "http.request.method": request.method,
                  "url.full": request.url
                }))
              ))))),
    Effect.succeed
  )), dispatcher)

/**
 * A fresh undici `Agent`, destroyed when the layer's scope closes (with its sockets).
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => new Agent()), (agent) => Effect.promise(() => agent.destroy())),
    make
  )
)
