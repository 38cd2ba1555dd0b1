/**
 * Spans only when someone listens: operations and requests are wrapped in spans only when the
 * application installed a tracer other than Effect's built-in one, which nothing reads (README,
 * "Where the CPU goes").
 */
import type { Tracer } from "effect"
import { Effect } from "effect"
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
