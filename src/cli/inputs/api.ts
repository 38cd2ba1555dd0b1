/** `design-search api`, declared: a request by hand to any API of the family, as `gh api` makes one. */
import { Option } from "effect"
import type { Input, Parser } from "../CommandLine.js"
import { flag, optional, requiredArgumentOf, text } from "../CommandLine.js"
import { service } from "../Inputs.js"

const methods = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const

/** An HTTP method, in any case. */
const method: Parser<(typeof methods)[number]> = {
  takes: `an HTTP method: ${methods.join(", ")}`,
  parse: (s) => Option.fromNullable(methods.find((m) => m === s.toUpperCase()))
}

/** A path on the service's host, printable and with no space. */
const path: Parser<string> = {
  takes: "a path that begins with /, such as /design/201900001",
  // eslint-disable-next-line no-control-regex
  parse: Option.liftPredicate((s) => /^\/[^\s\u0000-\u001f\u007f]*$/.test(s))
}

export const api = {
  name: "api",
  summary:
    "send one request to the design search API (or, with a /public/ path, any API of the family) and print its JSON",
  fields: {
    method: requiredArgumentOf("METHOD", method, "the HTTP method, such as GET or POST"),
    path: requiredArgumentOf(
      "PATH",
      path,
      "below the design search API (/design/201900001), or below the host when it starts with /public/"
    ),
    data: optional("data", text, "JSON|@FILE", "the request's JSON body, or @FILE to read it from FILE"),
    json: flag("json", "print the answer's JSON on one line, even on a terminal (it is when piped)"),
    include: flag("include", "print the answer's status line and headers first (never the token)"),
    ...service
  },
  notes: [
    "The request carries the access token (renewed once on a 401), waits its turn of the rate budget and",
    "is tried again on a transient failure if it is a GET or a search. A non-2xx answer is told on stderr:",
    "exit 1, or 3 when the credentials are at fault; 2 when the request is refused before it is sent."
  ],
  examples: [
    "api GET /design/201900001",
    "api POST /search/quick --data '{\"query\":\"chair\"}'",
    "api POST /search/quick --data @query.json --include"
  ],
  refuse: (input: { readonly method: string; readonly data: Option.Option<string> }) =>
    Option.isSome(input.data) && (input.method === "GET" || input.method === "HEAD")
      ? Option.some(`${input.method} sends no body: --data goes with POST, PUT, PATCH or DELETE`)
      : Option.none()
}
export type ApiInput = Input<typeof api.fields>
