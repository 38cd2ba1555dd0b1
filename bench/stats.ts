/** Small statistics for the benchmarks: medians and percentiles of repeated measurements. */

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]!
}

export const median = (values: ReadonlyArray<number>): number => percentile(values, 50)

/** Rounds for display and for results.json. */
export const round = (value: number, digits = 3): number => Number(value.toFixed(digits))
