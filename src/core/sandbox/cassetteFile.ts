/**
 * A cassette's file (version 1, docs/cassettes.md): written one exchange per entry, checked field by
 * field when read (so that a replay never meets an answer it cannot send).
 */
import { isRecord } from "../wire/answers.js"
import { brief, droppedHeaders } from "./cassette.js"
import type { Cassette, Exchange } from "./cassette.js"
import { maxNesting, nestsWithin } from "./journal.js"

const end = "\n  ]\n}\n"
/** An exchange indented as an entry: split at "\n" alone, as `JSON.stringify` keeps U+2028 and U+2029 raw in texts. */
const entry = (exchange: Exchange) =>
  JSON.stringify(exchange, null, 2).split("\n").map((line) => `    ${line}`).join("\n")

/** A cassette's file: pretty-printed, one exchange per entry. */
export const write = (cassette: Cassette): string =>
  `{\n  "version": 1,\n  "exchanges": [\n${cassette.exchanges.map(entry).join(",\n")}${end}`

/** How a file `write` wrote comes to hold `exchange` too: the characters to cut at its end, and the text to add. */
export const appended = (exchange: Exchange) => ({ cut: end.length, text: `,\n${entry(exchange)}${end}` })

/** Why `value` is not an object of `fields` (`?` after an optional one), `at` naming it, if it is not. */
const fieldsProblem = (value: unknown, at: string, fields: ReadonlyArray<string>): string | undefined => {
  if (!isRecord(value)) return `${at}: expected an object`
  const missing = fields.find((f) => !f.endsWith("?") && !(f in value))
  const extra = Object.keys(value).find((k) => !fields.includes(k) && !fields.includes(`${k}?`))
  const of = at === "exchange" || at === "cassette" ? "" : `${at}.`
  return missing !== undefined
    ? `${of}${missing}: missing`
    : extra !== undefined
    ? `${of}${extra}: not a field a cassette has (only ${fields.join(", ").replace(/\?/g, "")})`
    : undefined
}

/** Why a recorded response header cannot be sent as it is, if it cannot. */
const headerProblem = ([name, value]: [string, unknown]): string | undefined => {
  const at = `response.headers[${JSON.stringify(name)}]`
  return !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)
    ? `${at}: expected a header name in lower case`
    : droppedHeaders.has(name)
    ? `${at}: never replayed (it belongs to one transfer, a session or a credential)`
    : typeof value !== "string" || /[^\t\x20-\x7e\x80-\xff]/.test(value)
    ? `${at}: expected a text of one line, with no control character`
    : undefined
}

/** Why `exchange` is not a request and an answer that can be sent, naming the field, if it is not. */
const exchangeProblem = (exchange: unknown): string | undefined => {
  const shape = fieldsProblem(exchange, "exchange", ["request", "response"])
  if (shape !== undefined || !isRecord(exchange)) return shape
  const { request: q, response: r } = exchange
  const shapes = fieldsProblem(q, "request", ["method", "path", "body?"]) ??
    fieldsProblem(r, "response", ["status", "headers", "body?", "text?"])
  if (shapes !== undefined || !isRecord(q) || !isRecord(r)) return shapes
  const { status } = r
  const checks: ReadonlyArray<readonly [string, boolean, string]> = [
    [
      "request.method",
      typeof q["method"] === "string" && /^[A-Z]+$/.test(q["method"]),
      `expected a method in capitals, found ${brief(q["method"])}`
    ],
    [
      "request.path",
      typeof q["path"] === "string" && /^\/\S*$/.test(q["path"]),
      `expected a path that starts with /, found ${brief(q["path"])}`
    ],
    [
      "response.status",
      Number.isInteger(status) && Number(status) >= 200 && Number(status) <= 599,
      `expected a status from 200 to 599, found ${brief(status)}`
    ],
    ["response.headers", isRecord(r["headers"]), "expected an object of header names and their texts"],
    ["response.text", r["text"] === undefined || typeof r["text"] === "string", "expected a text"],
    ["response", !("body" in r && "text" in r), "holds a body and a text: an answer has one or the other"],
    [
      "response",
      (status !== 204 && status !== 304) || !("body" in r || "text" in r),
      `a ${status} answer has no body and no text`
    ]
  ]
  const failed = checks.find(([, ok]) => !ok)
  return failed !== undefined
    ? `${failed[0]}: ${failed[2]}`
    : Object.entries(r["headers"] as object).map(headerProblem).find((p) => p !== undefined)
}

/** The cassette a file holds, or why it holds none (the exchange and the field). */
export const read = (text: string): Cassette | string => {
  let value: unknown
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""))
  } catch (e) {
    return `not JSON: ${String(e)}`
  }
  if (!nestsWithin(value)) return `nests deeper than ${maxNesting} levels`
  if (!isRecord(value) || value["version"] !== 1) return "expected a cassette: {\"version\": 1, \"exchanges\": [...]}"
  const shape = fieldsProblem(value, "cassette", ["version", "exchanges"])
  if (shape !== undefined) return shape
  if (!Array.isArray(value["exchanges"])) return "exchanges: expected a list"
  const problems = value["exchanges"].map(exchangeProblem)
  const bad = problems.findIndex((p) => p !== undefined)
  return bad < 0 ? value as unknown as Cassette : `exchange ${bad + 1}: ${problems[bad]}`
}
