/**
 * The `/__sandbox/*` routes, so that tools and tests in another process drive a served sandbox as
 * `SandboxControl` does in process. Bad input gets a spec-shaped error (spec 7.1), never a stop.
 */
import { union } from "#edition/internal/domainSchemas"
import { between, strings } from "#edition/internal/sandbox/schemas"
import { catchAll, decodeUnknownEffect, decodeUnknownResult } from "#edition/internal/seam"
import { HttpServerRequest, HttpServerResponse } from "#edition/internal/seam"
import type { DurationInput, SchemaError } from "#edition/internal/seam"
import { Duration, Effect, Schema } from "effect"
import { counter, pathOf } from "../../core/sandbox/answers.js"
import { pointerErrors } from "../validation.js"
import * as Address from "./Address.js"
import { guarded } from "./Control.js"
import type { App, Control } from "./Control.js"
import { defaults } from "./Defaults.js"
import { allowMethod, decodeJson, errorAnswers, json, readBody } from "./Http.js"
import { Fault, RequestQuery, strict } from "./State.js"

/** Every control route lives below this path. */
const prefix = "/__sandbox"

type Response = HttpServerResponse.HttpServerResponse

/** A fault, refused as `injectFault` refuses it, one nested too deep with a pointer at the field. */
const decodeFault = guarded(decodeUnknownResult(Fault, strict), ["body"], true)
const encodeFault = Schema.encodeSync(Fault)

/** The body of `POST /__sandbox/touch`: the numbers of the designs to change, at most 10,000. */
const decodeTouch = decodeUnknownEffect(Schema.Struct({ numbers: strings(10_000) }), strict)

/** The body of `POST /__sandbox/advance`: `{"days": N}`, N up to a century, or `{"duration": "10 days"}`. */
const decodeAdvance = decodeUnknownEffect(
  union(Schema.Struct({ days: between(0, 36_500) }), Schema.Struct({ duration: Schema.String })),
  strict
)

/** The query of `GET /__sandbox/requests`: a `RequestFilter`, each field a parameter. */
const decodeRequestsQuery = decodeUnknownEffect(RequestQuery, strict)

const noContent = HttpServerResponse.empty({ status: 204 })

/**
 * Requests below `prefix` reach the control routes, others `app`. A control request with an `Origin`
 * not the sandbox's own comes from a page: a 403 (`Address.ts`). A body that is not
 * `application/json` gets a 415: a page cannot send that type without a preflight, never granted.
 */
export const withControlRoutes = (app: App, control: Control, own: Address.OwnAddress): App => {
  const errors = errorAnswers(counter("ctl"))

  /** A control request's JSON body, within the default `maxRequestBytes`: 415, 413, 400 or 422 when it cannot be. */
  const jsonBody = <A>(
    request: HttpServerRequest.HttpServerRequest,
    decode: (u: unknown) => Effect.Effect<A, SchemaError>
  ) => {
    const contentType = request.headers["content-type"]
    if ((contentType?.split(";")[0] ?? "").trim().toLowerCase() !== "application/json") {
      return Effect.fail(errors(415, [{
        code: "UNSUPPORTED_MEDIA_TYPE",
        detail: `the body is sent as application/json, not ${
          contentType === undefined ? "without Content-Type" : JSON.stringify(contentType)
        }`,
        source: { header: "Content-Type" }
      }]))
    }
    return Effect.flatMap(
      readBody(request, defaults.maxRequestBytes, errors),
      (body) => decodeJson(body, decode, errors)
    )
  }

  const routes: Record<
    string,
    readonly ["GET" | "POST", (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Response, Response>]
  > = {
    faults: ["POST", (request) =>
      Effect.flatMap(jsonBody(request, decodeFault), (fault) => {
        const encoded = encodeFault(fault)
        // Decoded by the same schema, more strictly, so `injectFault` takes it.
        return Effect.as(Effect.orDie(control.injectFault(encoded)), json({ data: encoded }, 201))
      })],
    touch: [
      "POST",
      (request) =>
        Effect.flatMap(
          jsonBody(request, decodeTouch),
          ({ numbers }) =>
            Effect.as(control.touch(numbers), noContent).pipe(Effect.mapError((error) =>
              errors(
                422,
                error._tag === "UnknownDesignsError"
                  ? error.numbers.map((number) => ({
                    code: "UNKNOWN_DESIGN",
                    detail: `no design numbered ${number}`,
                    source: { pointer: `/numbers/${numbers.indexOf(number)}` }
                  }))
                  : pointerErrors(error) // not met: `decodeTouch` checked the numbers already
              )
            ))
        )
    ],
    requests: [
      "GET",
      (request) =>
        decodeRequestsQuery(Object.fromEntries(new URL(request.url, "http://sandbox.invalid").searchParams)).pipe(
          Effect.flatMap(control.requests),
          Effect.mapBoth({ onFailure: (error) => errors(422, pointerErrors(error)), onSuccess: (j) => json(j, 200) })
        )
    ],
    advance: [
      "POST",
      (request) =>
        Effect.flatMap(
          jsonBody(request, decodeAdvance),
          (body) =>
            control.advance("days" in body ? Duration.days(body.days) : body.duration as DurationInput).pipe(
              Effect.mapBoth({
                onFailure: (e) => errors(422, pointerErrors(e)),
                onSuccess: (s) => json({ data: s }, 200)
              })
            )
        )
    ],
    stats: ["GET", () => Effect.map(control.stats, (stats) => json(stats, 200))],
    "revoke-tokens": ["POST", () => Effect.as(control.revokeTokens, noContent)],
    reset: ["POST", () => Effect.as(control.reset, noContent)]
  }

  const controlApp = (request: HttpServerRequest.HttpServerRequest, path: string) => {
    const origin = request.headers["origin"]
    if (origin !== undefined && !Address.isOwnOrigin(own, origin)) {
      return Effect.fail(errors(403, [{
        code: "FORBIDDEN_ORIGIN",
        detail: `the control routes answer no page: Origin ${JSON.stringify(origin)} is not the sandbox's own`,
        source: { header: "Origin" }
      }]))
    }
    const name = path.slice(prefix.length + 1)
    if (!Object.hasOwn(routes, name)) {
      return Effect.fail(errors(404, [{ code: "NOT_FOUND", detail: `no control route ${path}` }]))
    }
    const [method, handle] = routes[name]!
    return Effect.andThen(allowMethod(errors, method, request.method), handle(request))
  }

  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const path = pathOf(request.url)
    return path === prefix || path.startsWith(prefix + "/") ? catchAll(controlApp(request, path), Effect.succeed) : app
  })
}
