/**
 * Dates as the wire writes them: calendar dates `YYYY-MM-DD` (midnight UTC) and ISO 8601
 * timestamps, in epoch milliseconds. Plain functions, so that the CLI checks `--changed-since`
 * without loading the domain schemas.
 */

/**
 * Midnight UTC of `YYYY-MM-DD` in epoch milliseconds, or `undefined` when `s` is not a real
 * calendar date in that form. Years before 100 are refused, as `Date.UTC` would read them as 19xx.
 */
export const calendarMillis = (s: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (match === null) return undefined
  const [y, mo, d] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])]
  const date = new Date(Date.UTC(y, mo, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo && date.getUTCDate() === d
    ? date.getTime()
    : undefined
}

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export const isCalendarDate = (s: string): boolean => calendarMillis(s) !== undefined

/** Why `s`, a date (or a timestamp) written so, names no day (`2024-02-30 is no such day`); else `undefined`. */
export const noSuchDay = (s: string): string | undefined => {
  const day = /^(\d{4}-\d{2}-\d{2})(?:T|$)/.exec(s)?.[1]
  return day !== undefined && calendarMillis(day) === undefined ? `${day} is no such day` : undefined
}

/** `true` for a real calendar date written `YYYY-MM-DD`, else what is wrong with `s`: the schemas' words in both editions. */
export const calendarDateCheck = (s: string): true | string =>
  isCalendarDate(s) || (noSuchDay(s) ?? "expected a date written YYYY-MM-DD")

/** Whether a timestamp names its offset; one that does not is read as UTC, as `DateTime.make` reads it. */
const hasZone = /Z|[+-]\d{2}$|[+-]\d{2}:?\d{2}$|\]$/

/** A wire date read: a calendar date at midnight UTC, or an ISO 8601 timestamp; else `undefined`. */
export const wireDate = (s: string): number | undefined => {
  const midnight = calendarMillis(s)
  if (midnight !== undefined) return midnight
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s)) return undefined
  const millis = new Date(hasZone.test(s) ? s : `${s}Z`).getTime()
  return Number.isNaN(millis) ? undefined : millis
}

/** A date as the wire writes it: midnight UTC as `YYYY-MM-DD`, anything else as an ISO 8601 timestamp. */
export const wireDateText = (millis: number): string => {
  const iso = new Date(millis).toISOString()
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso
}
