/** A tracer other than Effect's built-in one that records every span it makes. */
import { Effect, Tracer } from "effect"

/** A tracer over the current one, and the spans it has made so far. */
export const recordingTracer: Effect.Effect<
  { readonly tracer: Tracer.Tracer; readonly spans: ReadonlyArray<Tracer.Span> }
> = Effect.map(Effect.tracer, (base) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = base.span(...args)
      spans.push(span)
      return span
    },
    context: base.context
  })
  return { tracer, spans }
})
