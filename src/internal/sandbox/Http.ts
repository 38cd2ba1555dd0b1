/**
 * What the sandbox's routes share: JSON and spec-shaped error answers (spec 7.1), a body read
 * within a limit. A route fails with the answer to send, so its error is a response.
 */
import { HttpServerResponse } from "#edition/internal/seam"
import type { HttpServerRequest, SchemaError } from "#edition/internal/seam"
import { Effect, Stream } from "effect"
import { STATUS_CODES } from "node:http"
import type { Problem } from "../../core/sandbox/answers.js"
import { pointerErrors } from "../validation.js"

/** Ids that count up under a prefix (`core/sandbox/answers.ts`), for the sandbox's error answers. */
export { counter } from "../../core/sandbox/answers.js"

type Response = HttpServerResponse.HttpServerResponse

/** Spec-shaped error answers: one error object per problem, each with an id. */
export type Errors = (status: number, problems: ReadonlyArray<Problem>, headers?: Record<string, string>) => Response

/** A JSON answer that no cache keeps. */
export const json = (body: unknown, status: number, headers: Record<string, string> = {}): Response =>
  HttpServerResponse.text(JSON.stringify(body), {
    status,
    contentType: "application/json",
    headers: { "cache-control": "no-store", ...headers }
  })

/** Error answers, each error object with an id from `nextId`. */
export const errorAnswers = (nextId: () => string): Errors => (status, problems, headers) =>
  json({ errors: problems.map((problem) => ({ id: nextId(), ...problem })) }, status, headers)

/** The error of a status when nothing more specific is said; a 500 carries `code: "500"` (spec 7.2). */
export const statusProblem = (status: number): Problem => ({
  code: String(status),
  detail: STATUS_CODES[status] ?? `HTTP ${status}`
})

/**
 * Succeeds when a route that answers `method` answers `requested`: `HEAD` wherever `GET` (RFC 9110
 * 9.3.2), with the GET's status and headers; the transport drops the body. Fails with the 405 and
 * its `Allow` header.
 */
export const allowMethod = (errors: Errors, method: "GET" | "POST", requested: string): Effect.Effect<void, Response> =>
  requested === method || (method === "GET" && requested === "HEAD")
    ? Effect.void
    : Effect.fail(errors(405, [statusProblem(405)], { allow: method === "GET" ? "GET, HEAD" : method }))

/**
 * Reads a UTF-8 body of at most `maxBytes`, by `Content-Length` and by counting as it streams. Past
 * the limit the rest is drained, not stored, so the connection stays usable for the 413.
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  errors: Errors
): Effect.Effect<string, Response> => {
  const tooLarge = () => errors(413, [{ code: "PAYLOAD_TOO_LARGE", detail: `request body over ${maxBytes} bytes` }])
  if (request.method === "GET" || request.method === "HEAD") return Effect.succeed("")
  if (Number(request.headers["content-length"]) > maxBytes) return Effect.fail(tooLarge())
  return Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let total = 0
    return Stream.runForEach(request.stream, (chunk) =>
      Effect.sync(() => {
        total += chunk.length
        if (total <= maxBytes) chunks.push(chunk)
      })).pipe(
        Effect.mapError(() => errors(400, [{ code: "UNREADABLE_BODY", detail: "the request body could not be read" }])),
        Effect.filterOrFail(() => total <= maxBytes, tooLarge),
        Effect.flatMap(() =>
          Effect.try({
            try: () => new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)),
            catch: () => errors(400, [{ code: "MALFORMED_BODY", detail: "the request body is not UTF-8 text" }])
          })
        )
      )
  })
}

/** A JSON body decoded: a 400 when it is not JSON, a 422 with one error object per problem when `decode` refuses it. */
export const decodeJson = <A>(
  body: string,
  decode: (u: unknown) => Effect.Effect<A, SchemaError>,
  errors: Errors
): Effect.Effect<A, Response> =>
  Effect.try({
    try: (): unknown => JSON.parse(body),
    catch: () =>
      errors(400, [{
        code: "MALFORMED_JSON",
        detail: "the request body is not well-formed JSON",
        source: { parameter: "body" }
      }])
  }).pipe(Effect.flatMap((u) => Effect.mapError(decode(u), (error) => errors(422, pointerErrors(error)))))
