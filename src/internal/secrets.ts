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

/** `text` with its JSON string escapes and HTML character references decoded, in one pass each. */
const decoded = (text: string): string => htmlDecoded(jsonDecoded(text))

/** How many layers of encoding a text is read through. */
const maxLayers = 8

/**
 * `text` read layer after layer as a decoder could read it back (JSON escapes, HTML references,
 * percent escapes in any case of hex, in any order) until `holds` says a layer holds a secret, or
 * nothing changes: that layer, or `undefined`. Each layer is looked at, so a secret that reads like
 * an escape itself is found before it is decoded away.
 */
const readBack = (text: string, holds: (layer: string) => boolean): string | undefined => {
  let current = text
  for (let layer = 0; layer <= maxLayers; layer++) {
    if (holds(current)) return current
    const next = percentDecoded(decoded(current))
    if (next === current) return undefined
    current = next
  }
  return undefined
}

const replaceAll = (text: string, forms: ReadonlyArray<string>) =>
  forms.reduce((t, form) => t.includes(form) ? t.split(form).join(masked) : t, text)

/** The mask of `secrets`; empty ones are ignored. */
export const maskOf = (secrets: ReadonlyArray<string>): Mask => {
  const kept = secrets.filter((s) => s !== "")
  const forms = [...new Set(kept.flatMap(formsOf))]
    // longest first, so that a form never masks part of a longer one
    .sort((a, b) => b.length - a.length)
  // A secret as it reads once decoded; with its spaces as `+` too (form encoding).
  const plain = [...new Set(kept.flatMap((s) => [s, s.replaceAll(" ", "+")]))].sort((a, b) => b.length - a.length)
  const found = (text: string) => forms.some((form) => text.includes(form))
  /**
   * The forms listed are replaced where they stand; a text that still reads as a secret once
   * decoded (an encoding, or a mix of them, not listed) is kept as decoded, the secret masked.
   */
  const text = (s: string) => {
    const direct = found(s) ? replaceAll(s, forms) : s
    const layer = readBack(direct, (t) => plain.some((p) => t.includes(p)))
    return layer === undefined ? direct : replaceAll(layer, plain)
  }
  // Masked before and after decoding: a form the decoding would alter is caught as it was sent.
  return { text, readable: (s) => text(decoded(text(s))), json: (value) => mapStrings(value, text) }
}

/** The mask of no secret. */
export const noMask: Mask = { text: (s) => s, readable: (s) => s, json: (v) => v }
