/**
 * What the sandbox's routes share: JSON answers, spec-shaped error answers (spec 7.1), the path of
 * a request URL, and reading a request body within a byte limit.
 */
import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Either, Stream } from "effect"
import type { ErrorObject } from "../ApiError.js"

/** A JSON answer that no cache keeps. */
export const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store", ...headers } })

/** A JSON answer already encoded to UTF-8: the same bytes and headers as `json` of the value it encodes. */
export const jsonBytes = (body: Uint8Array, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.uint8Array(body, {
    status,
    contentType: "application/json",
    headers: { "cache-control": "no-store", ...headers }
  })

/** Builds spec-shaped error answers: one error object per problem, each with an id from `nextId`. */
export const errorAnswers = (nextId: () => string) =>
(
  status: number,
  list: ReadonlyArray<Omit<ErrorObject, "id">>,
  headers: Record<string, string> = {}
): HttpServerResponse.HttpServerResponse => json({ errors: list.map((e) => ({ id: nextId(), ...e })) }, status, headers)

/**
 * Whether a route that answers `method` answers a request's `requested` method: `HEAD` is answered
 * wherever `GET` is, with the same status and headers (RFC 9110, 9.3.2). The app still builds the
 * GET's body, so its headers (`Content-Length` included) are the GET's; the transport drops the body
 * (Node's server for a HEAD, the in-process client likewise).
 */
export const answers = (method: "GET" | "POST", requested: string): boolean =>
  requested === method || (method === "GET" && requested === "HEAD")

/** The `Allow` header of a 405 from a route that answers `method`. */
export const allowHeader = (method: "GET" | "POST"): string => method === "GET" ? "GET, HEAD" : method

/** The path of a request URL, absolute or not. */
export const pathOf = (url: string): string =>
  URL.canParse(url, "http://sandbox.invalid") ? new URL(url, "http://sandbox.invalid").pathname : url

/**
 * Reads a UTF-8 body of at most `maxBytes`, by `Content-Length` first and by counting as it
 * streams. Past the limit the rest is drained, not stored, so the connection stays usable for the
 * 413 that follows. `Left` is the error answer to send instead.
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  fail: (status: number, error: Omit<ErrorObject, "id">) => HttpServerResponse.HttpServerResponse
): Effect.Effect<Either.Either<string, HttpServerResponse.HttpServerResponse>> => {
  const tooLarge = () => fail(413, { code: "PAYLOAD_TOO_LARGE", detail: `request body over ${maxBytes} bytes` })
  const declared = request.headers["content-length"]
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    return Effect.succeed(Either.left(tooLarge()))
  }
  return Effect.suspend(() => {
    const read = { chunks: [] as Array<Uint8Array>, total: 0 }
    return Stream.runForEach(request.stream, (chunk) =>
      Effect.sync(() => {
        read.total += chunk.length
        if (read.total <= maxBytes) read.chunks.push(chunk)
      })).pipe(
        Effect.map(() => {
          if (read.total > maxBytes) return Either.left(tooLarge())
          return Either.try({
            try: () => new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(read.chunks)),
            catch: () => fail(400, { code: "MALFORMED_BODY", detail: "the request body is not UTF-8 text" })
          })
        }),
        Effect.orElseSucceed(() =>
          Either.left(fail(400, { code: "UNREADABLE_BODY", detail: "the request body could not be read" }))
        )
      )
  })
}
