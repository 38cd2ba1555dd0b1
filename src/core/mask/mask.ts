/**
 * The mask of the toolkit's secrets, and the bounds of the server text an error keeps. A server may
 * echo a request into its answer (a 503 page that shows the form it got, a 500 that lists the
 * headers), so every server-supplied text an error or a success's messages keep (`detail`, `code`,
 * `source.*`, extension fields, `error`, `errorDescription`, `excerpt`, previews in `issue`) is
 * masked of the client secret and the token, then cut to a bound: no answer can make an error, a
 * log line or a terminal line carry a secret or megabytes. The forms masked: docs/errors.md.
 */

/** What a secret is replaced with. */
export const masked = "[redacted]"

/** Replaces the toolkit's secrets in server-supplied text. */
export interface Mask {
  /** `text` with every form of every secret replaced by `masked`. */
  readonly text: (text: string) => string
  /** The most characters one masked form spans: a text cut to a bound may end in part of one. */
  readonly reach: number
  /** Whether `name` holds a form of a secret in any case: HTTP lower-cases a header's name. */
  readonly inName: (name: string) => boolean
}

/** The mask of no secret. */
export const noMask: Mask = { text: (s) => s, reach: 0, inName: () => false }

const utf8 = new TextEncoder()

const hexByte = (b: number) => "%" + b.toString(16).toUpperCase().padStart(2, "0")

/**
 * Percent-encoded, every character but `kept` escaped; a lone surrogate is U+FFFD rather than an
 * exception. `encodeURIComponent` keeps `!'()*` too; RFC 3986's strict form (Python's `quote`, Go's
 * `QueryEscape`, PHP's `urlencode`) escapes them.
 */
const percentEncoded = (s: string, kept: RegExp) =>
  s.replace(kept, (run) => Array.from(utf8.encode(run), hexByte).join(""))

/** As `encodeURIComponent`, which throws on a lone surrogate. */
const uriEncoded = (s: string) => percentEncoded(s, /[^A-Za-z0-9\-_.!~*'()]+/g)

const formEncoded = (s: string) => new URLSearchParams({ s }).toString().slice(2)

/** A secret as sent or echoed: as is, percent- or form-encoded, with upper- or lower-case hex digits. */
const formsOf = (s: string): ReadonlyArray<string> => {
  const encoded = [
    uriEncoded(s),
    percentEncoded(s, /[^A-Za-z0-9\-_.~]+/g),
    formEncoded(s),
    formEncoded(s).replace(/[!'()*~]/g, (c) => hexByte(c.charCodeAt(0)))
  ]
  return [s, ...encoded, ...encoded.map((e) => e.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()))]
}

/** A JSON string escape as any encoder writes one (`\u00e9`, `\u002B`, `\"`, `\/`), or a character. */
const escapeOrChar = /\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])|[\s\S]/g

/**
 * The shortest run of base64 characters looked for. A text holds a given run of 10 by chance once
 * in 64^10 (about 10^18) places; the base64 of a form under 8 bytes is not looked for.
 */
const minBase64Run = 10

/**
 * What any base64 text holding `text` holds, whatever the bytes around it: for each of the three
 * alignments, the characters that depend on `text`'s bytes only.
 */
const base64Runs = (text: string): ReadonlyArray<string> => {
  const bytes = Array.from(utf8.encode(text), (b) => String.fromCharCode(b)).join("")
  return [0, 1, 2].flatMap((offset) => {
    const run = btoa("\0".repeat(offset) + bytes).slice(
      Math.ceil((offset * 4) / 3),
      Math.floor(((offset + bytes.length) * 4) / 3)
    )
    return run.length >= minBase64Run ? [run] : []
  })
}

/**
 * A text of base64 characters (either alphabet), wrapped in lines or not (RFC 2045 breaks a line
 * every 76), with its padding: a base64 echo is masked whole.
 */
const base64Text = /[A-Za-z0-9+/_-]+(?:\r?\n[A-Za-z0-9+/_-]+)*={0,2}/g

/**
 * `text` with every form and every base64 text holding a secret (`holdsRun`) found in its JSON
 * reading (each escape read as the character it stands for: `\/`, `\u002B`, `\n`) replaced, escapes
 * and all: a secret is found however a JSON encoder escaped it, and the rest is kept as written.
 */
const maskEscaped = (text: string, forms: ReadonlyArray<string>, holdsRun: (b64: string) => boolean): string => {
  const written: Array<string> = text.match(escapeOrChar) ?? []
  const reading = written.map((w) => w.length === 1 ? w : String(JSON.parse(`"${w}"`))).join("")
  const hide = (i: number, length: number) => {
    written.fill("", i, i + length)[i] = masked
  }
  for (const form of forms) {
    for (let i = reading.indexOf(form); i !== -1; i = reading.indexOf(form, i + form.length)) hide(i, form.length)
  }
  for (const b64 of reading.matchAll(base64Text)) if (holdsRun(b64[0])) hide(b64.index, b64[0].length)
  return written.join("")
}

/**
 * `text` with `mask` applied to each stretch within `reach` characters of a backslash, and the rest
 * as it is: a form a JSON encoder escaped spans at most `reach` characters around one of its
 * escapes, and the escaped reading of a stretch costs an array entry a character.
 */
const aroundEscapes = (text: string, reach: number, mask: (part: string) => string): string => {
  let out = ""
  let done = 0
  for (let at = text.indexOf("\\"); at !== -1;) {
    const from = Math.max(done, at - reach)
    let to = at + reach
    for (let next = text.indexOf("\\", at + 1); next !== -1 && next <= to; next = text.indexOf("\\", next + 1)) {
      to = next + reach
    }
    out += text.slice(done, from) + mask(text.slice(from, to))
    done = Math.min(text.length, to)
    at = text.indexOf("\\", done)
  }
  return done === 0 ? text : out + text.slice(done)
}

/**
 * The mask of `secrets` (empty ones are ignored), each in every form it may be sent or echoed in:
 * as is, percent- or form-encoded (once or twice), JSON-escaped, and in base64 (of it or of its form encoding,
 * alone or inside a longer text: `Bearer` and a token, a form body; on one line or wrapped, JSON-
 * escaped or not). For the base64 of `id:secret` (HTTP Basic) to be found whole, however short the
 * secret, pass `id:secret` too. Built on an error path, once per token.
 */
export const maskOf = (secrets: ReadonlyArray<string>): Mask => {
  // each secret once encoded too, so that its forms cover it encoded twice (a form reflected in a URL)
  const given = [...new Set(secrets.filter((s) => s !== "").flatMap((s) => [s, uriEncoded(s), formEncoded(s)]))]
  if (given.length === 0) return noMask
  const forms = [...new Set(given.flatMap(formsOf))].sort((a, b) => b.length - a.length)
  const runs = [...new Set(given.flatMap((s) => [s, formEncoded(s)]).flatMap(base64Runs))]
  const holdsRun = (b64: string) => {
    const standard = b64.replace(/\r?\n/g, "").replace(/-/g, "+").replace(/_/g, "/")
    return runs.some((run) => standard.includes(run))
  }
  const plain = (text: string) =>
    forms.reduce(
      (out, form) => out.replaceAll(form, masked),
      runs.length === 0 ? text : text.replace(base64Text, (b64) => holdsRun(b64) ? masked : b64)
    )
  const folded = [...forms, ...runs].map((form) => form.toLowerCase())
  // A form with each of its characters escaped (`\u0025`). Its base64 is shorter, wrapped and
  // escaped too: 4 characters for 3 bytes, a line break in 76, of ASCII at most 1 in 4 a `+` or `/`.
  const reach = 6 * (forms[0]?.length ?? 0) + 4
  return {
    text: (text) => aroundEscapes(plain(text), reach, (part) => maskEscaped(part, forms, holdsRun)),
    inName: (name) => {
      const lower = name.toLowerCase()
      return folded.some((form) => lower.includes(form))
    },
    reach
  }
}

/** `text` cut to at most `length` characters, the last an ellipsis when cut. */
export const cap = (text: string, length: number): string =>
  text.length > length ? text.slice(0, length - 1) + "…" : text

/** Longest text an error keeps of one server-supplied string (a field, a key, a description). */
export const maxServerText = 1000

/** Longest excerpt of a body an error keeps. */
export const maxExcerpt = 500

/**
 * A server's string as an error keeps it: masked, at most `length` characters. Only the first
 * `length + mask.reach` characters are read, so a text of megabytes costs what a short one does;
 * when it goes on, the end of what was read (where part of a secret may be cut) is dropped.
 */
export const keptText = (mask: Mask, text: string, length: number = maxServerText): string => {
  const read = length + mask.reach
  if (text.length <= read) return cap(mask.text(text), length)
  const head = mask.text(text.slice(0, read))
  return head.slice(0, Math.max(0, Math.min(length - 1, head.length - mask.reach))) + "…"
}

/**
 * A parsed JSON value with every string and key kept as `keptText` keeps it. Recursive: callers
 * pass only values that nest within bounds (`answers.ts`, `maxNesting`).
 */
export const keptJson = (mask: Mask, value: unknown): unknown =>
  typeof value === "string"
    ? keptText(mask, value)
    : Array.isArray(value)
    ? value.map((v) => keptJson(mask, v))
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [keptText(mask, k), keptJson(mask, v)]))
    : value

/** The start of a body, for error messages: masked, control characters folded to spaces, bounded. */
export const keptExcerpt = (mask: Mask, body: string): string =>
  // eslint-disable-next-line no-control-regex
  cap(keptText(mask, body, 2 * maxExcerpt).replace(/[\u0000-\u001f\u007f]+/g, " ").trim(), maxExcerpt)
