/**
 * The abort signal of one undici request, and its deadline. undici takes an `EventEmitter` as a
 * signal, which is cheaper to make than an `AbortController`.
 */
import { Duration } from "effect"
import { EventEmitter } from "node:events"
import { RequestTimeout } from "./requestTimeout.js"

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
