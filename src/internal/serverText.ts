/**
 * The one rule for text a server supplies and an error keeps (`detail`, `code`, `id`, `source.*`,
 * extension fields, `messages[]`, `error`, `errorDescription`, `excerpt`, previews in `issue`):
 * masked of the toolkit's secrets, then cut to a bound, so that no answer can make an error, a log
 * line or a terminal line carry a secret or megabytes. Run on error answers (and a success's
 * messages) only.
 */
import { mapStrings } from "./secrets.js"
import type { Mask } from "./secrets.js"

/** `text` cut to at most `length` characters, the last an ellipsis when cut. */
export const cap = (text: string, length: number): string =>
  text.length > length ? text.slice(0, length - 1) + "…" : text

/** Longest text an error keeps of one server-supplied string (a field, a key, a description). */
export const maxServerText = 1000

/** Longest excerpt of a body an error keeps. */
export const maxExcerpt = 500

/**
 * How much of a long text is read to make its kept part, as a multiple of the bound: decoding a text
 * shortens it, and a secret near the bound is masked whole only if it is read whole. More is never
 * looked at, so masking costs no more for a body of 16 MiB than for one of a few kilobytes.
 */
const readFactor = 64

const head = (text: string, length: number) =>
  text.length > length * readFactor ? text.slice(0, length * readFactor) : text

/** A server's string as an error keeps it: masked, at most `length` characters. */
export const keptText = (mask: Mask, text: string, length: number = maxServerText): string =>
  cap(mask.text(head(text, length)), length)

/** A parsed JSON value with every string and key kept as `keptText` keeps it. */
export const keptJson = (mask: Mask, value: unknown): unknown => mapStrings(value, (s) => keptText(mask, s))

/**
 * The start of a body, for error messages: its JSON and HTML escapes decoded, masked, control
 * characters folded to spaces, at most `maxExcerpt` characters.
 */
export const keptExcerpt = (mask: Mask, body: string): string => {
  // eslint-disable-next-line no-control-regex
  const folded = mask.readable(head(body, maxExcerpt)).slice(0, maxExcerpt * 2).replace(/[\u0000-\u001f\u007f]+/g, " ")
    .trim()
  return folded.length > maxExcerpt ? folded.slice(0, maxExcerpt) + "…" : folded
}
