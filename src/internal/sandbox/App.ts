/**
 * The sandbox as an app (`Control.App`): the token endpoint (spec 4.1, 5.3) and the API's operations, with
 * the client's own schemas. Every answer is spec-shaped; nothing a request carries makes it fail.
 */
import { catchAll, decodeUnknownEffect, fromResult, Result, toResult } from "#edition/internal/seam"
import { HttpServerRequest, HttpServerResponse } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import { Clock, Duration, Effect, Option, Schema } from "effect"
import * as Answers from "../../core/sandbox/answers.js"
import type { ResultField } from "../../core/sandbox/answers.js"
import { entryOf, seenOf } from "../../core/sandbox/journal.js"
import type { Register } from "../../core/sandbox/register.js"
import { unknownCriteria, unknownDateTypes } from "../../core/sandbox/searchIndex.js"
import type { SearchIndex } from "../../core/sandbox/searchIndex.js"
import * as Jwt from "../../core/wire/jwt.js"
import { designPath, endpointOf } from "../../core/wire/service.js"
import type { Message } from "../../core/wire/wire.js"
import { AdvancedSearchRequest, DesignNumber, PageRequest, QuickSearchRequest } from "../../Designs.js"
import { parseOptions } from "../schemaIssues.js"
import { parameterError } from "../validation.js"
import type { App } from "./Control.js"
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
  readonly register: Register
  readonly state: State
  /** What the journal masks: the client secret, and `id:secret`. */
  readonly secrets: ReadonlyArray<string>
  /** The latency of the next answer, in milliseconds. */
  readonly latency: () => number
}

type Response = HttpServerResponse.HttpServerResponse

/** A route: the method it answers, and its handler. */
interface Route {
  readonly method: "GET" | "POST"
  readonly handle: (body: string, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Response, Response>
}

/** What the handlers share: the app's config, and its ids and error answers. */
type Context = AppConfig & { readonly nextId: () => string; readonly errors: Http.Errors }

const decodeQuick = decodeUnknownEffect(QuickSearchRequest, parseOptions)
const decodeAdvanced = decodeUnknownEffect(AdvancedSearchRequest, parseOptions)
const decodePage = decodeUnknownEffect(PageRequest, parseOptions)
const isDesignNumber = Schema.is(DesignNumber)

const fail = (ctx: Context, status: number, code: string, detail: string, headers?: Record<string, string>) =>
  Effect.fail(ctx.errors(status, [{ code, detail }], headers))

const oauthError = (status: number, error: string, description: string) =>
  Effect.fail(Http.json({ error, error_description: description }, status))

/** The message `m` with an id, if there is one. */
const messages = (ctx: Context, m: Answers.Notice | undefined): ReadonlyArray<Message> =>
  m === undefined ? [] : [{ id: ctx.nextId(), ...m }]

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
    const grant = Answers.tokenGrant(headers["content-type"], body, ctx)
    if ("error" in grant) return yield* oauthError(grant.status, grant.error, grant.description)
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const jti = ctx.nextId()
    const accessToken = Jwt.issue(ctx.signingKey, {
      clientId: grant.clientId,
      issuer: ctx.issuer,
      jti,
      lifetime: ctx.tokenLifetimeSeconds,
      now
    })
    ctx.state.activeTokens.add(jti)
    ctx.state.counts.tokensIssued++
    return Http.json({ access_token: accessToken, expires_in: ctx.tokenLifetimeSeconds, token_type: "Bearer" }, 200)
  })

/** Why the bearer token of an `Authorization` header is refused at `now`, or `undefined` when it is good. */
const bearerRefusal = (ctx: Context, header: string | undefined, now: number) =>
  Answers.bearerRefusal(ctx.signingKey, header, now, (jti) => ctx.state.activeTokens.has(jti))

/**
 * Whether a request to `endpoint` with `body`, as it arrives at `now`, is refused before it
 * authenticates: a token request the endpoint refuses, or an API request without a good bearer token.
 */
const refusedUnauthenticated = (
  ctx: Context,
  endpoint: Endpoint | undefined,
  { headers }: HttpServerRequest.HttpServerRequest,
  body: string | undefined,
  now: number
) =>
  endpoint === "token"
    ? body !== undefined && "error" in Answers.tokenGrant(headers["content-type"], body, ctx)
    : endpoint !== undefined && bearerRefusal(ctx, headers["authorization"], now) !== undefined

/** Succeeds when the bearer token is good; otherwise fails with the 401 to send. */
const authenticate = (ctx: Context, header: string | undefined) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const refusal = bearerRefusal(ctx, header, now)
    return refusal === undefined
      ? Effect.void
      : fail(ctx, 401, "UNAUTHORIZED", refusal, { "www-authenticate": `Bearer error="invalid_token"` })
  })

/** A 200 with `data`, and `messages` beside it when there are any. */
const withMessages = (data: object, list: ReadonlyArray<Message>) => Http.json(Answers.withMessages(data, list), 200)

/**
 * An advanced request the index can answer: a 422 for a kind of date it does not hold. Criteria
 * it does not know are ignored, and an information message names them.
 */
const advancedRequest = <A extends AdvancedSearchRequest>(
  ctx: Context,
  body: string,
  decode: (u: unknown) => Effect.Effect<A, SchemaError>
) =>
  Effect.flatMap(Http.decodeJson(body, decode, ctx.errors), (query) => {
    const badDates = unknownDateTypes(query)
    if (badDates.length > 0) return Effect.fail(ctx.errors(422, Answers.dateTypeProblems(badDates)))
    return Effect.succeed({ query, messages: messages(ctx, Answers.ignoredCriteria(unknownCriteria(query))) })
  })

const getDesign = (ctx: Context) => (_: string, request: HttpServerRequest.HttpServerRequest) => {
  const designNumber = Answers.pathOf(request.url).slice(designPath.length)
  const number = Option.getOrElse(Option.liftThrowable(decodeURIComponent)(designNumber), () => designNumber)
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

/** The route of each endpoint (`endpointOf` says which a path reaches). */
const routes = (ctx: Context): Record<Endpoint, Route> => ({
  token: { method: "POST", handle: token(ctx) },
  design: { method: "GET", handle: getDesign(ctx) },
  search: {
    method: "POST",
    handle: (body) =>
      Effect.map(Http.decodeJson(body, decodeQuick, ctx.errors), (query) => {
        const hits = ctx.index.search(query, ctx.resultCap)
        return withMessages(
          Answers.searchResult(ctx.resultField, hits.count, hits.designs),
          messages(ctx, Answers.resultLimit(hits.count, ctx.resultCap))
        )
      })
  },
  advanced: {
    method: "POST",
    handle: (body) =>
      Effect.map(advancedRequest(ctx, body, decodeAdvanced), ({ messages: ignored, query }) => {
        const hits = ctx.index.advanced(query, 0, ctx.resultCap)
        const aggregations = { aggregations: { status: hits.statuses } }
        const result = Answers.searchResult(ctx.resultField, hits.count, hits.designs, aggregations)
        return withMessages(result, [...ignored, ...messages(ctx, Answers.resultLimit(hits.count, ctx.resultCap))])
      })
  },
  page: {
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
export const make = (config: AppConfig): App => {
  const { state } = config
  const nextId = Answers.counter("sbx")
  const ctx: Context = { ...config, nextId, errors: Http.errorAnswers(nextId) }
  const routed = routes(ctx)

  /** A (delayed) answer whose client goes away is interrupted by its transport, and counted. */
  const abandonable = <A>(answer: Effect.Effect<A>) =>
    Effect.interruptible(answer).pipe(Effect.onInterrupt(() => Effect.sync(() => void state.counts.abandoned++)))

  /**
   * Every request: its body read, received by the state and journaled, answered after the latency by
   * a fault or by its route, and its status journaled (none for a reset).
   */
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = Answers.pathOf(request.url)
    const endpoint = endpointOf(path)
    const read = yield* toResult(Http.readBody(request, config.maxRequestBytes, ctx.errors))
    const time = yield* Clock.currentTimeMillis
    config.register.at(time)
    const received = { time, path, target: endpoint, body: Result.getOrUndefined(read) }
    // A request refused before it authenticates (unless a fault answers it) keeps only a preview of its body.
    const { entry, fault } = receive(state, endpoint, seenOf(request, received), (answered) =>
      entryOf<Endpoint, Fault>(
        config.secrets,
        request,
        received,
        !answered && refusedUnauthenticated(ctx, endpoint, request, received.body, time)
      ))
    const latency = config.latency()
    if (latency > 0) yield* abandonable(Effect.sleep(Duration.millis(latency)))
    const response = yield* Effect.gen(function*() {
      // a fault answers a path with no route too: a sibling API's answer, played by a test
      if (fault !== undefined) return yield* abandonable(faultResponse(ctx, fault))
      if (endpoint === undefined) return yield* fail(ctx, 404, "NOT_FOUND", `no route for ${request.method} ${path}`)
      if (endpoint !== "token") yield* authenticate(ctx, request.headers["authorization"])
      const { handle, method } = routed[endpoint]
      yield* Http.allowMethod(ctx.errors, method, request.method)
      return yield* handle(yield* fromResult(read), request)
    }).pipe(catchAll(Effect.succeed))
    // A reset sends no status: the client sees the connection drop, and the journal's `fault` says so.
    if (fault?.kind !== "reset") entry.status = response.status
    return response
  })
}
