/**
 * `catchFailure`, the hot path's `catchAll`: the same outcome as `catchAll` for every kind of cause,
 * and a success passes through untouched.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FiberId } from "effect"
import { catchFailure } from "../src/internal/catchFailure.js"

const recover = (e: string) => e === "again" ? Effect.succeed("recovered") : Effect.fail(`handled ${e}`)

const causes: ReadonlyArray<readonly [string, Cause.Cause<string>]> = [
  ["a failure", Cause.fail("boom")],
  ["a failure the handler recovers from", Cause.fail("again")],
  ["a defect", Cause.die(new Error("bug"))],
  ["an interruption", Cause.interrupt(FiberId.none)],
  ["two failures in sequence", Cause.sequential(Cause.fail("first"), Cause.fail("second"))],
  ["a failure beside a defect", Cause.parallel(Cause.fail("boom"), Cause.die("bug"))],
  ["a failure then an interruption", Cause.sequential(Cause.fail("again"), Cause.interrupt(FiberId.none))],
  ["nothing", Cause.empty]
]

describe("catchFailure", () => {
  for (const [name, cause] of causes) {
    it.effect(`ends as catchAll does for ${name}`, () =>
      Effect.gen(function*() {
        const ours = yield* Effect.exit(catchFailure(Effect.failCause(cause), recover))
        const theirs = yield* Effect.exit(Effect.catchAll(Effect.failCause(cause), recover))
        expect(ours).toStrictEqual(theirs)
      }))
  }

  it.effect("passes a success through without calling the handler", () =>
    Effect.gen(function*() {
      let called = false
      const exit = yield* Effect.exit(catchFailure(Effect.succeed(1), () => Effect.sync(() => (called = true))))
      expect(exit).toStrictEqual(Exit.succeed(1))
      expect(called).toBe(false)
    }))
})
