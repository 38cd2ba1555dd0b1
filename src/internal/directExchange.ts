/**
 * The client's fast lane: one API exchange (send, read the capped body) in a single step over the
 * default transport's undici dispatcher, when the ambient `HttpClient` is that transport and no
 * `transformClient` is set. The general path goes through `HttpClient.execute` and a response
 * object; on a fast transport that machinery costs more CPU than the request. Both paths classify
 * the answer the same way (`responses.ts`) and share the token, 401 and retry logic.
 */
import type { HttpClient, HttpClientRequest } from "@effect/platform"
import { Duration, Effect } from "effect"
import type { Dispatcher } from "undici"
import { TransportError, UnexpectedResponseError } from "../ApiError.js"
import { Deadline, requestOptions, splitUrl } from "./undici.js"

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

const flatten = (headers: Dispatcher.ResponseData["headers"]): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {}
  for (const name in headers) {
    const value = headers[name]
    out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const decoder = new TextDecoder()

/**
 * Sends `request` (a body of bytes or none) and reads its body, refusing one over `maxBytes`
 * (by `Content-Length` before reading, by counting while reading). The deadline covers the whole
 * exchange; interruption aborts the request and destroys the body.
 */
export const exchange = (
  dispatcher: Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  timeout: Duration.Duration,
  maxBytes: number
): Effect.Effect<Answer, TransportError | UnexpectedResponseError> => {
  const failure = (reason: TransportError["reason"], detail: string) =>
    new TransportError({ reason, method: request.method, url: request.url, detail })
  const target = splitUrl(request.url)
  const body = request.body._tag === "Uint8Array" ? request.body.body : request.body._tag === "Empty" ? null : undefined
  if (target === undefined || body === undefined) {
    return Effect.fail(failure("Network", "the fast lane takes absolute URLs without query and byte bodies only"))
  }
  return Effect.async<Answer, TransportError | UnexpectedResponseError>((resume) => {
    const deadline = new Deadline(timeout)
    /** A failure: a `Timeout` when the deadline caused it, else of `reason`. */
    const failed = (reason: TransportError["reason"], cause: unknown) =>
      failure(
        deadline.timedOut === undefined ? reason : "Timeout",
        deadline.timedOut?.message ?? (cause instanceof Error ? cause.message : String(cause))
      )
    let source: Dispatcher.ResponseData["body"] | undefined
    dispatcher.request(requestOptions(request, target, body, deadline), (error, data) => {
      if (error !== null) {
        deadline.clear()
        return resume(Effect.fail(failed("Network", error)))
      }
      source = data.body
      const tooLarge = (size: string) => {
        deadline.clear()
        data.body.destroy()
        resume(Effect.fail(
          new UnexpectedResponseError({
            status: data.statusCode,
            excerpt: "",
            issue: `response body of ${size} bytes exceeds the cap of ${maxBytes} bytes`
          })
        ))
      }
      const declared = data.headers["content-length"]
      if (typeof declared === "string" && /^\d+$/.test(declared) && Number(declared) > maxBytes) return tooLarge(declared)
      const chunks: Array<Buffer> = []
      let total = 0
      let done = false
      data.body.on("data", (chunk: Buffer) => {
        total += chunk.length
        if (total > maxBytes && !done) {
          done = true
          return tooLarge(`more than ${maxBytes}`)
        }
        chunks.push(chunk)
      })
      data.body.on("error", (cause: unknown) => {
        if (done) return
        done = true
        deadline.clear()
        resume(Effect.fail(failed("Body", cause)))
      })
      data.body.on("end", () => {
        if (done) return
        done = true
        deadline.clear()
        const text = chunks.length === 1 ? decoder.decode(chunks[0]) : decoder.decode(Buffer.concat(chunks, total))
        let headers: Record<string, string | undefined> | undefined
        resume(Effect.succeed({
          status: data.statusCode,
          get headers() {
            return headers ??= flatten(data.headers)
          },
          text
        }))
      })
    })
    return Effect.sync(() => {
      deadline.clear()
      deadline.abort()
      source?.destroy()
    })
  })
}
