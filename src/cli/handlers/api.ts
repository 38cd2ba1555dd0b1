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

/** The body `--data` gives, checked to be JSON before anything is sent. */
const bodyOf = (data: string) =>
  Effect.flatMap(
    data.startsWith("@")
      ? Effect.try({
        try: () => readFileSync(data.slice(1), "utf8"),
        catch: (e) => new FileError({ path: data.slice(1), detail: e instanceof Error ? e.message : String(e) })
      })
      : Effect.succeed(data),
    (text) =>
      parseJson(text) === undefined
        ? Effect.fail(new UsageError({ detail: `--data is not JSON: ${Output.field(text.slice(0, 60))}` }))
        : Effect.succeed(text)
  )

/** The answer's body as JSON, indented for people at a terminal; any other text as it is. */
const printBody = (text: string, compact: boolean) => {
  const json = parseJson(text)
  if (json === undefined) return text === "" ? Effect.void : Output.stdout(text)
  return compact ? Output.json(json.json) : Output.stdout(JSON.stringify(json.json, null, 2))
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
