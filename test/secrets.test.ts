/**
 * The mask of the toolkit's secrets (`internal/secrets.ts`): every form a server may echo a secret
 * in, in text and in parsed JSON at any depth, with nothing else changed.
 */
import { describe, expect, it } from "@effect/vitest"
import { masked, maskOf, noMask } from "../src/internal/secrets.js"

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
})
