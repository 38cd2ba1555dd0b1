/**
 * The sandbox as an `HttpApp`: the token endpoint (spec 4.1, 5.3) and the API's operations, with
 * the client's own schemas. Every answer is spec-shaped; nothing a request carries makes it fail.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Clock, Duration, Effect, Either, Schema } from "effect"
import type { ParseResult } from "effect"
import type { Message } from "../ApiError.js"
import { entryOf } from "../core/journal.js"
import * as Jwt from "../core/jwt.js"
import { unknownCriteria, unknownDateTypes } from "../core/searchIndex.js"
import type { SearchIndex } from "../core/searchIndex.js"
import type { Design } from "../core/wire.js"
import { AdvancedSearchRequest, DesignNumber, PageRequest, QuickSearchRequest } from "../Designs.js"
import { apiPath, tokenPath } from "../DesignSearchConfig.js"
import { parameterError } from "../internal/validation.js"
import type { ResultField } from "./Defaults.js"
import * as Http from "./Http.js"
import { receive, resetHeader } from "./State.js"
import type { Endpoint, Fault, State } from "./State.js"

/** What the app is built from. */
export interface AppConfig {
  readonly clientId: string
  readonly clientSecret: string
  readonly tokenLifetimeSeconds: number
  readonly resultCap: number
  readonly resultField: ResultField
  readonly maxRequestBytes: number
  readonly signingKey: Uint8Array
  readonly issuer: string
  readonly index: SearchIndex
  readonly state: State
  /** What the journal masks: the client secret, and `id:secret`. */
  readonly secrets: ReadonlyArray<string>
  /** The latency of the next answer, in milliseconds. */
  readonly latency: () => number
}

type Response = HttpServerResponse.HttpServerResponse

/** A route: the endpoint it counts as, the method it answers, and its handler. */
interface Route {
  readonly endpoint: Endpoint
  readonly method: "GET" | "POST"
  readonly handle: (body: string, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Response, Response>
}

/** What the handlers share: the app's config, and its ids and error answers. */
type Context = AppConfig & { readonly nextId: () => string; readonly errors: Http.Errors }

const decodeQuick = Schema.decodeUnknown(QuickSearchRequest, { errors: "all" })
const decodeAdvanced = Schema.decodeUnknown(AdvancedSearchRequest, { errors: "all" })
const decodePage = Schema.decodeUnknown(PageRequest, { errors: "all" })
const isDesignNumber = Schema.is(DesignNumber)
const designPrefix = `${apiPath}/design/`

const fail = (ctx: Context, status: number, code: string, detail: string, headers?: Record<string, string>) =>
  Effect.fail(ctx.errors(status, [{ code, detail }], headers))

const oauthError = (status: number, error: string, description: string) =>
  Effect.fail(Http.json({ error, error_description: description }, status))

const message = (ctx: Context, code: string, detail: string, severity: string): Message => ({
  id: ctx.nextId(),
  code,
  detail,
  severity
})

/** The answer a fault asks for, after its delay on the sandbox's clock. */
export const faultResponse = (ctx: Pick<Context, "errors">, fault: Fault): Effect.Effect<Response> => {
  const headers = fault.headers ?? {}
  const response = fault.kind === "reset"
    ? HttpServerResponse.empty({ status: fault.status, headers: { [resetHeader]: "reset" } })
    : fault.status === 204 || fault.status === 304
    ? HttpServerResponse.empty({ status: fault.status, headers })
    : fault.body === undefined
    ? ctx.errors(fault.status, [Http.statusProblem(fault.status)], headers)
    : typeof fault.body === "string"
    ? HttpServerResponse.text(fault.body, { status: fault.status, headers })
    : Http.json(fault.body, fault.status, headers)
  const answer = fault.kind === "resetMidBody"
    ? HttpServerResponse.setHeader(response, resetHeader, "reset-mid-body")
    : response
  return fault.delayMs ? Effect.as(Effect.sleep(Duration.millis(fault.delayMs)), answer) : Effect.succeed(answer)
}

/** The token endpoint: a client credentials grant, answered with a JWT or an RFC 6749 error. */
const token = (ctx: Context) => (body: string, { headers }: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!(headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      return yield* oauthError(400, "invalid_request", "expected an application/x-www-form-urlencoded body")
    }
    const form = new URLSearchParams(body)
    const [grantType, clientId, clientSecret] = ["grant_type", "client_id", "client_secret"].map((k) => form.get(k))
    if (grantType === null || clientId === null || clientSecret === null) {
      return yield* oauthError(400, "invalid_request", "grant_type, client_id and client_secret are required")
    }
    if (grantType !== "client_credentials") {
      return yield* oauthError(400, "unsupported_grant_type", "only client_credentials is supported")
    }
    if (clientId !== ctx.clientId || clientSecret !== ctx.clientSecret) {
      return yield* oauthError(401, "invalid_client", "client authentication failed")
    }
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const jti = ctx.nextId()
    const accessToken = Jwt.issue(ctx.signingKey, {
      clientId,
      issuer: ctx.issuer,
      jti,
      lifetime: ctx.tokenLifetimeSeconds,
      now
    })
    ctx.state.activeTokens.add(jti)
    ctx.state.counts.tokensIssued++
    return Http.json({ access_token: accessToken, expires_in: ctx.tokenLifetimeSeconds, token_type: "Bearer" }, 200)
  })

/** Succeeds when the bearer token is good; otherwise fails with the 401 to send. */
const authenticate = (ctx: Context, header: string | undefined) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const match = header === undefined ? null : /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header)
    const claims = match === null ? undefined : Jwt.verify(ctx.signingKey, match[1]!)
    const refusal = header === undefined
      ? "missing access token"
      : claims === undefined
      ? "malformed Authorization header"
      : typeof claims === "string"
      ? `invalid access token: ${claims}`
      : claims.exp * 1000 <= now
      ? "access token expired"
      : !ctx.state.activeTokens.has(claims.jti)
      ? "access token revoked"
      : undefined
    return refusal === undefined
      ? Effect.void
      : fail(ctx, 401, "UNAUTHORIZED", refusal, { "www-authenticate": `Bearer error="invalid_token"` })
  })

/** A 200 with `data`, and `messages` beside it when there are any. */
const withMessages = (data: object, messages: ReadonlyArray<Message>) =>
  Http.json(messages.length === 0 ? data : { data, messages }, 200)

/** The warning of a search that lists only the first `resultCap` of its `count` matches. */
const capped = (ctx: Context, count: number): ReadonlyArray<Message> =>
  count <= ctx.resultCap
    ? []
    : [
      message(
        ctx,
        "RESULT_LIMIT",
        `${count} designs match; the first ${ctx.resultCap} are listed. Narrow the search to see the rest.`,
        "warning"
      )
    ]

/** A search result naming its numbers in the configured field. */
const searchResult = (ctx: Context, count: number, designs: ReadonlyArray<Design>, extra: object = {}) => ({
  count,
  [ctx.resultField]: designs.map((d) => d.number),
  ...extra
})

/**
 * An advanced request the index can answer: a 422 for a kind of date it does not hold. Criteria
 * it does not know are ignored, and an information message names them.
 */
const advancedRequest = <A extends AdvancedSearchRequest>(
  ctx: Context,
  body: string,
  decode: (u: unknown) => Effect.Effect<A, ParseResult.ParseError>
) =>
  Effect.flatMap(Http.decodeJson(body, decode, ctx.errors), (query) => {
    const badDates = unknownDateTypes(query)
    if (badDates.length > 0) {
      return Effect.fail(ctx.errors(
        422,
        badDates.map((pointer) => ({
          code: "INVALID_VALUE",
          detail: "expected a date type: FILING, REGISTRATION, PRIORITY, EXPIRY or LAST_CHANGED",
          source: { pointer }
        }))
      ))
    }
    const unknown = unknownCriteria(query)
    const detail = `criteria the sandbox does not know were ignored: ${unknown.join(", ")}`
    return Effect.succeed({
      query,
      messages: unknown.length === 0 ? [] : [message(ctx, "UNKNOWN_CRITERION", detail, "information")]
    })
  })

const getDesign = (ctx: Context) => (_: string, request: HttpServerRequest.HttpServerRequest) => {
  const designNumber = Http.pathOf(request.url).slice(designPrefix.length)
  const number = Either.getOrElse(Either.try(() => decodeURIComponent(designNumber)), () => designNumber)
  if (!isDesignNumber(number)) {
    return Effect.fail(
      ctx.errors(400, [parameterError("ipRightIdentifier", "expected a design number: 1 to 12 letters or digits")])
    )
  }
  const design = ctx.index.get(number)
  return design === undefined
    ? fail(ctx, 404, "NOT_FOUND", `no design numbered ${number}`)
    : Effect.succeed(Http.json(design, 200))
}

/** The routes at fixed paths. */
const routes = (ctx: Context): Record<string, Route> => ({
  [tokenPath]: { endpoint: "token", method: "POST", handle: token(ctx) },
  [`${apiPath}/search/quick`]: {
    endpoint: "search",
    method: "POST",
    handle: (body) =>
      Effect.map(Http.decodeJson(body, decodeQuick, ctx.errors), (query) => {
        const hits = ctx.index.search(query, ctx.resultCap)
        return withMessages(searchResult(ctx, hits.count, hits.designs), capped(ctx, hits.count))
      })
  },
  [`${apiPath}/search/advanced`]: {
    endpoint: "advanced",
    method: "POST",
    handle: (body) =>
      Effect.map(advancedRequest(ctx, body, decodeAdvanced), ({ messages, query }) => {
        const hits = ctx.index.advanced(query, 0, ctx.resultCap)
        const result = searchResult(ctx, hits.count, hits.designs, { aggregations: { status: hits.statuses } })
        return withMessages(result, [...messages, ...capped(ctx, hits.count)])
      })
  },
  [`${apiPath}/page/advanced`]: {
    endpoint: "page",
    method: "POST",
    handle: (body) =>
      Effect.map(advancedRequest(ctx, body, decodePage), ({ messages, query }) => {
        const hits = ctx.index.advanced(query, query.pageNumber * query.pageSize, query.pageSize)
        const page = {
          count: hits.count,
          designs: hits.designs,
          aggregations: { status: hits.statuses }
        }
        return withMessages(page, messages)
      })
  }
})

/** Builds the app over a dataset index and a state. */
export const make = (config: AppConfig): HttpApp.Default => {
  const { state } = config
  const nextId = Http.counter("sbx")
  const ctx: Context = { ...config, nextId, errors: Http.errorAnswers(nextId) }
  const fixed = routes(ctx)
  const designRoute: Route = { endpoint: "design", method: "GET", handle: getDesign(ctx) }
  const route = (path: string): Route | undefined =>
    Object.hasOwn(fixed, path) ? fixed[path] : path.startsWith(designPrefix) ? designRoute : undefined

  /** A (delayed) answer whose client goes away is interrupted by its transport, and counted. */
  const abandonable = <A>(answer: Effect.Effect<A>) =>
    Effect.interruptible(answer).pipe(Effect.onInterrupt(() => Effect.sync(() => void state.counts.abandoned++)))

  /**
   * Every request: its body read, journaled and received by the state, answered after the latency by
   * a fault or by its route, and its status journaled.
   */
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = Http.pathOf(request.url)
    const target = route(path)
    const read = yield* Effect.either(Http.readBody(request, config.maxRequestBytes, ctx.errors))
    const time = yield* Clock.currentTimeMillis
    const received = { time, path, target: target?.endpoint, body: Either.getOrUndefined(read) }
    const entry = entryOf<Endpoint, Fault>(config.secrets, request, received)
    const fault = receive(state, entry)
    const latency = config.latency()
    if (latency > 0) yield* abandonable(Effect.sleep(Duration.millis(latency)))
    const response = yield* Effect.merge(Effect.gen(function*() {
      if (target === undefined) return yield* fail(ctx, 404, "NOT_FOUND", `no route for ${request.method} ${path}`)
      if (fault !== undefined) return yield* abandonable(faultResponse(ctx, fault))
      if (target.endpoint !== "token") yield* authenticate(ctx, request.headers["authorization"])
      yield* Http.allowMethod(ctx.errors, target.method, request.method)
      return yield* target.handle(yield* read, request)
    }))
    entry.status = response.status
    return response
  })
}
