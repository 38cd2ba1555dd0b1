/**
 * The mask of the toolkit's secrets (`internal/secrets.ts`): every form a server may echo a secret
 * in, in text and in parsed JSON at any depth, with nothing else changed.
 */
import { describe, expect, it } from "@effect/vitest"
import { masked, maskOf, minBase64Run, noMask } from "../src/internal/secrets.js"

const secret = "a/b+c= d&é\"e"
const mask = maskOf([secret, "", "tok.en"])

describe("maskOf", () => {
  it.each([
    ["as sent", secret],
    ["percent-encoded", encodeURIComponent(secret)],
    [
      "percent-encoded with lower-case hex",
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())
    ],
    ["form-encoded", new URLSearchParams({ s: secret }).toString().slice(2)],
    ["JSON-escaped", JSON.stringify(secret).slice(1, -1)],
    ["JSON-escaped twice", JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1)],
    ["percent-encoded, then JSON-escaped", JSON.stringify(encodeURIComponent(secret)).slice(1, -1)]
  ])("masks the secret %s, in text", (_, form) => {
    expect(mask.text(`before ${form} after ${form}`)).toBe(`before ${masked} after ${masked}`)
  })

  it.each([
    ["HTML-escaped", secret.replace(/&/g, "&amp;").replace(/\+/g, "&#43;").replace(/"/g, "&quot;")],
    ["percent-encoded with / left as is", encodeURIComponent(secret).replace(/%2F/g, "/")],
    ["percent-encoded with mixed-case hex", encodeURIComponent(secret).replace(/%2B/g, "%2b")],
    ["percent-encoded twice", encodeURIComponent(encodeURIComponent(secret))],
    ["form-encoded, then HTML-escaped", new URLSearchParams({ s: secret }).toString().slice(2).replace(/%/g, "&#37;")]
  ])("reads back a secret %s and keeps the text decoded with it masked", (_, form) => {
    expect(mask.text(`client_secret=${form}`)).toBe(`client_secret=${masked}`)
  })

  it("leaves a text without a secret as it is, and an empty secret masks nothing", () => {
    const text = "nothing to see: a/b c= tok en"
    expect(mask.text(text)).toBe(text)
    expect(maskOf([""]).text(text)).toBe(text)
    expect(noMask.text(secret)).toBe(secret)
  })

  it("masks every string and key of parsed JSON, keeping the rest as it was", () => {
    const value = JSON.parse(
      `{"n":1,"t":true,"z":null,"list":[${JSON.stringify(secret)},{${
        JSON.stringify(secret)
      }:"tok.en","deep":[["x tok.en y"]]}],"__proto__":"kept as a key"}`
    )
    const result = mask.json(value)
    expect(JSON.stringify(result)).toBe(
      `{"n":1,"t":true,"z":null,"list":["${masked}",{"${masked}":"${masked}","deep":[["x ${masked} y"]]}],"__proto__":"kept as a key"}`
    )
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
    expect(Object.keys(result as object)).toContain("__proto__")
  })

  it("walks JSON nested a million levels deep without using the stack", () => {
    const depth = 1_000_000
    const value: unknown = JSON.parse("[".repeat(depth) + JSON.stringify(secret) + "]".repeat(depth))
    let inner = mask.json(value)
    for (let i = 0; i < depth; i++) inner = (inner as ReadonlyArray<unknown>)[0]
    expect(inner).toBe(masked)
  })

  describe("base64 of a text that holds a secret", () => {
    const strong = "Sup3rS3cretValue42"
    const m = maskOf([strong, secret])
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: "cid", client_secret: strong })
      .toString()
    const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
    /** What no masked text may hold: the secret, and any base64 text long enough to hold part of it. */
    const expectMasked = (out: string) => {
      expect(out).not.toContain(strong)
      expect(out).toContain(masked)
      expect(out.replace(/\s+/g, "")).not.toMatch(/[A-Za-z0-9+/_-]{12,}/)
    }

    it.each([0, 1, 2, 3, 4, 5])("at byte offset %i (each alignment), padded or not", (offset) => {
      const text = "x".repeat(offset) + strong + "yz".slice(0, offset % 3)
      expectMasked(m.text(`body: ${b64(text)} end`))
      expectMasked(m.text(`body: ${b64(text).replace(/=+$/, "")} end`))
    })

    it.each([
      ["URL-safe, unpadded", Buffer.from(form).toString("base64url")],
      ["a form body in a JSON field", JSON.stringify({ error: "upstream", requestBody: b64(form) })],
      ["an HTTP Basic header", `Basic ${b64(`cid:${strong}`)}`],
      ["MIME-wrapped at 76 characters with CRLF", b64(form.repeat(3)).replace(/(.{76})/g, "$1\r\n")],
      [
        "wrapped at 64 characters with LF and indented (PEM, folded headers)",
        b64(form.repeat(3)).replace(/(.{64})/g, "$1\n  ")
      ],
      ["percent-encoded", encodeURIComponent(b64(`?${form}`))],
      ["JSON-escaped as PHP writes it", b64(`??${form}`).replace(/\//g, "\\/")],
      ["of the secret's UTF-8 bytes (non-ASCII)", b64(`[${secret}]`)],
      ["of the secret form-encoded (non-ASCII)", b64(new URLSearchParams({ client_secret: secret }).toString())]
    ])("%s", (_, text) => {
      const out = m.text(`before ${text} after`)
      expectMasked(out)
      expect(out).not.toContain(secret)
      expect(out.startsWith("before ")).toBe(true)
    })

    it("masks the base64 text whole, leaving no decodable part of what surrounds the secret", () => {
      const encoded = b64(`${"lead ".repeat(20)}${strong}${" trail".repeat(20)}`)
      expect(m.text(`"${encoded}"`)).toBe(`"${masked}"`)
    })

    it(`looks for no base64 of a secret under 8 bytes: a run of fewer than ${minBase64Run} characters would match by chance`, () => {
      const short = maskOf(["s3cr3t"])
      const text = `token ${b64("s3cr3t")} and ${b64("my s3cr3t!")}`
      expect(short.text(text)).toBe(text)
      expect(short.text("s3cr3t")).toBe(masked)
      expectMasked(maskOf(["s3cr3t12"]).text(b64("xs3cr3t12")))
    })

    it("leaves other base64 alone", () => {
      const text = `id ${b64("something else entirely, no secret here")} ${b64("Sup3rS3cretValu")}`
      expect(m.text(text)).toBe(text)
    })
  })

  it.each([
    ["wrapped with LF", (s: string) => s.replace(/(.{5})/g, "$1\n")],
    ["wrapped with CRLF", (s: string) => s.replace(/(.{4})/g, "$1\r\n")],
    ["split by spaces and tabs", (s: string) => s.replace(/(.{3})/g, "$1 \t ")],
    [
      "form-encoded, then wrapped inside its escapes",
      (s: string) => new URLSearchParams({ s }).toString().slice(2).replace(/(.{3})/g, "$1\n")
    ],
    ["wrapped, then JSON-escaped", (s: string) => JSON.stringify(s.replace(/(.{3})/g, "$1\n")).slice(1, -1)],
    [
      "percent-encoded, wrapped inside its escapes, then JSON-escaped",
      (s: string) => JSON.stringify(encodeURIComponent(s).replace(/(.{2})/g, "$1\r\n")).slice(1, -1)
    ],
    [
      "HTML-escaped, wrapped inside its references, then JSON-escaped",
      (s: string) =>
        JSON.stringify(s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/(.{2})/g, "$1\n")).slice(1, -1)
    ],
    [
      "HTML-escaped, then wrapped inside its references",
      (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/(.{2})/g, "$1\n")
    ]
  ])("masks a secret %s", (_, encode) => {
    const out = mask.text(`client_secret: ${encode(secret)} (end)`)
    expect(out).toContain(masked)
    for (const reading of [out, out.replace(/\s+/g, "")]) {
      expect(reading).not.toContain(secret.replace(/\s+/g, ""))
      expect(reading).not.toContain("d&")
    }
  })

  it.each([
    ["with =XX escapes", "a/b+c=3D d&=C3=A9\"e"],
    ["with soft line breaks (=LF)", "a/b+=\nc=3D d&=C3=\n=A9\"e"],
    ["with soft line breaks (=CRLF), in a form", "s=3Da%2Fb%2Bc%3D+d%26=\r\n%C3%A9%22e"]
  ])("reads back quoted-printable %s", (_, text) => {
    const out = mask.text(`body: ${text}`)
    expect(out).toContain(masked)
    expect(out).not.toContain("d&")
    expect(out).not.toContain("=C3=A9")
  })

  it.each([
    ["Latin-1", (s: string) => Buffer.from(s, "utf8").toString("latin1")],
    ["Windows-1252", (s: string) => Buffer.from(s, "utf8").toString("latin1").replace("\u0099", "\u2122")],
    ["Latin-1, then percent-encoded", (s: string) => encodeURIComponent(Buffer.from(s, "utf8").toString("latin1"))]
  ])("masks the mojibake of a non-ASCII secret, its UTF-8 read as %s", (_, misread) => {
    const nonAscii = "pässwörd™-42"
    expect(maskOf([nonAscii]).text(`got ${misread(nonAscii)} here`)).toBe(`got ${masked} here`)
  })
})
