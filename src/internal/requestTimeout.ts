/**
 * Request timeouts enforced by the transport. An Effect-level timeout (`Effect.timeoutFail`) races
 * every request against a forked timer fiber, which costs more CPU than the rest of a request on a
 * fast transport. So the client states the deadline in a `FiberRef`; a transport that can enforce
 * it natively (a timer that aborts the socket) marks itself `timeoutAware`, and the client falls
 * back to `Effect.timeoutFail` for any other `HttpClient`.
 */
import type { HttpClient } from "@effect/platform"
import { Data, Duration, FiberRef, Option } from "effect"
import { globalValue } from "effect/GlobalValue"

/** The timeout of the request being executed, set by the client around `execute`. */
export const currentRequestTimeout: FiberRef.FiberRef<Option.Option<Duration.Duration>> = globalValue(
  "effect-design-search/currentRequestTimeout",
  () => FiberRef.unsafeMake<Option.Option<Duration.Duration>>(Option.none())
)

/** The cause a timeout-aware transport gives its `HttpClientError` when the deadline passes. */
export class RequestTimeout extends Data.TaggedError("RequestTimeout")<{ readonly timeout: Duration.Duration }> {
  override get message(): string {
    return `no complete response within ${Duration.format(this.timeout)}`
  }
}

const timeoutAware = Symbol.for("effect-design-search/timeoutAware")

/** Marks `client` as enforcing `currentRequestTimeout` itself. */
export const markTimeoutAware = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  Object.assign(client, { [timeoutAware]: true })

/** Whether `client` enforces `currentRequestTimeout` itself. */
export const isTimeoutAware = (client: HttpClient.HttpClient): boolean => timeoutAware in client
