/**
 * Token fetches as spans of the layer rather than of the caller that happened to start them. A
 * fetch is shared by every caller until the token expires: as a child of the first caller's span
 * it would be charged to that request alone, and outlive it when it is interrupted. A link leads
 * from the request that started it.
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
