/** The shapes both test seams (`seam.effect3.ts`, `seam.effect4.ts`) hand out, written once. */
import type { Effect } from "effect"
import type { Cause } from "effect/Cause"

/** A log as `logsTo` hands it over. */
export type Log = {
  readonly message: unknown
  readonly cause: Cause<unknown>
  readonly annotations: Record<string, unknown>
}

/** What `fiberTracker` makes. */
export type FiberTracker = {
  readonly supervise: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly running: Effect.Effect<number>
}
