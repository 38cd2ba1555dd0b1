/**
 * Signals, and what they mean for the command that is running. SIGINT and SIGTERM interrupt the
 * command (its finalizers run: an export flushes its file, a served sandbox closes); the process
 * then exits with the code the command chose for that case — 130 by default, 0 for `sandbox`,
 * whose normal way to stop is a signal. A second signal is left to Node's default: exit at once.
 */
import { Context, Effect, Ref } from "effect"
import { ExitCode } from "./failure.js"

/** The exit code an interruption by signal ends the process with. */
export class InterruptExitCode extends Context.Tag("effect-design-search/cli/InterruptExitCode")<
  InterruptExitCode,
  Ref.Ref<number>
>() {}

/** Declares that being stopped by a signal is a success for the running command. */
export const signalMeansSuccess: Effect.Effect<void, never, InterruptExitCode> = Effect.flatMap(
  InterruptExitCode,
  (code) => Ref.set(code, ExitCode.success)
)

/** Completes with the first SIGINT or SIGTERM; listens only while it waits. */
export const awaitSignal: Effect.Effect<NodeJS.Signals> = Effect.async<NodeJS.Signals>((resume) => {
  const onSignal = (signal: NodeJS.Signals) => {
    stop()
    resume(Effect.succeed(signal))
  }
  const stop = () => {
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  return Effect.sync(stop)
})
