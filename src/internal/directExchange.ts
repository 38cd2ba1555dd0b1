/**
 * The client's fast lane: one API exchange (send, read the capped body) in a single step over the
 * default transport's undici dispatcher, when the ambient `HttpClient` is that transport and no
 * `transformClient` is set. The general path goes through `HttpClient.execute` and a response
 * object; on a fast transport that machinery costs more CPU than the request. Both paths classify
 * the answer the same way (`responses.ts`) and share the token, 401 and retry logic.
 *
 * The exchange is an undici dispatch handler rather than a `dispatcher.request` call: the body is
 * buffered anyway, so the body stream, the abort signal and the async resource that `request`
 * makes for every call would be spent for nothing.
 */
import type { HttpClient } from "@effect/platform"
import { Duration, Effect } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import type { Dispatcher } from "undici"
import { TransportError, UnexpectedResponseError } from "../ApiError.js"
import { RequestTimeout } from "./requestTimeout.js"

const dispatcherKey = Symbol.for("effect-design-search/dispatcher")

/** Records the dispatcher behind `client`, so the client can take the fast lane. */
export const withDispatcher = (client: HttpClient.HttpClient, dispatcher: Dispatcher): HttpClient.HttpClient =>
  Object.assign(client, { [dispatcherKey]: dispatcher })

/** The dispatcher behind `client`, when it is the default transport. */
export const dispatcherOf = (client: HttpClient.HttpClient): Dispatcher | undefined =>
  dispatcherKey in client ? (client as unknown as Record<typeof dispatcherKey, Dispatcher>)[dispatcherKey] : undefined

/** What an exchange brings back: enough to classify it. */
export interface Answer {
  readonly status: number
  /** Built when first read: a success does not need them. */
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

type Failure = TransportError | UnexpectedResponseError
type Resume = (effect: Effect.Effect<Answer, Failure>) => void

const flatten = (headers: IncomingHttpHeaders): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {}
  for (const name in headers) {
    const value = headers[name]
    out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const decoder = new TextDecoder()

/** Why the exchange itself stopped a request: its caller went away, or the body was over the cap. */
const interrupted = new Error("the request was interrupted")
const overCap = new Error("the response body exceeds the cap")

/**
 * One exchange: the handler undici calls back, its deadline, and the body read so far. It settles
 * once; whatever undici reports after that (the error of an abort it asked for) is ignored.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined
  /** Set when the request was stopped before undici handed over its controller. */
  private stopWith: Error | undefined
  private settled = false
  private timedOut: RequestTimeout | undefined
  private readonly timer: ReturnType<typeof setTimeout>
  private status = 0
  private headers: IncomingHttpHeaders | undefined
  private chunks: Array<Buffer> = []
  private total = 0

  constructor(
    private readonly wire: Wire,
    private readonly maxBytes: number,
    private readonly resume: Resume,
    timeout: Duration.Duration
  ) {
    // unref: the request's socket, not its deadline, keeps the process alive
    this.timer = setTimeout(() => this.expire(timeout), Duration.toMillis(timeout)).unref()
  }

  private failure(reason: TransportError["reason"], detail: string): TransportError {
    // the URL only for a failure: origin and path are what undici takes
    return new TransportError({ reason, method: this.wire.method, url: this.wire.origin + this.wire.path, detail })
  }

  private settle(effect: Effect.Effect<Answer, Failure>): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    this.chunks = []
    this.resume(effect)
  }

  /** Aborts the request now, or as soon as undici starts it. */
  stop(reason: Error): void {
    if (this.controller === undefined) this.stopWith = reason
    else if (!this.controller.aborted) this.controller.abort(reason)
  }

  private expire(timeout: Duration.Duration): void {
    if (this.settled) return
    this.timedOut = new RequestTimeout({ timeout })
    this.settle(Effect.fail(this.failure("Timeout", this.timedOut.message)))
    this.stop(this.timedOut)
  }

  /** Called by the fiber's interruption. */
  interrupt(): void {
    this.settled = true
    clearTimeout(this.timer)
    this.chunks = []
    this.stop(interrupted)
  }

  private tooLarge(size: string): void {
    this.settle(Effect.fail(
      new UnexpectedResponseError({
        status: this.status,
        excerpt: "",
        issue: `response body of ${size} bytes exceeds the cap of ${this.maxBytes} bytes`
      })
    ))
    this.stop(overCap)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.stopWith !== undefined) controller.abort(this.stopWith)
  }

  onResponseStart(_: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // informational answers (1xx) come before the response
    if (statusCode < 200 || this.settled) return
    this.status = statusCode
    this.headers = headers
    const declared = headers["content-length"]
    if (typeof declared === "string" && /^\d+$/.test(declared) && Number(declared) > this.maxBytes) this.tooLarge(declared)
  }

  onResponseData(_: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return
    this.total += chunk.length
    if (this.total > this.maxBytes) return this.tooLarge(`more than ${this.maxBytes}`)
    this.chunks.push(chunk)
  }

  onResponseEnd(): void {
    if (this.settled) return
    const chunks = this.chunks
    const text = chunks.length === 0
      ? ""
      : chunks.length === 1
      ? decoder.decode(chunks[0])
      : decoder.decode(Buffer.concat(chunks, this.total))
    const raw = this.headers ?? {}
    let headers: Record<string, string | undefined> | undefined
    this.settle(Effect.succeed({
      status: this.status,
      get headers() {
        return headers ??= flatten(raw)
      },
      text
    }))
  }

  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return
    // an error once the headers are in is the body's
    this.settle(Effect.fail(this.failure(this.headers === undefined ? "Network" : "Body", error.message)))
  }
}

/** One API request as the fast lane sends it: already split into origin and path, headers made. */
export interface Wire {
  readonly method: "GET" | "POST"
  readonly origin: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** JSON text, or none. */
  readonly body: string | null
}

/**
 * Sends `wire` and reads its body, refusing one over `maxBytes` (by `Content-Length` before
 * reading, by counting while reading). The deadline covers the whole exchange; interruption aborts
 * the request.
 */
export const exchange = (
  dispatcher: Dispatcher,
  wire: Wire,
  timeout: Duration.Duration,
  maxBytes: number
): Effect.Effect<Answer, Failure> =>
  Effect.async<Answer, Failure>((resume) => {
    const handler = new Exchange(wire, maxBytes, resume, timeout)
    dispatcher.dispatch({
      origin: wire.origin,
      path: wire.path,
      method: wire.method,
      headers: wire.headers,
      body: wire.body,
      headersTimeout: 0,
      bodyTimeout: 0
    }, handler)
    return Effect.sync(() => handler.interrupt())
  })
