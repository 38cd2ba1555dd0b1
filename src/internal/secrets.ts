/**
 * Masking the toolkit's own secrets (the client secret, the bearer token a call carried) out of
 * what a server sends back. A server may echo a request into its answer: a 503 page that shows the
 * form it got, a 500 that lists the headers. Every server-supplied text an error keeps goes through
 * a `Mask` first, so no error carries a secret, whatever the server reflects.
 */

/** What a secret is replaced with. */
export const masked = "[redacted]"

const jsonEscaped = (s: string) => JSON.stringify(s).slice(1, -1)

/**
 * A secret as a server may echo it: as sent, percent-encoded or form-encoded (with upper- or
 * lower-case hex digits); each of those as is or JSON-escaped (echoed into a JSON string), and
 * JSON-escaped once more (that string echoed into another JSON text).
 */
const formsOf = (secret: string): ReadonlyArray<string> => {
  const percent = encodeURIComponent(secret)
  const form = new URLSearchParams({ s: secret }).toString().slice(2)
  const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())
  return [secret, percent, lowerHex(percent), form, lowerHex(form)].flatMap((f) => [
    f,
    jsonEscaped(f),
    jsonEscaped(jsonEscaped(f))
  ])
}

/**
 * Replaces the toolkit's secrets in server-supplied text and JSON. Built per answer that needs it,
 * never on the path of a call that succeeds without messages.
 */
export interface Mask {
  /** `text` with every form of every secret replaced by `masked`. */
  readonly text: (text: string) => string
  /**
   * `text` as a reader sees it, masked: JSON string escapes (`\/`, `\u002B`, `\"`) and HTML's
   * character references (`&amp;`, `&#43;`) decoded first, so that a secret echoed by any JSON or
   * HTML encoder is found. For excerpts of raw bodies.
   */
  readonly readable: (text: string) => string
  /**
   * A parsed JSON value with every string (keys too) masked; depth costs no stack. It looks at
   * every string, as parsed: a secret is found however the JSON text escaped it.
   */
  readonly json: (value: unknown) => unknown
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Sets an own property, even one named `__proto__` (as `JSON.parse` makes them). */
const put = (target: object, key: string | number, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

/**
 * Copies a JSON value with `f` applied to every string and key, walking with a stack of its own:
 * a body nested a million levels deep is as safe as a flat one.
 */
const mapStrings = (value: unknown, f: (s: string) => string): unknown => {
  const copy = (v: unknown): unknown => typeof v === "string" ? f(v) : Array.isArray(v) ? [] : isRecord(v) ? {} : v
  const root = copy(value)
  const stack: Array<readonly [unknown, object]> = typeof root === "object" && root !== null ? [[value, root]] : []
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [from, to] = next
    const entries: ReadonlyArray<readonly [string | number, unknown]> = Array.isArray(from)
      ? from.map((v, i) => [i, v] as const)
      : isRecord(from)
      ? Object.entries(from)
      : []
    for (const [key, v] of entries) {
      const c = copy(v)
      put(to, typeof key === "string" ? f(key) : key, c)
      if (typeof c === "object" && c !== null) stack.push([v, c])
    }
  }
  return root
}

const jsonEscapes = /\\(["\\/bfnrt]|u[0-9a-fA-F]{4})/g
const jsonEscapeChars: Readonly<Record<string, string>> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }
const htmlReferences = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|amp|lt|gt|quot|apos);/g
const htmlNamed: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }

const fromCodePoint = (code: number): string =>
  code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : "\ufffd"

/** `text` with its JSON string escapes and HTML character references decoded, in one pass each. */
const decoded = (text: string): string =>
  text
    .replace(jsonEscapes, (_, e: string) =>
      e.startsWith("u") ? String.fromCharCode(parseInt(e.slice(1), 16)) : (jsonEscapeChars[e] ?? e))
    .replace(htmlReferences, (_, r: string) =>
      r.startsWith("#x") || r.startsWith("#X")
        ? fromCodePoint(parseInt(r.slice(2), 16))
        : r.startsWith("#")
        ? fromCodePoint(parseInt(r.slice(1), 10))
        : (htmlNamed[r] ?? r))

/** The mask of `secrets`; empty ones are ignored. */
export const maskOf = (secrets: ReadonlyArray<string>): Mask => {
  const forms = [...new Set(secrets.filter((s) => s !== "").flatMap(formsOf))]
    // longest first, so that a form never masks part of a longer one
    .sort((a, b) => b.length - a.length)
  const found = (text: string) => forms.some((form) => text.includes(form))
  const text = (s: string) => found(s) ? forms.reduce((t, form) => t.split(form).join(masked), s) : s
  // Masked before and after decoding: a form the decoding would alter is caught as it was sent.
  return { text, readable: (s) => text(decoded(text(s))), json: (value) => mapStrings(value, text) }
}

/** The mask of no secret. */
export const noMask: Mask = { text: (s) => s, readable: (s) => s, json: (v) => v }
