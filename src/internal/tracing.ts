/**
 * What the toolkit does with traces. Spans only when someone listens: operations and requests are
 * wrapped in spans only when the application installed a tracer other than Effect's built-in one,
 * which nothing reads (README, "Where the CPU goes"). Trace context across the wire: a request sent
 * from a span carries that span's W3C `traceparent` (and `b3`), as `@effect/platform`'s own clients
 * send it. Token fetches, which serve every caller, are spans of the layer rather than of the
 * caller that happened to start them.
 */
import { HttpClient, HttpTraceContext } from "@effect/platform"
import type { Fiber, Option } from "effect"
import { Context, Effect, FiberRef, Tracer } from "effect"
import { globalValue } from "effect/GlobalValue"

/** Effect's built-in tracer, the one in the default services. */
const builtIn: Tracer.Tracer = globalValue("effect-design-search/builtInTracer", () => Effect.runSync(Effect.tracer))

/**
 * `effect` in a span named `name`, when the current tracer is not the built-in one. The fiber's own
 * tracer is read in one step (`Effect.tracerWith` takes three).
 */
export const withSpanWhenTraced = (
  name: string,
  attributes: () => Readonly<Record<string, unknown>> = () => ({})
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime<A, E, R>((fiber) =>
    fiber.currentTracer === builtIn
      ? effect
      : Effect.withSpan(effect, name, { kind: "client", attributes: attributes() })
  )

/**
 * The trace headers (`traceparent`, `b3`) of the span `fiber` runs in, as
 * `HttpTraceContext.toHeaders` writes them; `undefined` when it runs in no span, or the application
 * turned propagation (`HttpClient.withTracerPropagation(false)`) or tracing off. Without a span it
 * costs one field read: it is on every request's path.
 */
export const traceHeaders = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>
): Readonly<Record<string, string>> | undefined => {
  const span = fiber.currentSpan
  if (span === undefined || span._tag !== "Span") return undefined
  return fiber.getFiberRef(HttpClient.currentTracerPropagation) && fiber.getFiberRef(FiberRef.currentTracerEnabled)
    ? HttpTraceContext.toHeaders(span)
    : undefined
}

/**
 * `effect`, the work of a long-lived service rather than of its caller, in a span named `name`
 * whose parent is `owner` (the span the service was built in), or a root span when there was none,
 * linked to the span of the fiber that started it (when `linkCaller`). Under the built-in tracer no
 * span is made, but `effect` still runs in `owner`'s trace context (or none), never the caller's, so
 * the requests it sends name the same trace whatever the tracer.
 *
 * A token fetch is shared: every caller waiting at the time, and every later one until the token
 * expires, uses it. Made a child of the first caller's span it would show in that caller's trace
 * alone, its duration charged to that one request, and would outlive the request's span when the
 * caller is interrupted; the others' traces would miss it. Made a child of the layer's span (or a
 * root), it is where the token lives, and the link takes a trace viewer from the request that
 * started it to it.
 */
export const withOwnSpan = (
  name: string,
  owner: Option.Option<Tracer.AnySpan>,
  linkCaller: boolean
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    if (fiber.currentTracer === builtIn) {
      if (owner._tag === "Some") return Effect.withParentSpan(effect, owner.value)
      return fiber.currentSpan === undefined
        ? effect
        : Effect.locallyWith(effect, FiberRef.currentContext, Context.omit(Tracer.ParentSpan))
    }
    const caller = fiber.currentSpan
    const links: Array<Tracer.SpanLink> = linkCaller && caller !== undefined
      ? [{ _tag: "SpanLink", span: caller, attributes: {} }]
      : []
    return owner._tag === "Some"
      ? Effect.withSpan(effect, name, { kind: "client", parent: owner.value, links })
      : Effect.withSpan(effect, name, { kind: "client", root: true, links })
  })
