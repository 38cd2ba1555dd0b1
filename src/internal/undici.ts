/**
 * What the default transport and the client's fast lane share about sending on undici: where a
 * URL goes, the request options, and the abort signal with its deadline.
 */
import type { HttpClientRequest } from "@effect/platform"
import { Duration } from "effect"
import { EventEmitter } from "node:events"
import type { Dispatcher } from "undici"
import { RequestTimeout } from "./requestTimeout.js"

/** An undici origin and path. */
export interface Target {
  readonly origin: string
  readonly path: string
}

/** Splits an absolute URL without query or fragment into origin and path, by hand (no `URL`). */
export const splitUrl = (url: string): Target | undefined => {
  const scheme = url.indexOf("://")
  if (scheme <= 0 || url.includes("?") || url.includes("#")) return undefined
  const slash = url.indexOf("/", scheme + 3)
  return slash < 0 ? { origin: url, path: "/" } : { origin: url.slice(0, slash), path: url.slice(slash) }
}

/** The options of one request: the deadline is the only timeout, so undici's own are off. */
export const requestOptions = (
  request: HttpClientRequest.HttpClientRequest,
  target: Target,
  body: Exclude<Dispatcher.DispatchOptions["body"], undefined>,
  deadline: Deadline
): Dispatcher.RequestOptions => ({
  origin: target.origin,
  path: target.path,
  method: request.method,
  headers: request.headers,
  body,
  signal: deadline,
  headersTimeout: 0,
  bodyTimeout: 0
})

/**
 * The abort signal of one undici request, and its deadline. undici takes an `EventEmitter` as a
 * signal, which is cheaper to make than an `AbortController`.
 */
export class Deadline extends EventEmitter {
  /** Set when the deadline, not the caller, aborted the request. */
  timedOut: RequestTimeout | undefined
  private readonly timer: ReturnType<typeof setTimeout> | undefined

  constructor(timeout: Duration.Duration | undefined) {
    super()
    // unref: the request's socket, not its deadline, keeps the process alive
    this.timer = timeout === undefined ? undefined : setTimeout(() => {
      this.timedOut = new RequestTimeout({ timeout })
      this.abort()
    }, Duration.toMillis(timeout)).unref()
  }

  get pending(): boolean {
    return this.timer !== undefined
  }

  abort(): void {
    this.emit("abort")
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
  }
}
