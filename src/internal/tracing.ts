/**
 * Token fetches as spans of the layer rather than of the caller that happened to start them.
 *
 * A token fetch is shared: every caller waiting at the time, and every later one until the token
 * expires, uses it. Made a child of the first caller's span it would show in that caller's trace
 * alone, its duration charged to that one request, and would outlive the request's span when the
 * caller is interrupted; the others' traces would miss it. Made a child of the layer's span (or a
 * root), it is where the token lives, and a link takes a trace viewer from the request that started
 * it to it.
 */
import type { Option, Tracer } from "effect"
import { Effect } from "effect"

/**
 * `effect` in a span named `name` whose parent is `owner` (the span the service was built in), or
 * a root span when there was none, linked to the span of the fiber that started it (`linkCaller`).
 */
export const withOwnSpan = (
  name: string,
  owner: Option.Option<Tracer.AnySpan>,
  linkCaller: boolean
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.currentSpan.pipe(Effect.option), (caller) => {
    const links: Array<Tracer.SpanLink> = linkCaller && caller._tag === "Some"
      ? [{ _tag: "SpanLink", span: caller.value, attributes: {} }]
      : []
    return owner._tag === "Some"
      ? Effect.withSpan(effect, name, { kind: "client", parent: owner.value, links })
      : Effect.withSpan(effect, name, { kind: "client", root: true, links })
  })
