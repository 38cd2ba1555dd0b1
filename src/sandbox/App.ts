/**
 * The sandbox as an `HttpApp`: the token endpoint (spec 4.1, 5.3) and the operations of the design
 * search API (quick search, get, advanced search and paged advanced search), behaving as the spec
 * says the service does. Requests are decoded and responses encoded with the same schemas the
 * client uses. Every answer is spec-shaped; nothing a request carries makes the app fail.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Clock, Duration, Effect, Either, Option, Schema } from "effect"
import type { ParseResult } from "effect"
import type { ErrorObject, Message } from "../ApiError.js"
import { AdvancedSearchRequest, Design as DesignSchema, DesignNumber, PageRequest, QuickSearchRequest } from "../Designs.js"

const encodeDesign = Schema.encodeSync(DesignSchema)
const isDesignNumber = Schema.is(DesignNumber)
import type { Design } from "../Designs.js"
import { apiPath, tokenPath } from "../DesignSearchConfig.js"
import { parseJson } from "../internal/client/answers.js"
import { parameterError, pointerErrors } from "../internal/validation.js"
import type { ResultField } from "./Defaults.js"
import { allowHeader, answers, errorAnswers, json, jsonBytes, pathOf, readBody } from "./Http.js"
import * as Jwt from "./Jwt.js"
import { unknownCriteria, unknownDateTypes } from "./SearchIndex.js"
import type { SearchIndex } from "./SearchIndex.js"
import { resetHeader, takeFault } from "./State.js"
import type { Endpoint, Fault, State } from "./State.js"

/** What the app is built from. */
export interface AppConfig {
  readonly clientId: string
  readonly clientSecret: string
  readonly tokenLifetimeSeconds: number
  readonly resultCap: number
  /** The field of a search result that lists the design numbers. */
  readonly resultField: ResultField
  readonly maxRequestBytes: number
  readonly signingKey: Uint8Array
  readonly issuer: string
  readonly index: SearchIndex
  readonly state: State
}

const statusTexts: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
}

const utf8 = new TextEncoder()
const decodeRequest = Schema.decodeUnknownEither(QuickSearchRequest, { errors: "all" })
const decodeAdvancedRequest = Schema.decodeUnknownEither(AdvancedSearchRequest, { errors: "all" })
const decodePageRequest = Schema.decodeUnknownEither(PageRequest, { errors: "all" })

/** Builds the app over a dataset index and a state. */
export const make = (config: AppConfig): HttpApp.Default => {
  const { state } = config
  const nextId = () => `sbx-${(++state.sequence).toString(36)}`

  /** A spec-shaped error response (spec 7.1): one error object per problem, each with an id. */
  const errors = errorAnswers(nextId)

  /** The error a status gets when nothing more specific is said; a 500 carries `code: "500"` (spec 7.2). */
  const statusError = (status: number, headers: Record<string, string> = {}) =>
    errors(status, [{ code: String(status), detail: statusTexts[status] ?? `HTTP ${status}` }], headers)

  const oauthError = (status: number, error: string, description: string) =>
    json({ error, error_description: description }, status)

  const faultResponse = (fault: Fault) => {
    const headers = fault.headers ?? {}
    const response = fault.status === 204 || fault.status === 304
      ? HttpServerResponse.empty({ status: fault.status, headers })
      : fault.body === undefined
      ? statusError(fault.status, headers)
      : typeof fault.body === "string"
      ? HttpServerResponse.text(fault.body, {
        status: fault.status,
        headers,
        contentType: headers["content-type"] ?? "text/plain"
      })
      : json(fault.body, fault.status, headers)
    const answer = fault.kind === "reset"
      ? HttpServerResponse.empty({ status: fault.status, headers: { [resetHeader]: "reset" } })
      : fault.kind === "resetMidBody"
      ? HttpServerResponse.setHeader(response, resetHeader, "reset-mid-body")
      : response
    return fault.delayMs === undefined || fault.delayMs === 0
      ? Effect.succeed(answer)
      : Effect.as(Effect.sleep(Duration.millis(fault.delayMs)), answer)
  }

  const readRequestBody = (request: HttpServerRequest.HttpServerRequest) =>
    readBody(request, config.maxRequestBytes, (status, error) => errors(status, [error]))

  const tokenEndpoint = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      if (!answers("POST", request.method)) return statusError(405, { allow: allowHeader("POST") })
      const body = yield* readRequestBody(request)
      if (Either.isLeft(body)) return body.left
      const contentType = request.headers["content-type"] ?? ""
      if (!contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
        return oauthError(400, "invalid_request", "expected an application/x-www-form-urlencoded body")
      }
      const form = new URLSearchParams(body.right)
      const grantType = form.get("grant_type")
      const clientId = form.get("client_id")
      const clientSecret = form.get("client_secret")
      if (grantType === null || clientId === null || clientSecret === null) {
        return oauthError(400, "invalid_request", "grant_type, client_id and client_secret are required")
      }
      if (grantType !== "client_credentials") {
        return oauthError(400, "unsupported_grant_type", "only client_credentials is supported")
      }
      if (clientId !== config.clientId || clientSecret !== config.clientSecret) {
        return oauthError(401, "invalid_client", "client authentication failed")
      }
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const jti = nextId()
      const token = Jwt.encode(config.signingKey, {
        sub: clientId,
        token_use: "access",
        scope: "https://api.ipaustralia.gov.au/australian-design-search-api",
        auth_time: now,
        iss: config.issuer,
        exp: now + config.tokenLifetimeSeconds,
        iat: now,
        jti,
        client_id: clientId
      })
      state.activeTokens.add(jti)
      state.tokensIssued++
      return json({ access_token: token, expires_in: config.tokenLifetimeSeconds, token_type: "Bearer" }, 200)
    })

  const unauthorized = (detail: string) =>
    errors(401, [{ code: "UNAUTHORIZED", detail }], { "www-authenticate": `Bearer error="invalid_token"` })

  /** `None` when the bearer token is good; otherwise the 401 to send. */
  const authenticate = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.map(Clock.currentTimeMillis, (nowMillis) => {
      const header = request.headers["authorization"]
      if (header === undefined) return Option.some(unauthorized("missing access token"))
      const match = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header)
      if (match === null) return Option.some(unauthorized("malformed Authorization header"))
      const claims = Jwt.verify(config.signingKey, match[1]!)
      if (Either.isLeft(claims)) return Option.some(unauthorized(`invalid access token: ${claims.left}`))
      if (claims.right.exp * 1000 <= nowMillis) return Option.some(unauthorized("access token expired"))
      if (!state.activeTokens.has(claims.right.jti)) return Option.some(unauthorized("access token revoked"))
      return Option.none()
    })

  /**
   * The body of a JSON operation, decoded: a 400 when it is not JSON, a 422 with one error object
   * per problem when `decode` refuses it. `Left` is the answer to send instead.
   */
  const readJsonRequest = <A>(
    request: HttpServerRequest.HttpServerRequest,
    decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
  ): Effect.Effect<Either.Either<A, HttpServerResponse.HttpServerResponse>> =>
    Effect.map(readRequestBody(request), (body) => {
      if (Either.isLeft(body)) return Either.left(body.left)
      const parsed = parseJson(body.right)
      if (Option.isNone(parsed)) {
        return Either.left(errors(400, [{
          code: "MALFORMED_JSON",
          detail: "the request body is not well-formed JSON",
          source: { parameter: "body" }
        }]))
      }
      return Either.mapLeft(decode(parsed.value), (e) => errors(422, pointerErrors(e)))
    })

  /** A 200 with `data`, and `messages` beside it when there are any. */
  const withMessages = (data: object, messages: ReadonlyArray<Message>) =>
    json(messages.length === 0 ? data : { data, messages }, 200)

  const resultLimit = (count: number): Message => ({
    id: nextId(),
    code: "RESULT_LIMIT",
    detail: `${count} designs match; the first ${config.resultCap} are listed. Narrow the search to see the rest.`,
    severity: "warning"
  })

  /** A search result naming its numbers in the configured field. */
  const searchResult = (count: number, designs: ReadonlyArray<Design>, extra: object = {}) => ({
    count,
    [config.resultField]: designs.map((d) => d.number),
    ...extra
  })

  const quickSearch = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function*() {
      if (!answers("POST", request.method)) return statusError(405, { allow: allowHeader("POST") })
      const decoded = yield* readJsonRequest(request, decodeRequest)
      if (Either.isLeft(decoded)) return decoded.left
      const hits = config.index.search(decoded.right, config.resultCap)
      return withMessages(
        searchResult(hits.count, hits.designs),
        hits.count > config.resultCap ? [resultLimit(hits.count)] : []
      )
    })

  /**
   * An advanced request (a POST) the index can answer: `Left` is the answer to send instead, a 422
   * for a kind of date it does not hold among them. Criteria it does not know are ignored, and an
   * information message names them.
   */
  const advancedRequest = <A extends AdvancedSearchRequest>(
    request: HttpServerRequest.HttpServerRequest,
    decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>
  ): Effect.Effect<
    Either.Either<{ readonly query: A; readonly messages: Array<Message> }, HttpServerResponse.HttpServerResponse>
  > => {
    if (!answers("POST", request.method)) {
      return Effect.succeed(Either.left(statusError(405, { allow: allowHeader("POST") })))
    }
    return Effect.map(
      readJsonRequest(request, decode),
      Either.flatMap((query) => {
        const badDates = unknownDateTypes(query)
        if (badDates.length > 0) {
          return Either.left(errors(
            422,
            badDates.map((pointer): Omit<ErrorObject, "id"> => ({
              code: "INVALID_VALUE",
              detail: "expected a date type: FILING, REGISTRATION, PRIORITY, EXPIRY or LAST_CHANGED",
              source: { pointer }
            }))
          ))
        }
        const unknown = unknownCriteria(query)
        const messages: Array<Message> = unknown.length === 0 ? [] : [{
          id: nextId(),
          code: "UNKNOWN_CRITERION",
          detail: `criteria the sandbox does not know were ignored: ${unknown.join(", ")}`,
          severity: "information"
        }]
        return Either.right({ query, messages })
      })
    )
  }

  const advancedSearch = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.map(advancedRequest(request, decodeAdvancedRequest), (read) => {
      if (Either.isLeft(read)) return read.left
      const { messages, query } = read.right
      const hits = config.index.advanced(query, 0, config.resultCap)
      if (hits.count > config.resultCap) messages.push(resultLimit(hits.count))
      return withMessages(searchResult(hits.count, hits.designs, { aggregations: { status: hits.statuses } }), messages)
    })

  const searchPage = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.map(advancedRequest(request, decodePageRequest), (read) => {
      if (Either.isLeft(read)) return read.left
      const { messages, query } = read.right
      const hits = config.index.advanced(query, query.pageNumber * query.pageSize, query.pageSize)
      // The records as `get` sends them, each encoded once.
      const data = `{"count":${hits.count},"designs":[${hits.designs.map(designText).join(",")}],` +
        `"aggregations":${JSON.stringify({ status: hits.statuses })}}`
      const body = messages.length === 0 ? data : `{"data":${data},"messages":${JSON.stringify(messages)}}`
      return jsonBytes(utf8.encode(body), 200)
    })

  const getDesign = (request: HttpServerRequest.HttpServerRequest, rawNumber: string) =>
    Effect.sync(() => {
      if (!answers("GET", request.method)) return statusError(405, { allow: allowHeader("GET") })
      const number = Either.getOrElse(Either.try(() => decodeURIComponent(rawNumber)), () => rawNumber)
      if (!isDesignNumber(number)) {
        return errors(400, [parameterError("ipRightIdentifier", "expected a design number: 1 to 12 letters or digits")])
      }
      const design = config.index.get(number)
      if (design === undefined) return errors(404, [{ code: "NOT_FOUND", detail: `no design numbered ${number}` }])
      return designAnswer(design)
    })

  /**
   * The JSON of each design served, encoded once: designs never change (README, "Where the CPU
   * goes"). Grows with the designs asked for, at most the dataset; as text for pages, as bytes for gets.
   */
  const designTexts = new WeakMap<Design, string>()
  const designText = (design: Design) => {
    let text = designTexts.get(design)
    if (text === undefined) {
      text = JSON.stringify(encodeDesign(design))
      designTexts.set(design, text)
    }
    return text
  }
  const designBytes = new WeakMap<Design, Uint8Array>()
  const designAnswer = (design: Design) => {
    let body = designBytes.get(design)
    if (body === undefined) {
      body = utf8.encode(designText(design))
      designBytes.set(design, body)
    }
    return jsonBytes(body, 200)
  }

  /**
   * Lets a (delayed) answer be abandoned: the transport interrupts the handler when its client goes
   * away (servers run handlers uninterruptibly unless they opt in), and the sandbox counts it.
   */
  const abandonable = <A>(answer: Effect.Effect<A>) =>
    Effect.interruptible(answer).pipe(Effect.onInterrupt(() => Effect.sync(() => void state.abandoned++)))

  const designPrefix = `${apiPath}/design/`

  const route = (path: string): { endpoint: Endpoint; designNumber?: string } | undefined => {
    if (path === tokenPath) return { endpoint: "token" }
    if (path === `${apiPath}/search/quick`) return { endpoint: "search" }
    if (path === `${apiPath}/search/advanced`) return { endpoint: "advanced" }
    if (path === `${apiPath}/page/advanced`) return { endpoint: "page" }
    if (path.startsWith(designPrefix)) return { endpoint: "design", designNumber: path.slice(designPrefix.length) }
    return undefined
  }

  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = pathOf(request.url)
    const target = route(path)
    if (target === undefined) {
      return errors(404, [{ code: "NOT_FOUND", detail: `no route for ${request.method} ${path}` }])
    }
    state.requests[target.endpoint]++
    const fault = takeFault(state, target.endpoint)
    if (fault !== undefined) return yield* abandonable(faultResponse(fault))
    if (target.endpoint === "token") return yield* tokenEndpoint(request)
    const denied = yield* authenticate(request)
    if (Option.isSome(denied)) return denied.value
    switch (target.endpoint) {
      case "search":
        return yield* quickSearch(request)
      case "advanced":
        return yield* advancedSearch(request)
      case "page":
        return yield* searchPage(request)
      default:
        return yield* getDesign(request, target.designNumber ?? "")
    }
  }).pipe(
    Effect.catchAllDefect(() => Effect.succeed(statusError(500)))
  )
}
