/**
 * `Effect.catchAll` as a failure-only frame, which a success skips (README, "Where the CPU goes").
 * A plain failure goes to `f`; any other cause (defects, interruption, several failures) goes to
 * `catchAll` itself, so the outcome is `catchAll`'s in every case.
 */
import { Effect } from "effect"

export const catchFailure = <A, E, R, A2, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (error: E) => Effect.Effect<A2, E2, R2>
): Effect.Effect<A | A2, E2, R | R2> =>
  Effect.catchAllCause(
    self,
    (cause) => cause._tag === "Fail" ? f(cause.error) : Effect.catchAll(Effect.failCause(cause), f)
  )
