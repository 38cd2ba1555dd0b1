/**
 * What both runners read of an outcome to compare it with the table: plain functions, no `effect`
 * import (each runner passes what its edition needs, such as reading a `Duration`).
 */
import type { Outcome } from "./cases.js"

/**
 * The failure `error` as the table writes it: its `_tag`, the fields the expected outcome names
 * (`xMs` read from the `Duration` field `x` by `millis`), and `detailIncludes` when `detail` holds it.
 */
export const failureOutcome = (
  error: unknown,
  expected: Outcome,
  millis: (duration: unknown) => number | undefined
): Outcome => {
  const record = (typeof error === "object" && error !== null ? error : {}) as Readonly<Record<string, unknown>>
  const tag = typeof record["_tag"] === "string" ? record["_tag"] : `not a tagged error: ${typeof error}`
  const wanted = "fields" in expected && expected.fields !== undefined ? Object.keys(expected.fields) : []
  const fields = Object.fromEntries(wanted.map((name) => {
    const value = name.endsWith("Ms") ? millis(record[name.slice(0, -2)]) : record[name]
    return [name, typeof value === "string" || typeof value === "number" ? value : String(value)]
  }))
  const detail = record["detail"]
  const part = "detailIncludes" in expected ? expected.detailIncludes : undefined
  return {
    _tag: tag,
    ...(wanted.length > 0 ? { fields } : {}),
    ...(part === undefined
      ? {}
      : { detailIncludes: typeof detail === "string" && detail.includes(part) ? part : String(detail) })
  }
}

/** The counts of `requests` that `expected` names. */
export const pickRequests = <K extends string>(
  requests: Readonly<Record<K, number>>,
  expected: Partial<Readonly<Record<K, number>>>
): Partial<Record<K, number>> =>
  Object.fromEntries(Object.keys(expected).map((k) => [k, requests[k as K]])) as Partial<Record<K, number>>

/** The fields of `report` that `expected` names. */
export const pickFields = (
  report: object,
  expected: Readonly<Record<string, unknown>>
): Record<string, unknown> =>
  Object.fromEntries(Object.keys(expected).map((k) => [k, (report as Readonly<Record<string, unknown>>)[k]]))

/** The difference of two counters, per endpoint. */
export const since = <K extends string>(
  after: Readonly<Record<K, number>>,
  before: Readonly<Record<K, number>>
): Record<K, number> =>
  Object.fromEntries(Object.keys(after).map((k) => [k, after[k as K] - before[k as K]])) as Record<K, number>

/**
 * A stream's end as a paging case writes a failure: `Success` when `error` is undefined, else its
 * `_tag`, and the `source.parameter` of its first error object when `expected` names one.
 */
export const streamFailure = (
  error: unknown,
  expected: { readonly _tag: string; readonly parameter?: string }
): { readonly _tag: string; readonly parameter?: string } => {
  if (error === undefined) return { _tag: "Success" }
  const record = (typeof error === "object" && error !== null ? error : {}) as {
    readonly _tag?: unknown
    readonly errors?: ReadonlyArray<{ readonly source?: { readonly parameter?: string } }>
  }
  const tag = typeof record._tag === "string" ? record._tag : "not a tagged error"
  return expected.parameter === undefined
    ? { _tag: tag }
    : { _tag: tag, parameter: String(record.errors?.[0]?.source?.parameter) }
}
