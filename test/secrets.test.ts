/**
 * The mask of the toolkit's secrets (`core/mask/mask.ts`): no error keeps the client secret or a
 * token in any of the forms a server may echo them in (as is, percent- or form-encoded, JSON-escaped,
 * base64 of the secret, of `id:secret` or of the token, alone or inside a longer text), and no error
 * keeps megabytes of server text.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  keptExcerpt,
  keptJson,
  keptText,
  masked,
  maskOf,
  maxExcerpt,
  maxServerText,
  noMask
} from "../src/core/mask/mask.js"

/** A property checked for 100 cases of `arbitraries`. */
const prop = <T>(name: string, arbitraries: { [K in keyof T]: fc.Arbitrary<T[K]> }, check: (t: T) => void) =>
  it(name, () => fc.assert(fc.property(fc.record(arbitraries), check)))

/** Characters each encoding writes its own way: reserved in URLs and forms, escaped by JSON, non-ASCII. */
const tricky = [..."aZ09-._~!*'() /+=&%?#\"\\<>"].concat("é", "€", "😀", "\n", "\t")
const secretOf = (minLength: number) =>
  fc.array(fc.constantFrom(...tricky), { minLength, maxLength: 40 }).map((cs) => cs.join(""))

const percent = (s: string) => encodeURIComponent(s)
const form = (s: string) => new URLSearchParams({ s }).toString().slice(2)
const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())
const json = (s: string) => JSON.stringify(s).slice(1, -1)
const base64 = (s: string) => Buffer.from(s, "utf8").toString("base64")

/** Ways of writing a text in which the written secret stays a part of the written text. */
const encodings: Readonly<Record<string, (s: string) => string>> = {
  "as is": (s) => s,
  "percent-encoded": percent,
  "percent-encoded, lower-case hex": (s) => lowerHex(percent(s)),
  "percent-encoded as RFC 3986 strictly writes it (Python's quote, Go's QueryEscape)": (s) =>
    percent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase()),
  "form-encoded as PHP's urlencode writes it (* escaped)": (s) => form(s).replace(/\*/g, "%2A"),
  "form-encoded": form,
  "form-encoded, lower-case hex": (s) => lowerHex(form(s)),
  "JSON-escaped": json,
  "JSON-escaped as PHP writes it (\\/)": (s) => json(s).replace(/\//g, "\\/"),
  "JSON-escaped as Python writes it (\\u00e9)": (s) =>
    json(s).replace(/[^\x20-\x7e]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")),
  "JSON-escaped as .NET writes it (\\u002B)": (s) =>
    json(s).replace(
      /[+&<>'\u0080-\uffff]/g,
      (c) => "\\u" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")
    ),
  "percent-encoded, then JSON-escaped": (s) => json(percent(s)),
  "form-encoded, then JSON-escaped as .NET writes it": (s) => json(form(s)).replace(/\+/g, "\\u002B")
}

/** Base64 of a text, of its form encoding (a form body as sent), in either alphabet, padded or not. */
const base64Encodings: Readonly<Record<string, (s: string) => string>> = {
  base64,
  "base64 without padding": (s) => base64(s).replace(/=+$/, ""),
  "URL-safe base64": (s) => Buffer.from(s, "utf8").toString("base64url"),
  "base64 of the form encoding": (s) => base64(form(s))
}

/** Text broken into lines of `width` characters, as MIME (76, CRLF) and PEM (64, LF) write base64. */
const wrapped = (text: string, width: number, eol: string) =>
  text.replace(new RegExp(`[^]{${width}}(?=[^])`, "g"), (line) => line + eol)

/** How a base64 text is written out: on one line, wrapped in lines, inside a JSON string. */
const layouts = (width: number): Readonly<Record<string, (b64: string) => string>> => ({
  "on one line": (b64) => b64,
  "wrapped, CRLF": (b64) => wrapped(b64, width, "\r\n"),
  "wrapped, LF": (b64) => wrapped(b64, width, "\n"),
  "JSON-escaped as PHP writes it (\\/)": (b64) => json(b64).replace(/\//g, "\\/"),
  "wrapped, then JSON-escaped as .NET writes it (\\u002B)": (b64) =>
    json(wrapped(b64, width, "\r\n")).replace(/\+/g, "\\u002B")
})

/** `text` read as JSON string content (`\/`, `\u002B`, `\n`), its line breaks taken out. */
const unwrapped = (text: string) =>
  text.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\[rn]|\r|\n/g, "").replace(/\\(.)/g, "$1")

/**
 * Whether a base64 text left in `out` (however laid out), read from any of its first four
 * characters, holds `secret`.
 */
const base64Holds = (out: string, secret: string) =>
  (unwrapped(out).match(/[A-Za-z0-9+/_=-]+/g) ?? []).some((word) =>
    [0, 1, 2, 3].some((offset) => Buffer.from(word.slice(offset), "base64").includes(Buffer.from(secret, "utf8")))
  )

describe("maskOf: no secret or token is left in any form it is echoed in", () => {
  prop(
    "each form of the secret, of id:secret and of the token, inside any text, is gone",
    {
      secret: secretOf(8),
      token: secretOf(8),
      id: fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/),
      before: fc.string({ maxLength: 20 }),
      after: fc.string({ maxLength: 20 }),
      width: fc.integer({ min: 4, max: 76 })
    },
    ({ after, before, id, secret, token, width }) => {
      const mask = maskOf([secret, `${id}:${secret}`, token])
      for (const target of [secret, token, `${id}:${secret}`]) {
        for (const encode of Object.values(encodings)) {
          const out = mask.text(`got: ${encode(before + target + after)} (end)`)
          expect(out).not.toContain(encode(target))
          expect(out).toContain(masked)
        }
        for (const encode of Object.values(base64Encodings)) {
          for (const layout of Object.values(layouts(width))) {
            const out = mask.text(`got: ${layout(encode(before + target + after))} (end)`)
            const sent = encode === base64Encodings["base64 of the form encoding"] ? form(target) : target
            expect(base64Holds(out, sent)).toBe(false)
            expect(out).toContain(masked)
          }
        }
      }
    }
  )

  prop(
    "a text that holds no secret is left as it is",
    { secret: secretOf(12), token: secretOf(12), text: fc.string({ unit: "binary", maxLength: 200 }) },
    ({ secret, text, token }) => {
      expect(maskOf([secret, token]).text(text)).toBe(text)
    }
  )

  const secret = "s3cr3t/+= é&x\"y"
  const mask = maskOf([secret, `client-7:${secret}`, "tok.en~42+/=="])

  it.each([
    ["as is", `client_secret=${secret}&x=1`, "client_secret=[redacted]&x=1"],
    ["form-encoded", `client_secret=${form(secret)}&x=1`, "client_secret=[redacted]&x=1"],
    ["percent-encoded", `/token?s=${percent(secret)}`, "/token?s=[redacted]"],
    ["JSON-escaped", JSON.stringify({ detail: `bad ${secret}` }), `{"detail":"bad [redacted]"}`],
    ["JSON-escaped as .NET writes it", `{"d":"s3cr3t\\/\\u002B= \\u00E9\\u0026x\\u0022y"}`, `{"d":"[redacted]"}`],
    [
      "in an HTTP Basic header",
      `Authorization: Basic ${base64(`client-7:${secret}`)}`,
      "Authorization: Basic [redacted]"
    ],
    ["the token in base64, after Bearer", `header ${base64("Bearer tok.en~42+/==")}.`, "header [redacted]."],
    ["base64 of the form body", `body=${base64(`grant_type=x&client_secret=${form(secret)}`)}`, "body=[redacted]"]
  ])("%s", (_, text, expected) => {
    expect(mask.text(text)).toBe(expected)
  })

  it("base64 of a form body wrapped as MIME writes it, or in JSON as PHP writes it, is masked whole", () => {
    const body = base64(`grant_type=client_credentials&client_id=client-7&client_secret=${form(secret)}`)
    expect(mask.text(`dump:\r\n${wrapped(body, 76, "\r\n")}\r\n(end)`)).toBe("dump:\r\n[redacted]\r\n(end)")
    const php = "k?Lm>Q?z>W?p>R?t>Y?v" // its base64 holds `/`, which PHP's json_encode writes `\/`
    const page = JSON.stringify({ debug: base64(`client_secret=${php}`) }).replace(/\//g, "\\/")
    expect(maskOf([php]).text(page)).toBe(`{"debug":"${masked}"}`)
  })

  it("leaves other text as it is: escapes, other base64, a secret with a character missing", () => {
    const text = `{"a":"\\u00e9\\/x %2F%2b"} ${base64("something else, no secret here")} ${secret.slice(0, -1)}`
    expect(mask.text(text)).toBe(text)
    expect(maskOf([""]).text(secret)).toBe(secret)
    expect(noMask.text(secret)).toBe(secret)
  })

  it("takes a token of hundreds of kilobytes, or with a lone surrogate, without failing", () => {
    const huge = "A".repeat(200_000) + "\ud800"
    expect(maskOf([huge]).text(`x ${huge} ${JSON.stringify(huge)} y`)).toBe(`x ${masked} "${masked}" y`)
  })
})

describe("what an error keeps of server text", () => {
  const secret = "Zq9!Secret#Value"
  const mask = maskOf([secret])

  it("a string of megabytes is kept to its bound, masked", () => {
    const kept = keptText(mask, `${secret} ${"d".repeat(10_000_000)}`)
    expect(kept.length).toBeLessThanOrEqual(maxServerText)
    expect(kept.startsWith(`${masked} ddd`)).toBe(true)
    expect(kept.endsWith("…")).toBe(true)
    expect(keptText(mask, "short")).toBe("short")
  })

  prop(
    "a secret the bound cuts through is not kept in part",
    { lead: fc.nat({ max: 600 }), length: fc.integer({ min: 5, max: 200 }) },
    ({ lead, length }) => {
      const kept = keptText(mask, ".".repeat(lead) + secret.repeat(50_000), length)
      expect(kept.length).toBeLessThanOrEqual(length)
      expect(kept.replaceAll(masked, "")).not.toMatch(/Zq|q9|Secret|Value/)
    }
  )

  it("an excerpt is masked, its control characters folded to spaces, and bounded", () => {
    expect(keptExcerpt(mask, `\r\n{"error":"${secret}"}\r\n\t\u0000end\n`)).toBe(`{"error":"${masked}"} end`)
    const long = keptExcerpt(mask, "x\n".repeat(5_000_000))
    expect(long.length).toBeLessThanOrEqual(maxExcerpt)
    expect(long.startsWith("x x x")).toBe(true)
  })

  it("every string and key of parsed JSON is masked and bounded, the rest kept as it was", () => {
    const value = JSON.parse(
      `{"n":1,"t":true,"z":null,"list":["${secret}",{"${secret}":"x ${secret} y","deep":[["${
        "w".repeat(5000)
      }"]]}],"__proto__":"kept as a key"}`
    )
    const kept = keptJson(mask, value)
    expect(kept).toEqual({
      n: 1,
      t: true,
      z: null,
      list: [masked, { [masked]: `x ${masked} y`, deep: [["w".repeat(maxServerText - 1) + "…"]] }],
      ["__proto__"]: "kept as a key"
    })
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype)
    expect(Object.keys(kept as object)).toContain("__proto__")
  })
})
