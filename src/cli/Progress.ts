/**
 * A progress bar on stderr when it is a terminal (done/total, rate, ETA), redrawn at most every 100
 * ms, in the line where a wait is shown too (`Waits.ts`).
 */
import { Clock, Duration, Effect } from "effect"
import * as Output from "./Output.js"

/** A progress counter and its bar. */
export interface Progress {
  /** Counts `items` more done. */
  readonly advance: (items: number) => Effect.Effect<void>
  /** Erases the bar, so a summary line can take its place. */
  readonly clear: Effect.Effect<void>
  /** Sets how many items there are, when that is known only once the work has begun. */
  readonly setTotal: (total: number) => Effect.Effect<void>
}

const barWidth = 24
const redrawMillis = 100

const formatEta = (seconds: number): string =>
  !Number.isFinite(seconds) ? "?" : seconds <= 0 ? "0s" : Duration.format(Duration.seconds(Math.ceil(seconds)))

/** The bar's text for `done` of `total` after `elapsedMillis`. */
export const render = (done: number, total: number, elapsedMillis: number): string => {
  const fraction = total === 0 ? 1 : Math.min(1, done / total)
  const filled = Math.round(fraction * barWidth)
  const rate = elapsedMillis > 0 ? done / (elapsedMillis / 1000) : 0
  const eta = rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY
  return `[${"#".repeat(filled)}${"-".repeat(barWidth - filled)}] ${done}/${total} ${Math.floor(fraction * 100)}%` +
    `  ${rate.toFixed(1)}/s  ETA ${formatEta(eta)}`
}

export const make: Effect.Effect<Progress> = Effect.map(Clock.currentTimeMillis, (started) => {
  const enabled = process.stderr.isTTY === true
  const state = { done: 0, total: 0, drawnAt: Number.NEGATIVE_INFINITY }
  const draw = (now: number) =>
    Effect.sync(() => {
      state.drawnAt = now
      Output.drawInPlace(render(state.done, state.total, now - started))
    })
  return {
    advance: (items) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        state.done += items
        return enabled && (now - state.drawnAt >= redrawMillis || state.done === state.total)
          ? draw(now)
          : Effect.void
      }),
    clear: Effect.sync(Output.erase),
    setTotal: (n) => Effect.sync(() => void (state.total = n))
  }
})
