/**
 * The transport over undici's dispatcher: each call is one undici dispatch handler that buffers the
 * body itself, settled in one `Effect.async` step. It is the adapter the client uses over the
 * default transport (`UndiciHttpClient.layer`), which says so by providing `Dispatcher` beside
 * its `HttpClient` (README, "Where the CPU goes").
 */
import type { HttpClient } from "@effect/platform"
import { Context, Duration, Effect, Fiber } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import type * as Undici from "undici"
import { traceHeaders } from "./tracing.js"
import type { Answer, Base, Call, Limits, SendError, Transport } from "./transport.js"
import { bodyTooLarge, CappedBody, declaredOverCap, timeoutDetail, transportError, wirePath } from "./transport.js"

/**
 * The undici dispatcher under the default transport, beside the `HttpClient` built over it.
 * `UndiciHttpClient.layer` provides it; a client made over that very `HttpClient`, with no
 * `transformClient`, sends its calls on the dispatcher directly, with the same outcome and less
 * CPU per call. It is not used when the ambient `HttpClient` is another one.
 *
 * @since 0.3.0
 * @category tags
 */
export class Dispatcher extends Context.Tag("effect-design-search/UndiciHttpClient/Dispatcher")<Dispatcher, {
  readonly dispatcher: Undici.Dispatcher
  /** The `HttpClient` over `dispatcher`: the dispatcher serves a client only when it is the ambient one. */
  readonly httpClient: HttpClient.HttpClient
}>() {}

type Resume = (effect: Effect.Effect<Answer, SendError>) => void

const flatten = (headers: IncomingHttpHeaders): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {}
  for (const name in headers) {
    const value = headers[name]
    out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/** Why the exchange itself stopped a request: its caller went away, the deadline, the cap. */
const interrupted = new Error("the request was interrupted")
const expired = new Error("the request ran past its deadline")
const overCap = new Error("the response body exceeds the cap")

/**
 * One exchange: the handler undici calls back, its deadline, and the body read so far. It settles
 * once; whatever undici reports after that (the error of an abort it asked for) is ignored.
 */
class Exchange implements Undici.Dispatcher.DispatchHandler {
  private controller: Undici.Dispatcher.DispatchController | undefined
  /** Set when the request was stopped before undici handed over its controller. */
  private stopWith: Error | undefined
  private settled = false
  private readonly timer: ReturnType<typeof setTimeout>
  private status = 0
  private headers: IncomingHttpHeaders | undefined
  private readonly body: CappedBody

  constructor(
    private readonly base: Base,
    private readonly call: Call,
    limits: Limits & { readonly timeoutMillis: number },
    private readonly resume: Resume
  ) {
    this.body = new CappedBody(limits.maxBodyBytes)
    // unref: the request's socket, not its deadline, keeps the process alive
    this.timer = setTimeout(() => this.expire(limits.timeout), limits.timeoutMillis).unref()
  }

  private failure(reason: "Network" | "Timeout" | "Body", detail: string) {
    // the URL only for a failure
    return transportError(reason, this.call.method, this.base.origin + wirePath(this.base, this.call), detail)
  }

  private settle(effect: Effect.Effect<Answer, SendError>): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    this.resume(effect)
  }

  /** Aborts the request now, or as soon as undici starts it. */
  private stop(reason: Error): void {
    if (this.controller === undefined) this.stopWith = reason
    else if (!this.controller.aborted) this.controller.abort(reason)
  }

  private expire(timeout: Duration.Duration): void {
    if (this.settled) return
    this.settle(Effect.fail(this.failure("Timeout", timeoutDetail(timeout))))
    this.stop(expired)
  }

  /** Called by the fiber's interruption. */
  interrupt(): void {
    this.settled = true
    clearTimeout(this.timer)
    this.stop(interrupted)
  }

  private tooLarge(size: string): void {
    this.settle(Effect.fail(bodyTooLarge(this.status, size, this.body.maxBytes)))
    this.stop(overCap)
  }

  onRequestStart(controller: Undici.Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.stopWith !== undefined) controller.abort(this.stopWith)
  }

  onResponseStart(_: Undici.Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // informational answers (1xx) come before the response
    if (statusCode < 200 || this.settled) return
    this.status = statusCode
    this.headers = headers
    const declared = headers["content-length"]
    const refused = declaredOverCap(typeof declared === "string" ? declared : undefined, this.body.maxBytes)
    if (refused !== undefined) this.tooLarge(refused)
  }

  onResponseData(_: Undici.Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return
    if (!this.body.add(chunk)) this.tooLarge(this.body.overCapSize)
  }

  onResponseEnd(): void {
    if (this.settled) return
    const text = this.body.text()
    const raw = this.headers ?? {}
    let headers: Record<string, string | undefined> | undefined
    this.settle(Effect.succeed({
      status: this.status,
      // built when first read: a success does not need them
      get headers() {
        return headers ??= flatten(raw)
      },
      text
    }))
  }

  onResponseError(_: Undici.Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return
    // an error once the headers are in is the body's
    this.settle(Effect.fail(this.failure(this.headers === undefined ? "Network" : "Body", error.message)))
  }
}

/**
 * The headers of `call` as sent: with the trace headers of the span the sending fiber runs in, if
 * any. The fiber is the one running the `Effect.async` step, read where it is (no step of its own);
 * with no span, the call's own headers go as they are.
 */
const headersOf = (call: Call): Readonly<Record<string, string>> => {
  const fiber = Fiber.getCurrentFiber()
  const trace = fiber._tag === "Some" ? traceHeaders(fiber.value) : undefined
  return trace === undefined ? call.headers : { ...call.headers, ...trace }
}

/**
 * The transport of calls below `base` over `dispatcher`. Interruption aborts a call's request. A
 * call sent from a span carries its `traceparent` (`internal/tracing.ts`).
 */
export const make = (dispatcher: Undici.Dispatcher, base: Base, limits: Limits): Transport => {
  // read once: every exchange sets its deadline
  const timed = { ...limits, timeoutMillis: Duration.toMillis(limits.timeout) }
  return {
    send: (call) =>
      Effect.async<Answer, SendError>((resume) => {
        const exchange = new Exchange(base, call, timed, resume)
        dispatcher.dispatch({
          origin: base.origin,
          path: wirePath(base, call),
          method: call.method,
          headers: headersOf(call),
          body: call.body ?? null,
          // the deadline is the only timeout
          headersTimeout: 0,
          bodyTimeout: 0
        }, exchange)
        return Effect.sync(() => exchange.interrupt())
      })
  }
}
