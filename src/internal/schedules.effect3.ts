/** The retry combinators as Effect 3 writes them: a schedule sees its input only as its own output. */
import type { Effect } from "effect"
import { Duration, Schedule } from "effect"

/** `schedule`, each delay as `f(delay, input, retry)` makes it (`retry` 1 for the first); it outputs `[Out, [In, count]]`. */
export const modifyDelays = <In>(
  f: (delay: Duration.Duration, input: In, retry: number) => Effect.Effect<Duration.Duration>
) =>
<Out, E extends In, R>(schedule: Schedule.Schedule<Out, E, R>): Schedule.Schedule<[Out, [E, number]], E, R> =>
  Schedule.intersect(schedule, Schedule.intersect(Schedule.identity<E>(), Schedule.count)).pipe(
    Schedule.modifyDelayEffect(([, [input, n]], delay) => f(delay, input, n + 1))
  )

/** `schedule`, each delay at least `waitMillis(input)`, stopping when that is past `cap`; it outputs `[Out, In]`. */
export const waitAtLeast = <In>(waitMillis: (input: In) => number) =>
<Out, E extends In, R>(
  schedule: Schedule.Schedule<Out, E, R>,
  cap: Duration.DurationInput
): Schedule.Schedule<[Out, E], E, R> => {
  const capMillis = Duration.toMillis(cap)
  return Schedule.intersect(schedule, Schedule.identity<E>()).pipe(
    Schedule.whileInput((e: E) => waitMillis(e) <= capMillis),
    Schedule.modifyDelay(([, e], delay) => Duration.max(delay, Duration.millis(waitMillis(e))))
  )
}
