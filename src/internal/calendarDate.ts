/**
 * Calendar dates written `YYYY-MM-DD`, read without Schema: `Designs` decodes four of them a design,
 * and the CLI checks `--changed-since` with them without loading the domain schemas.
 */
const digit = (s: string, i: number): number => s.charCodeAt(i) - 48
const digitPositions = [0, 1, 2, 3, 5, 6, 8, 9] as const

/**
 * Midnight UTC of `YYYY-MM-DD` in epoch milliseconds, or `undefined` when `s` is not a real
 * calendar date in that form. Read digit by digit: decoding a design reads four of these.
 */
export const calendarMillis = (s: string): number | undefined => {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return undefined
  for (const i of digitPositions) {
    const c = digit(s, i)
    if (c < 0 || c > 9) return undefined
  }
  const y = digit(s, 0) * 1000 + digit(s, 1) * 100 + digit(s, 2) * 10 + digit(s, 3)
  const mo = digit(s, 5) * 10 + digit(s, 6)
  const d = digit(s, 8) * 10 + digit(s, 9)
  const millis = Date.UTC(y, mo - 1, d)
  const date = new Date(millis)
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? millis : undefined
}

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export const isCalendarDate = (s: string): boolean => calendarMillis(s) !== undefined
