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
 * lower-case hex digits), or encoded twice; each of those as is or JSON-escaped (echoed into a JSON string), and
 * JSON-escaped once more (that string echoed into another JSON text).
 */
const formsOf = (secret: string): ReadonlyArray<string> => {
  const percent = encodeURIComponent(secret)
  const form = new URLSearchParams({ s: secret }).toString().slice(2)
  const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())
  // Encoded again, as a form body put in a URL is: read back as text, but base64 is looked for of forms.
  const formOf = (s: string) => new URLSearchParams({ s }).toString().slice(2)
  const twice = [percent, form].flatMap((f) => [encodeURIComponent(f), formOf(f)])
  return [secret, percent, lowerHex(percent), form, lowerHex(form), ...twice].flatMap((f) => [
    f,
    jsonEscaped(f),
    jsonEscaped(jsonEscaped(f))
  ])
}

const utf8 = new TextEncoder()

/** What Windows-1252 reads bytes 0x80 to 0x9F as (the rest of its bytes read as in Latin-1). */
const windows1252High = "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d" +
  "\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d" +
  "\u017e\u0178"

/**
 * A secret and its mojibake: its UTF-8 bytes read back as Latin-1 or as Windows-1252, as a server
 * that guesses the wrong charset echoes a non-ASCII secret.
 */
const variantsOf = (secret: string): ReadonlyArray<string> => {
  const bytes = [...utf8.encode(secret)]
  const latin1 = bytes.map((b) => String.fromCharCode(b)).join("")
  const windows1252 = bytes.map((b) => b >= 0x80 && b <= 0x9f ? windows1252High[b - 0x80] : String.fromCharCode(b))
    .join("")
  return [...new Set([secret, latin1, windows1252])]
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/**
 * A pattern of `form` that also finds it split by whitespace or line breaks anywhere, as a page
 * that wraps lines or a `<pre>` of fixed width shows it. Whitespace of the form itself may be
 * there or not.
 */
const spreadPattern = (form: string): string => [...form.replace(/\s+/g, "")].map((c) => escapeRegExp(c)).join("\\s*")

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

const base64Of = (bytes: ReadonlyArray<number>): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0)
    for (let j = 0; j < 4; j++) out += base64Alphabet[(n >> (18 - 6 * j)) & 63]
  }
  return out
}

/**
 * The shortest run of base64 characters looked for. A text holds a given run of 10 by chance once
 * in 64^10 (about 10^18) places; shorter runs (forms of fewer than 8 bytes) would mask harmless
 * text, so the base64 of so short a secret is not looked for.
 */
export const minBase64Run = 10

/**
 * The runs of base64 characters that any base64 text holding `form` (at any byte offset) holds:
 * for each of the three alignments, the characters of the encoding that depend on the form's bytes
 * only, not on its neighbours'. Runs shorter than `minBase64Run` are left out.
 */
const base64RunsOf = (form: string): ReadonlyArray<string> => {
  const bytes = [...utf8.encode(form)]
  return [0, 1, 2].flatMap((offset) => {
    const length = offset + bytes.length
    const run = base64Of([...Array<number>(offset).fill(0), ...bytes]).slice(
      Math.ceil((8 * offset) / 6),
      Math.floor((8 * length) / 6)
    )
    return run.length >= minBase64Run ? [run] : []
  })
}

/** A pattern of a base64 run in either alphabet (standard, URL-safe), wrapped at any width. */
const base64Pattern = (run: string): string =>
  [...run].map((c) => c === "+" ? "[+-]" : c === "/" ? "[/_]" : c).join("\\s*")

const isBase64Char = (c: string | undefined) => c !== undefined && /[A-Za-z0-9+/=_-]/.test(c)

/**
 * Where the base64 text around `[start, end)` begins and ends: characters of either alphabet and
 * padding, across line breaks (as MIME and PEM wrap it), so that no decodable part is left.
 */
const base64Span = (text: string, start: number, end: number): readonly [number, number] => {
  let from = start
  for (;;) {
    if (isBase64Char(text[from - 1])) from--
    else {
      const gap = /[ \t]*(?:\r\n|\n|\r)[ \t]*$/.exec(text.slice(Math.max(0, from - 8), from))
      if (gap === null || !isBase64Char(text[from - gap[0].length - 1])) break
      from -= gap[0].length
    }
  }
  let to = end
  for (;;) {
    if (isBase64Char(text[to])) to++
    else {
      const gap = /^[ \t]*(?:\r\n|\n|\r)[ \t]*/.exec(text.slice(to, to + 8))
      if (gap === null || !isBase64Char(text[to + gap[0].length])) break
      to += gap[0].length
    }
  }
  return [from, to]
}

/** `text` with every base64 text that `runs` finds in it replaced, whole, by `masked`. */
const maskBase64 = (text: string, runs: RegExp | undefined): string => {
  if (runs === undefined) return text
  let out = ""
  let last = 0
  runs.lastIndex = 0
  for (let match = runs.exec(text); match !== null; match = runs.exec(text)) {
    const [from, to] = base64Span(text, match.index, match.index + match[0].length)
    // each span is a whole base64 text, and the search goes on after it: spans never overlap
    out += text.slice(last, from) + masked
    last = to
    runs.lastIndex = Math.max(runs.lastIndex, to)
  }
  return last === 0 ? text : out + text.slice(last)
}

/**
 * Replaces the toolkit's secrets in server-supplied text and JSON. Built per answer that needs it,
 * never on the path of a call that succeeds without messages.
 */
export interface Mask {
  /**
   * `text` with every listed form of every secret replaced by `masked`; a text that reads as a
   * secret only once decoded (an encoding no list holds) is given decoded, the secret masked.
   */
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
export const mapStrings = (value: unknown, f: (s: string) => string): unknown => {
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
const htmlReferences = /&(?:#([0-9]{1,7});?|#[xX]([0-9a-fA-F]{1,6});?|([a-zA-Z]{2,8});)/g
/** The named references of ASCII characters an encoder may write, and the space. */
const htmlNamed: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: "\"",
  apos: "'",
  plus: "+",
  sol: "/",
  bsol: "\\",
  equals: "=",
  quest: "?",
  num: "#",
  percnt: "%",
  excl: "!",
  colon: ":",
  semi: ";",
  comma: ",",
  period: ".",
  lowbar: "_",
  tilde: "~",
  Hat: "^",
  grave: "`",
  lpar: "(",
  rpar: ")",
  ast: "*",
  commat: "@",
  dollar: "$",
  lsqb: "[",
  rsqb: "]",
  lcub: "{",
  rcub: "}",
  verbar: "|",
  nbsp: " "
}
const percentRuns = /(?:%[0-9a-fA-F]{2})+/g

const fromCodePoint = (code: number): string =>
  code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : "\ufffd"

const jsonDecoded = (text: string): string =>
  text.replace(
    jsonEscapes,
    (_, e: string) => e.startsWith("u") ? String.fromCharCode(parseInt(e.slice(1), 16)) : (jsonEscapeChars[e] ?? e)
  )

const htmlDecoded = (text: string): string =>
  text.replace(
    htmlReferences,
    (reference: string, decimal?: string, hex?: string, name?: string) =>
      decimal !== undefined
        ? fromCodePoint(parseInt(decimal, 10))
        : hex !== undefined
        ? fromCodePoint(parseInt(hex, 16))
        : (htmlNamed[name ?? ""] ?? htmlNamed[(name ?? "").toLowerCase()] ?? reference)
  )

/** A run of percent escapes as UTF-8, or byte by byte (Latin-1) when it is no UTF-8. */
const percentDecoded = (text: string): string =>
  text.replace(percentRuns, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    }
  })

const qpRuns = /(?:=[0-9a-fA-F]{2})+/g

/**
 * Quoted-printable (RFC 2045) read back: soft line breaks (`=` at the end of a line) dropped, runs
 * of `=XX` read as UTF-8, or byte by byte (Latin-1) when they are no UTF-8.
 */
const quotedPrintableDecoded = (text: string): string =>
  text.replace(/=\r?\n/g, "").replace(qpRuns, (run) => percentDecoded(run.replaceAll("=", "%")))

/** `text` with its JSON string escapes and HTML character references decoded, in one pass each. */
const decoded = (text: string): string => htmlDecoded(jsonDecoded(text))

/** How many layers of encoding a text is read through. */
const maxLayers = 8

/** How a text is read back: quoted-printable as one more layer, whitespace taken out of each. */
interface Reading {
  readonly quotedPrintable: boolean
  readonly unwrap: boolean
}

/**
 * `text` read layer after layer as a decoder could read it back (JSON escapes, HTML references,
 * percent escapes in any case of hex, and quoted-printable if `reading` says so, in any order)
 * until `holds` says a layer holds a secret, or nothing changes: that layer, or `undefined`. Each
 * layer is looked at, so a secret that reads like an escape itself is found before it is decoded
 * away. Quoted-printable is a reading of its own: read into every text it would take the `=` of
 * `c=\n` away. With `unwrap`, each layer has its whitespace taken out first: an escape split by a
 * line break (`%2\nF`, `&am\np;`) reads as one.
 */
const readBack = (text: string, holds: (layer: string) => boolean, reading: Reading): string | undefined => {
  let current = text
  for (let layer = 0; layer <= maxLayers; layer++) {
    if (reading.unwrap) current = current.replace(/\s+/g, "")
    if (holds(current)) return current
    const once = percentDecoded(decoded(current))
    const next = reading.quotedPrintable ? quotedPrintableDecoded(once) : once
    if (next === current) return undefined
    current = next
  }
  return undefined
}

/**
 * The readings a text is given, in turn, the one that changes the least first. Each stops at the
 * first layer that nothing decodes, so a text with no escape costs a few searches.
 */
const readings: ReadonlyArray<Reading> = [
  { quotedPrintable: false, unwrap: false },
  { quotedPrintable: true, unwrap: false },
  { quotedPrintable: false, unwrap: true },
  { quotedPrintable: true, unwrap: true }
]

/** A global pattern of any of `patterns`, or none for no pattern. */
const anyOf = (patterns: ReadonlyArray<string>): RegExp | undefined =>
  patterns.length === 0 ? undefined : new RegExp(patterns.map((p) => `(?:${p})`).join("|"), "g")

const found = (re: RegExp | undefined, text: string): boolean => {
  if (re === undefined) return false
  re.lastIndex = 0
  return re.test(text)
}

/** The mask of `secrets`; empty ones are ignored. Built on an error path, once per token. */
export const maskOf = (secrets: ReadonlyArray<string>): Mask => {
  const variants = [...new Set(secrets.filter((s) => s !== "").flatMap(variantsOf))]
  const forms = [...new Set(variants.flatMap(formsOf))]
  // A secret as it reads once decoded; with its spaces as `+` too (form encoding).
  const plain = variants.flatMap((s) => [s, s.replaceAll(" ", "+")])
  // Each form, also split by whitespace anywhere: longest first, so that a form never masks part of
  // a longer one.
  const spread = [...new Set([...forms, ...plain].map(spreadPattern))].filter((p) => p !== "")
    .sort((a, b) => b.length - a.length)
  const spreadEach = spread.map((p) => new RegExp(p, "g"))
  // The base64 of any text holding a form, at any offset, in either alphabet, wrapped or not.
  const base64Runs = [...new Set(forms.flatMap(base64RunsOf))].map(base64Pattern)
  const base64 = anyOf(base64Runs)
  // One pattern to tell whether a text holds anything to mask: one search per text and layer.
  const any = anyOf([...spread, ...base64Runs])
  const holds = (t: string) => found(any, t)
  const replace = (t: string) =>
    found(any, t) ? spreadEach.reduce((out, re) => out.replace(re, masked), maskBase64(t, base64)) : t
  /**
   * The forms are replaced where they stand (split or not, in base64 or not); a text that still
   * reads as a secret once decoded (an encoding, or a mix of them, not listed) is kept as decoded,
   * the secret masked: with its whitespace if that is enough, without it if not.
   */
  const text = (s: string) => {
    const direct = replace(s)
    let layer: string | undefined
    for (const reading of readings) {
      layer = readBack(direct, holds, reading)
      if (layer !== undefined) break
    }
    return layer === undefined ? direct : replace(layer)
  }
  // Masked before and after decoding: a form the decoding would alter is caught as it was sent.
  return { text, readable: (s) => text(decoded(text(s))), json: (value) => mapStrings(value, text) }
}

/** The mask of no secret. */
export const noMask: Mask = { text: (s) => s, readable: (s) => s, json: (v) => v }
