/**
 * `design-search api`: one request through the `AuthorizedClient`, its answer's JSON on stdout
 * (indented on a terminal, one line when piped or with `--json`), a non-2xx answer told on stderr.
 */
import { HttpClientRequest } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { parseJson } from "../../core/wire/answers.js"
import { AuthorizedClient } from "../../index.js"
import { fromClientError } from "../../internal/http/send.js"
import { provideClient } from "../Client.js"
import { AnsweredError, FileError, UsageError } from "../failure.js"
import type { ApiInput } from "../inputs/api.js"
import * as Output from "../Output.js"

const utf8 = new TextDecoder("utf-8", { fatal: true })

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** What `--data` names: the text given, or the file's with `@FILE`. */
const dataText = (data: string): Effect.Effect<string, UsageError | FileError> =>
  data === "@"
    ? Effect.fail(new UsageError({ detail: "--data @ names no file: write --data @FILE" }))
    : !data.startsWith("@")
    ? Effect.succeed(data)
    : Effect.try({
      try: () => utf8.decode(readFileSync(data.slice(1))),
      catch: (e) =>
        new FileError({
          path: data.slice(1),
          detail: e instanceof TypeError && "code" in e && e.code === "ERR_ENCODING_INVALID_ENCODED_DATA"
            ? "not UTF-8 text"
            : errorText(e)
        })
    })

/** The body `--data` gives, checked to be JSON before anything is sent; a byte order mark is no part of it. */
const bodyOf = (data: string) =>
  Effect.flatMap(dataText(data), (given) => {
    const text = given.replace(/^\uFEFF/, "")
    return parseJson(text) === undefined
      ? Effect.fail(new UsageError({ detail: `--data is not JSON: ${Output.field(text.slice(0, 60))}` }))
      : Effect.succeed(text)
  })

/**
 * JSON text laid out again, every character of its strings and numbers as the server wrote them
 * (no number rounded, no key dropped or merged): on one line, or indented by two spaces.
 */
const layout = (json: string, indented: boolean): string => {
  const out: Array<string> = []
  let depth = 0
  const newline = () => (indented ? "\n" + "  ".repeat(depth) : "")
  // tokens: a whole string, an empty object or array, or one character
  for (const [token] of json.matchAll(/"[^"\\]*(?:\\.[^"\\]*)*"|\{\s*\}|\[\s*\]|[\s\S]/g)) {
    if (token === "{" || token === "[") {
      depth++
      out.push(token + newline())
    } else if (token === "}" || token === "]") {
      depth--
      out.push(newline() + token)
    } else if (token === ",") {
      out.push(token + newline())
    } else if (token === ":") {
      out.push(indented ? ": " : ":")
    } else if (token.length > 1 && token[0] !== "\"") {
      out.push(token[0] === "{" ? "{}" : "[]")
    } else if (!/^\s$/.test(token)) {
      out.push(token)
    }
  }
  return out.join("")
}

/** The answer's body as JSON, indented for people at a terminal; any other text as it is. */
const printBody = (text: string, compact: boolean) => {
  if (parseJson(text) === undefined) return text === "" ? Effect.void : Output.stdout(text)
  return compact ? Output.jsonText(layout(text, false)) : Output.stdout(layout(text, true))
}

const terminal = () => process.stdout.isTTY === true

export const handle = (args: ApiInput) =>
  Effect.gen(function*() {
    const body = yield* Effect.transposeOption(Option.map(args.data, bodyOf))
    const request = HttpClientRequest.make(args.method)(args.path)
    const client = yield* AuthorizedClient.AuthorizedClient
    const response = yield* client.execute(
      Option.match(body, {
        onNone: () => request,
        onSome: (text) => HttpClientRequest.bodyText(request, text, "application/json")
      })
    )
    if (args.include) {
      const headers = Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`)
      yield* Output.stdout([`HTTP ${response.status}`, ...headers, "", ""].join("\n"))
    }
    const text = yield* Effect.mapError(response.text, fromClientError)
    if (response.status >= 200 && response.status < 300) return yield* printBody(text, args.json || !terminal())
    // the answer's typed error, as every command tells it; the server's refusal of a request sent is exit 1
    return yield* AuthorizedClient.apiResponse(Schema.Unknown)(response).pipe(
      Effect.catchTags({
        BadRequestError: (e) => Effect.fail(new AnsweredError({ detail: e.message })),
        ValidationError: (e) => Effect.fail(new AnsweredError({ detail: e.message }))
      }),
      Effect.asVoid
    )
  }).pipe(provideClient(args))
