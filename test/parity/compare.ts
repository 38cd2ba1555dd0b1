/**
 * What the runner reads of an outcome to compare it with the table and the outcome transcript:
 * plain functions, no `effect` import (the runner passes what needs one, such as reading a `Duration`).
 */
import type { Outcome } from "./cases.js"

type Fields = Readonly<Record<string, unknown>>

const fieldsOf = (error: unknown): Fields => (typeof error === "object" && error !== null ? error : {}) as Fields

/** An error's `_tag`, or what it is when it has none. */
const tagOf = (error: unknown): string => {
  const tag = fieldsOf(error)["_tag"]
  return typeof tag === "string" ? tag : `not a tagged error: ${typeof error}`
}

/**
 * The failure `error` as the table writes it: its `_tag`, the fields the expected outcome names
 * (`xMs` read from the `Duration` field `x` by `millis`), and `detailIncludes` when `detail` holds it.
 */
export const failureOutcome = (
  error: unknown,
  expected: Outcome,
  millis: (duration: unknown) => number | undefined
): Outcome => {
  const record = fieldsOf(error)
  const wanted = "fields" in expected && expected.fields !== undefined ? Object.keys(expected.fields) : []
  const fields = Object.fromEntries(wanted.map((name) => {
    const value = name.endsWith("Ms") ? millis(record[name.slice(0, -2)]) : record[name]
    return [name, typeof value === "string" || typeof value === "number" ? value : String(value)]
  }))
  const detail = record["detail"]
  const part = "detailIncludes" in expected ? expected.detailIncludes : undefined
  return {
    _tag: tagOf(error),
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
  const { errors } = fieldsOf(error) as {
    readonly errors?: ReadonlyArray<{ readonly source?: { readonly parameter?: string } }>
  }
  return expected.parameter === undefined
    ? { _tag: tagOf(error) }
    : { _tag: tagOf(error), parameter: String(errors?.[0]?.source?.parameter) }
}

/**
 * Every field of `value` but `_tag`, by name in order, as plain JSON (a `Duration`, read by
 * `millis`, as `{ millis }`): what the outcome transcript holds of a failure or a report.
 */
export const plainFields = (
  value: unknown,
  millis: (duration: unknown) => number | undefined
): Record<string, unknown> => {
  const record = fieldsOf(value)
  return Object.fromEntries(
    Object.keys(record).filter((name) => name !== "_tag").sort().map((name) => {
      const field = record[name]
      const ms = millis(field)
      return [name, ms !== undefined ? { millis: ms } : field === undefined ? null : JSON.parse(JSON.stringify(field))]
    })
  )
}

/**
 * What the outcome transcript holds of a call, a stream, a sync or a check: `{ Success: value }`,
 * `{ [_tag]: fields }` (`fullFailure`), `{ interrupted: true }`, or counters.
 */
export type FullOutcome = Readonly<Record<string, unknown>>

/** A failure as the outcome transcript holds it: `{ [_tag]: every other field }`. */
export const fullFailure = (error: unknown, millis: (duration: unknown) => number | undefined): FullOutcome => ({
  [tagOf(error)]: plainFields(error, millis)
})
