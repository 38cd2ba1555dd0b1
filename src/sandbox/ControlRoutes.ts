/**
 * The `/__sandbox/*` routes a served sandbox answers beside the service, so that tools and tests in
 * another process can drive it as `SandboxControl` does in process: inject faults, read counters,
 * revoke tokens, reset, touch designs. Bad input to them gets a spec-shaped error body (spec 7.1) with a fitting
 * status and never stops the server.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import type { ErrorObject } from "../ApiError.js"
import { parseJson } from "../internal/client/answers.js"
import { pointerErrors } from "../internal/validation.js"
import * as Address from "./Address.js"
import type { Control } from "./Control.js"
import { allowHeader, answers, errorAnswers, json, pathOf, readBody } from "./Http.js"
import { Fault } from "./State.js"

/** Every control route lives below this path. */
export const prefix = "/__sandbox"

/** What the routes are built with. */
export interface ControlOptions {
  /** Largest request body a control route reads, in bytes. */
  readonly maxBodyBytes: number
  /** Where the sandbox is served: a request with an `Origin` other than this one is refused. */
  readonly own: Address.OwnAddress
}

type Response = HttpServerResponse.HttpServerResponse

interface Route {
  readonly method: "GET" | "POST"
  readonly handle: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Response>
}

const decodeFault = Schema.decodeUnknownEither(Fault, { errors: "all", onExcessProperty: "error" })
const encodeFault = Schema.encodeSync(Fault)

/** The body of `POST /__sandbox/touch`: the numbers of the designs to change, at most 10,000. */
const TouchBody = Schema.Struct({ numbers: Schema.Array(Schema.String).pipe(Schema.maxItems(10_000)) })
const decodeTouch = Schema.decodeUnknownEither(TouchBody, { errors: "all", onExcessProperty: "error" })

/**
 * Whether a `Content-Type` is JSON: `application/json`, in any case, with any parameters (`;
 * charset=utf-8`). Nothing else is read as a control body, so a page cannot post one as a "simple"
 * cross-origin request (`text/plain`, a form): `application/json` needs a preflight, which the
 * sandbox never grants.
 */
const isJson = (contentType: string | undefined): boolean =>
  (contentType?.split(";")[0] ?? "").trim().toLowerCase() === "application/json"

/** True when `url` names a control route (or the prefix itself). */
export const isControlPath = (url: string): boolean => {
  const path = pathOf(url)
  return path === prefix || path.startsWith(prefix + "/")
}

/**
 * Wraps a sandbox's app so that requests below `prefix` reach the control routes and every other
 * request reaches `app` unchanged. A control request that carries an `Origin` other than the
 * sandbox's own comes from a page, and gets a 403 whatever its route (see `Address.ts`); a body that
 * is not `application/json` (a fault, a touch) gets a 415.
 */
export const withControlRoutes = (app: HttpApp.Default, control: Control, options: ControlOptions): HttpApp.Default => {
  let sequence = 0
  const errors = errorAnswers(() => `ctl-${(++sequence).toString(36)}`)
  const fail = (status: number, error: Omit<ErrorObject, "id">) => errors(status, [error])

  /** The JSON body of a control request, or the error answer of why it cannot be read: 415, 413, 400. */
  const jsonBody = (request: HttpServerRequest.HttpServerRequest, what: string) =>
    Effect.gen(function*() {
      const contentType = request.headers["content-type"]
      if (!isJson(contentType)) {
        return Either.left(fail(415, {
          code: "UNSUPPORTED_MEDIA_TYPE",
          detail: `${what} is sent as application/json, not ${
            contentType === undefined ? "without Content-Type" : JSON.stringify(contentType)
          }`,
          source: { header: "Content-Type" }
        }))
      }
      const body = yield* readBody(request, options.maxBodyBytes, fail)
      if (Either.isLeft(body)) return Either.left(body.left)
      const parsed = parseJson(body.right)
      if (Option.isNone(parsed)) {
        return Either.left(fail(400, {
          code: "MALFORMED_JSON",
          detail: "the request body is not well-formed JSON",
          source: { parameter: "body" }
        }))
      }
      return Either.right(parsed.value)
    })

  const injectFault = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const parsed = yield* jsonBody(request, "a fault")
      if (Either.isLeft(parsed)) return parsed.left
      const fault = decodeFault(parsed.right)
      if (Either.isLeft(fault)) return errors(422, pointerErrors(fault.left))
      const encoded = encodeFault(fault.right)
      return yield* control.injectFault(encoded).pipe(
        Effect.as(json({ data: encoded }, 201)),
        Effect.catchAll((error) => Effect.succeed(errors(422, pointerErrors(error))))
      )
    })

  const touch = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      const parsed = yield* jsonBody(request, "a touch")
      if (Either.isLeft(parsed)) return parsed.left
      const body = decodeTouch(parsed.right)
      if (Either.isLeft(body)) return errors(422, pointerErrors(body.left))
      const { numbers } = body.right
      return yield* control.touch(numbers).pipe(
        Effect.as(HttpServerResponse.empty({ status: 204 })),
        Effect.catchAll((error) =>
          Effect.succeed(errors(
            422,
            error.numbers.map((number) => ({
              code: "UNKNOWN_DESIGN",
              detail: `no design numbered ${number}`,
              source: { pointer: `/numbers/${numbers.indexOf(number)}` }
            }))
          ))
        )
      )
    })

  const routes: Readonly<Record<string, Route>> = {
    [`${prefix}/faults`]: { method: "POST", handle: injectFault },
    [`${prefix}/touch`]: { method: "POST", handle: touch },
    [`${prefix}/stats`]: { method: "GET", handle: () => Effect.map(control.stats, (stats) => json(stats, 200)) },
    [`${prefix}/revoke-tokens`]: {
      method: "POST",
      handle: () => Effect.as(control.revokeTokens, HttpServerResponse.empty({ status: 204 }))
    },
    [`${prefix}/reset`]: {
      method: "POST",
      handle: () => Effect.as(control.reset, HttpServerResponse.empty({ status: 204 }))
    }
  }

  const controlApp = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Response> => {
    const origin = request.headers["origin"]
    if (origin !== undefined && !Address.isOwnOrigin(options.own, origin)) {
      return Effect.succeed(fail(403, {
        code: "FORBIDDEN_ORIGIN",
        detail: `the control routes answer no page: Origin ${JSON.stringify(origin)} is not the sandbox's own`,
        source: { header: "Origin" }
      }))
    }
    const path = pathOf(request.url)
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined
    if (route === undefined) {
      return Effect.succeed(fail(404, { code: "NOT_FOUND", detail: `no control route ${path}` }))
    }
    if (!answers(route.method, request.method)) {
      const allow = allowHeader(route.method)
      return Effect.succeed(errors(405, [{
        code: "405",
        detail: `${path} accepts ${allow}, not ${request.method}`
      }], { allow }))
    }
    return route.handle(request)
  }

  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    isControlPath(request.url)
      ? controlApp(request).pipe(
        Effect.catchAllDefect(() => Effect.succeed(fail(500, { code: "500", detail: "Internal Server Error" })))
      )
      : app)
}
