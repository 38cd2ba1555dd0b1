/** The retry combinators as Effect 4 writes them: a step's metadata holds its input and attempt. */
import { Duration, Effect, Schedule } from "effect"

/** `schedule`, each delay as `f(delay, input, retry)` makes it (`retry` 1 for the first). */
export const modifyDelays = <In>(
  f: (delay: Duration.Duration, input: In, retry: number) => Effect.Effect<Duration.Duration>
) =>
<Out, E extends In, SE, R>(schedule: Schedule.Schedule<Out, E, SE, R>): Schedule.Schedule<Out, E, SE, R> =>
  Schedule.modifyDelay(schedule, ({ attempt, duration, input }) => f(duration, input, attempt))

/** `schedule`, each delay at least `waitMillis(input)`, stopping when that is past `cap`. */
export const waitAtLeast = <In>(waitMillis: (input: In) => number) =>
<Out, E extends In, SE, R>(
  schedule: Schedule.Schedule<Out, E, SE, R>,
  cap: Duration.Input
): Schedule.Schedule<Out, E, SE, R> => {
  const capMillis = Duration.toMillis(cap)
  return schedule.pipe(
    Schedule.while(({ input }) => waitMillis(input) <= capMillis),
    Schedule.modifyDelay(({ duration, input }) =>
      Effect.succeed(Duration.max(duration, Duration.millis(waitMillis(input))))
    )
  )
}
