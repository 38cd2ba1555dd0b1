/**
 * The default Node transport: a lean `@effect/platform` `HttpClient` over undici's callback API,
 * and beside it the `Dispatcher` it sends on. It keeps the platform client's semantics
 * (interruption aborts the request, bodies stream, failures are `HttpClientError`s) without what
 * costs most per request on the stock path: a span per request (made here only when a tracer
 * other than Effect's built-in one is installed), a finalization registry entry per response, and
 * headers rebuilt on every access. A request sent from a span carries that span's `traceparent`
 * (and `b3`), as the platform's clients send them. It sets no timeout of its own: the toolkit's clients bound each call themselves.
 *
 * A `DesignSearchClient` or `TokenService` made over `layer`'s `HttpClient` finds its
 * `Dispatcher` and sends on it directly (README, "Performance"). Any other `HttpClient` works with
 * the toolkit too; this one is what `layerConfig` and the CLI use.
 *
 * @since 0.1.0
 */
import { Cookies, Headers, HttpClient, HttpClientError, HttpIncomingMessage, UrlParams } from "@effect/platform"
import { HttpClientRequest } from "@effect/platform"
import type { HttpBody, HttpClientResponse } from "@effect/platform"
import { Context, Effect, Inspectable, Layer, Option } from "effect"
import type { Stream } from "effect"
import { EventEmitter } from "node:events"
import { Agent } from "undici"
import type { Dispatcher as UndiciDispatcher } from "undici"
import * as NodeStreams from "./internal/nodeStreams.js"
import { traceHeaders, withSpanWhenTraced } from "./internal/tracing.js"
import type { Base } from "./internal/transport.js"
import { splitUrl } from "./internal/transport.js"
import { Dispatcher } from "./internal/undiciTransport.js"

export {
  /**
   * The undici dispatcher under `layer`'s `HttpClient`, beside that client: a client made over
   * that very `HttpClient` sends its calls on the dispatcher directly.
   *
   * @since 0.3.0
   * @category tags
   */
  Dispatcher
} from "./internal/undiciTransport.js"

const ClientResponseTypeId: HttpClientResponse.TypeId = Symbol.for(
  "@effect/platform/HttpClientResponse"
) as HttpClientResponse.TypeId

/**
 * The abort signal of one undici request: undici takes an `EventEmitter` as a signal, which is
 * cheaper to make than an `AbortController`.
 */
class AbortSignal extends EventEmitter {
  abort(): void {
    this.emit("abort")
  }
}

const ignore = () => {}

class UndiciResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [ClientResponseTypeId]: HttpClientResponse.TypeId = ClientResponseTypeId

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    private readonly source: UndiciDispatcher.ResponseData
  ) {
    super()
    // An error after nobody reads the body must not become an unhandled 'error' event.
    source.body.on("error", ignore)
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
      cause
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
    return NodeStreams.fromReadable<HttpClientError.ResponseError>(
      () => this.source.body,
      (cause) => this.failure(cause)
    )
  }

  toJSON(): unknown {
    return { _id: "@effect/platform/HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}

type RequestBody = Exclude<UndiciDispatcher.DispatchOptions["body"], undefined>

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
      return NodeStreams.toReadable(body.stream)
  }
}

/** Where a request goes: split by hand when it has no query parameters or hash. */
const targetOf = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<Base, HttpClientError.RequestError> => {
  const target = request.urlParams.length === 0 && request.hash._tag === "None" ? splitUrl(request.url) : undefined
  if (target !== undefined) return Effect.succeed({ origin: target.origin, path: target.path || "/" })
  const full = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
  return full._tag === "Right"
    ? Effect.succeed({ origin: full.right.origin, path: full.right.pathname + full.right.search })
    : Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: full.left }))
}

const send = (
  dispatcher: UndiciDispatcher,
  request: HttpClientRequest.HttpClientRequest,
  target: Base,
  body: RequestBody
) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
    const signal = new AbortSignal()
    dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: request.method,
      headers: request.headers,
      body,
      signal,
      // no timeout of its own: the caller bounds the request
      headersTimeout: 0,
      bodyTimeout: 0
    }, (error, data) => {
      if (error === null) return resume(Effect.succeed(new UndiciResponse(request, data)))
      resume(Effect.fail(
        new HttpClientError.RequestError({ request, reason: "Transport", cause: error, description: error.message })
      ))
    })
    // Interrupted while waiting for the response: abort the request and its socket.
    return Effect.sync(() => signal.abort())
  })

/**
 * An `HttpClient` over `dispatcher`. Interrupting a request aborts it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (dispatcher: UndiciDispatcher): HttpClient.HttpClient =>
  HttpClient.makeWith(
    (effect: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>) =>
      Effect.flatMap(effect, (request) =>
        Effect.flatMap(targetOf(request), (target) =>
          Effect.flatMap(toBody(request.body), (body) =>
            Effect.withFiberRuntime<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((fiber) => {
              // the trace headers of the request span, or of the caller's span when there is none
              const trace = traceHeaders(fiber)
              return send(
                dispatcher,
                trace === undefined ? request : HttpClientRequest.setHeaders(request, trace),
                target,
                body
              )
            }).pipe(
              withSpanWhenTraced(`http.client ${request.method}`, () => ({
                "http.request.method": request.method,
                "url.full": request.url
              }))
            )))),
    Effect.succeed
  )

/**
 * `make` over `dispatcher`, and the `Dispatcher` beside it, so that the toolkit's clients made
 * over this `HttpClient` send on the dispatcher directly. The dispatcher stays the caller's.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerDispatcher = (dispatcher: UndiciDispatcher): Layer.Layer<HttpClient.HttpClient | Dispatcher> => {
  const httpClient = make(dispatcher)
  return Layer.succeedContext(
    Context.make(HttpClient.HttpClient, httpClient).pipe(Context.add(Dispatcher, { dispatcher, httpClient }))
  )
}

/**
 * `layerDispatcher` over a fresh undici `Agent`, destroyed when the layer's scope closes (with its
 * sockets).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<HttpClient.HttpClient | Dispatcher> = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => new Agent()), (agent) => Effect.promise(() => agent.destroy())),
    layerDispatcher
  )
)
