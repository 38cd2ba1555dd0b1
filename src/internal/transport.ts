/**
 * The one way the toolkit sends a request. A `Transport` takes a `Call` (method, path below its
 * base URL, headers, body) and answers an `Answer` (status, headers, the body as text), or fails
 * with a `TransportError` or, for a body over the cap, an `UnexpectedResponseError`. The API client
 * and the token endpoint both send through it; what they make of an answer is theirs.
 *
 * Two adapters implement it, chosen once when a client is made (`chooseTransport.ts`): one over
 * undici's dispatcher (`undiciTransport.ts`), one over any `@effect/platform` `HttpClient`
 * (`httpClientTransport.ts`). What they share is here: the split of the base URL, the body cap,
 * the failures they build and the deadline's wording. Every call has one deadline, covering the
 * whole exchange with its body: when it passes the request is aborted and the call fails with
 * `TransportError { reason: "Timeout" }`.
 */
import type { Effect } from "effect"
import { Duration } from "effect"
import { TransportError, UnexpectedResponseError } from "../ApiError.js"

/** One request, before it is sent. */
export interface Call {
  readonly method: "GET" | "POST"
  /** Below the transport's base URL: `/search/quick`, or `""` for the base itself. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** The body as text (its `content-type` is among the headers), or none. */
  readonly body: string | undefined
}

/** What a call brings back: enough to classify it. */
export interface Answer {
  readonly status: number
  /** Lower-case names; an adapter may build them only when they are first read. */
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

/** Why a call brought back no answer. */
export type SendError = TransportError | UnexpectedResponseError

/** Sends calls below one base URL. */
export interface Transport {
  /** Sends `call` and reads its whole body within the cap and the deadline. */
  readonly send: (call: Call) => Effect.Effect<Answer, SendError>
}

/** What bounds every call of a transport. */
export interface Limits {
  /** The deadline of one call, body included. */
  readonly timeout: Duration.Duration
  /** Largest body read, in bytes. */
  readonly maxBodyBytes: number
}

/** An absolute URL split into its origin and its path (`""` for the root). */
export interface Base {
  readonly origin: string
  readonly path: string
}

/** Splits an absolute URL without query or fragment into origin and path, by hand (no `URL`). */
export const splitUrl = (url: string): Base | undefined => {
  const scheme = url.indexOf("://")
  if (scheme <= 0 || url.includes("?") || url.includes("#")) return undefined
  const slash = url.indexOf("/", scheme + 3)
  if (slash < 0) return { origin: url, path: "" }
  const path = url.slice(slash)
  return { origin: url.slice(0, slash), path: path === "/" ? "" : path }
}

/** The origin of an absolute URL (`scheme://host[:port]`), as it is written; `""` if it has none. */
export const originOf = (url: string): string => {
  const scheme = url.indexOf("://")
  if (scheme <= 0) return ""
  const end = url.slice(scheme + 3).search(/[/?#]/)
  return end < 0 ? url : url.slice(0, scheme + 3 + end)
}

/** The path of `call` on the wire: the base's path and the call's, `/` at least. */
export const wirePath = (base: Base, call: Call): string => base.path + call.path || "/"

/** The `TransportError` of a call to `url`. */
export const transportError = (
  reason: TransportError["reason"],
  method: string,
  url: string,
  detail: string
): TransportError => new TransportError({ reason, method, url, detail })

/** What a call that ran past its deadline says. */
export const timeoutDetail = (timeout: Duration.Duration): string =>
  `no complete response within ${Duration.format(timeout)}`

/** A body over the cap: refused by its `Content-Length` (`size` is that) or while reading. */
export const bodyTooLarge = (status: number, size: string, maxBytes: number): UnexpectedResponseError =>
  new UnexpectedResponseError({
    status,
    excerpt: "",
    issue: `response body of ${size} bytes exceeds the cap of ${maxBytes} bytes`
  })

/** The `Content-Length` of an answer when it is over the cap: such a body is refused unread. */
export const declaredOverCap = (contentLength: string | undefined, maxBytes: number): string | undefined =>
  contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > maxBytes
    ? contentLength
    : undefined

const decoder = new TextDecoder()

/** A body read chunk by chunk, refused as soon as it passes the cap. */
export class CappedBody {
  private chunks: Array<Uint8Array> = []
  private total = 0

  constructor(readonly maxBytes: number) {}

  /** Keeps `chunk`; `false` when the body is now over the cap. */
  add(chunk: Uint8Array): boolean {
    this.total += chunk.length
    if (this.total > this.maxBytes) {
      this.chunks = []
      return false
    }
    this.chunks.push(chunk)
    return true
  }

  /** What the cap's refusal says of the size. */
  get overCapSize(): string {
    return `more than ${this.maxBytes}`
  }

  /** The body read so far, as UTF-8 text. */
  text(): string {
    const chunks = this.chunks
    this.chunks = []
    if (chunks.length === 0) return ""
    if (chunks.length === 1) return decoder.decode(chunks[0])
    const out = new Uint8Array(this.total)
    let offset = 0
    for (const chunk of chunks) {
      out.set(chunk, offset)
      offset += chunk.length
    }
    return decoder.decode(out)
  }
}
