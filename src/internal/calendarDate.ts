/**
 * Calendar dates written `YYYY-MM-DD`, read without Schema: `Designs` decodes four of them a design,
 * and the CLI checks `--changed-since` with them without loading the domain schemas.
 */
/** The number `s` writes in decimal digits from `from` to before `to`; -1 if another character is there. */
const digits = (s: string, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    n = n * 10 + c
  }
  return n
}

const isLeapYear = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)

/** Days in month `mo` (1 to 12) of year `y`. */
const daysIn = (y: number, mo: number): number =>
  mo === 2 ? (isLeapYear(y) ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31

/**
 * Midnight UTC of `YYYY-MM-DD` in epoch milliseconds, or `undefined` when `s` is not a real
 * calendar date in that form. Read digit by digit, with no `Date`: decoding a design reads four of
 * these. Years before 100 are refused, as `Date.UTC` would read them as 19xx.
 */
export const calendarMillis = (s: string): number | undefined => {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return undefined
  const y = digits(s, 0, 4)
  const mo = digits(s, 5, 7)
  const d = digits(s, 8, 10)
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return undefined
  return Date.UTC(y, mo - 1, d)
}

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
export const isCalendarDate = (s: string): boolean => calendarMillis(s) !== undefined
