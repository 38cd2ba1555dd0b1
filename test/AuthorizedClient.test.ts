/**
 * The `AuthorizedClient`: any request of the family's APIs sent with the client's token, renewal,
 * retries and budget, its answers read by `apiResponse` as the operations read theirs.
 */
import { forkChild, HttpClient, HttpClientRequest, HttpClientResponse } from "#edition/internal/seam"
import { configErrorPath, failureOption, hasDie, poll, TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Redacted, Schedule, Schema } from "effect"
import fc from "fast-check"
import { AuthorizedClient, DesignSearchClient, RequestBudget, Sandbox, TokenService } from "../src/index.js"
import { sandboxLayer, sandboxStats } from "./support/layers.js"
import type { TestOptions } from "./support/layers.js"

const Authorized = AuthorizedClient.AuthorizedClient
const control = Sandbox.SandboxControl
const chair = Sandbox.fixedNumbers.chair
const designPath = AuthorizedClient.apiPaths.designSearch
const Any = Schema.Unknown

/** The authorized client and the sandbox behind it. */
const authorizedLayer = (options: AuthorizedClient.Options = {}, test: TestOptions = {}) =>
  AuthorizedClient.layer(options).pipe(Layer.provideMerge(sandboxLayer(test)))

/** A JSON request. */
const postJson = (url: string, body: unknown) =>
  HttpClientRequest.bodyText(HttpClientRequest.post(url), JSON.stringify(body), "application/json")

/** The status and `apiResponse` outcome of `request`. */
const answer = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(Authorized, (client) =>
    Effect.flatMap(client.execute(request), (response) =>
      Effect.map(
        Effect.exit(AuthorizedClient.apiResponse(Any)(response)),
        (read) => ({ status: response.status, headers: response.headers, read })
      )))

const tagOf = <A, E extends { readonly _tag: string }>(exit: Exit.Exit<A, E>) =>
  Exit.isSuccess(exit)
    ? "success"
    : Option.match(failureOption(exit.cause), { onNone: () => "", onSome: (e) => e._tag })

describe("AuthorizedClient", () => {
  it.effect("shares one token with DesignSearchClient when both layers are built together", () =>
    Effect.gen(function*() {
      const design = yield* (yield* DesignSearchClient.DesignSearchClient).getDesign(chair)
      const client = yield* Authorized
      const got = yield* Effect.flatMap(client.get(`/design/${chair}`), AuthorizedClient.apiResponse(Any))
      yield* client.execute(postJson("/search/quick", { query: "chair" }))
      expect(got.data).toMatchObject({ number: chair, title: design.data.title })
      expect((yield* sandboxStats).requests).toMatchObject({ token: 1, design: 2, search: 1 })
    }).pipe(Effect.provide(
      Layer.mergeAll(DesignSearchClient.layer(), AuthorizedClient.layer()).pipe(Layer.provideMerge(sandboxLayer()))
    )))

  it.effect("waits for the one budget the design search operations take their turns of", () =>
    Effect.gen(function*() {
      yield* (yield* DesignSearchClient.DesignSearchClient).getDesign(chair)
      const client = yield* Authorized
      yield* client.get(`/design/${chair}`)
      const third = yield* forkChild(client.get(`/design/${chair}`))
      yield* TestClock.adjust("100 millis")
      expect(Option.isNone(yield* poll(third))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(third)).status).toBe(200)
      expect((yield* sandboxStats).requests.design).toBe(3)
    }).pipe(Effect.provide(
      Layer.mergeAll(DesignSearchClient.layer(), AuthorizedClient.layer()).pipe(
        Layer.provideMerge(sandboxLayer()),
        Layer.provideMerge(RequestBudget.layer({ requestsPerSecond: 1, burst: 2 }))
      )
    )))

  it.effect("renews the token once after a 401 and tries once more", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 401 })
      const { read, status } = yield* answer(HttpClientRequest.get(`/design/${chair}`))
      expect([status, tagOf(read)]).toEqual([200, "success"])
      expect((yield* sandboxStats).requests).toMatchObject({ token: 2, design: 2 })
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("a 401 for the renewed token too is the response: apiResponse reads it as an AuthenticationError", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) yield* (yield* control).injectFault({ target: "design", status: 401 })
      const { read, status } = yield* answer(HttpClientRequest.get(`/design/${chair}`))
      expect([status, tagOf(read)]).toEqual([401, "AuthenticationError"])
      expect((yield* sandboxStats).requests).toMatchObject({ token: 2, design: 2 })
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("a 403 is never refreshed: one request, one token, a ForbiddenError", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 403, body: { message: "Invalid Client" } })
      const { read, status } = yield* answer(HttpClientRequest.get(`/design/${chair}`))
      expect([status, tagOf(read)]).toEqual([403, "ForbiddenError"])
      expect((yield* sandboxStats).requests).toMatchObject({ token: 1, design: 1 })
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("retries a GET's 503 and a search's, but sends any other POST once unless it got a 429", () =>
    Effect.gen(function*() {
      const faults = yield* control
      yield* faults.injectFault({ target: "design", status: 503 })
      expect((yield* answer(HttpClientRequest.get(`/design/${chair}`))).status).toBe(200)
      yield* faults.injectFault({ target: "search", status: 503 })
      expect((yield* answer(postJson("/search/quick", { query: "chair" }))).status).toBe(200)
      const renewal = "/public/ipright-management-b2b-api/v1/patents/2019100001/renew"
      yield* faults.injectFault({ target: "any", match: { path: renewal }, status: 503 })
      const once = yield* answer(HttpClientRequest.post(renewal))
      expect([once.status, tagOf(once.read)]).toEqual([503, "ServerError"])
      yield* faults.injectFault({
        target: "any",
        match: { path: renewal },
        status: 429,
        headers: { "retry-after": "0" }
      })
      expect((yield* answer(HttpClientRequest.post(renewal))).status).toBe(404)
      const sent = yield* faults.requests({ path: renewal })
      expect(sent.entries.map((r) => r.status)).toEqual([503, 429, 404])
    }).pipe(Effect.provide(authorizedLayer({ retrySchedule: Schedule.recurs(2) }))))

  it.effect("addresses relative URLs below the chosen API, /public/ paths below the host, absolute URLs as they are", () =>
    Effect.gen(function*() {
      const client = yield* Authorized
      yield* client.get(`/design/${chair}`)
      yield* client.get("/public/australian-trade-mark-search-api/v1/trade-mark/1")
      yield* client.get(`${Sandbox.inProcessUrl}${designPath}/design/${chair}?x=1`)
      const paths = (yield* (yield* control).requests()).entries.map((
        r
      ) => [r.path, r.headers["authorization"] !== undefined])
      expect(paths.filter(([path]) => !String(path).includes("token"))).toEqual([
        [`${designPath}/design/${chair}`, true],
        ["/public/australian-trade-mark-search-api/v1/trade-mark/1", true],
        [`${designPath}/design/${chair}`, true]
      ])
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("a named API or a base path is where relative URLs go; anything else is a ConfigError naming api", () =>
    Effect.gen(function*() {
      const paths = (api: AuthorizedClient.Options["api"]) =>
        Effect.gen(function*() {
          yield* (yield* Authorized).post("/search/quick")
          return (yield* (yield* control).requests({ target: "any" })).entries.map((r) => r.path).at(-1)
        }).pipe(Effect.provide(authorizedLayer({ api })))
      expect(yield* paths("tradeMarkSearch")).toBe("/public/australian-trade-mark-search-api/v1/search/quick")
      expect(yield* paths("/public/other-api/v2/")).toBe("/public/other-api/v2/search/quick")
      const refused = yield* Effect.flip(Effect.scoped(Layer.build(authorizedLayer({ api: "trade marks" as "/x" }))))
      expect(configErrorPath(refused)).toEqual(["api"])
    }))

  it.effect("never sends the token to another origin, directly or by a redirect a transformClient follows", () => {
    const seen: Array<readonly [string, string | undefined]> = []
    const elsewhere = (sandbox: HttpClient.HttpClient) =>
      HttpClient.make((request) => {
        seen.push([request.url, request.headers["authorization"]])
        return request.url.startsWith("https://elsewhere.example")
          ? Effect.succeed(HttpClientResponse.fromWeb(request, new Response("{}", { status: 200 })))
          : sandbox.execute(request)
      })
    return Effect.gen(function*() {
      const client = yield* Authorized
      const location = "https://elsewhere.example/collect"
      yield* (yield* control).injectFault({ target: "design", status: 302, headers: { location } })
      expect((yield* client.get(`/design/${chair}`)).status).toBe(200)
      expect((yield* client.get("https://elsewhere.example/direct")).status).toBe(200)
      expect(seen.filter(([url]) => url.startsWith("https://elsewhere.example"))).toEqual([
        [location, undefined],
        ["https://elsewhere.example/direct", undefined]
      ])
      expect(seen.find(([url]) => url.includes("/design/"))?.[1]).toMatch(/^Bearer /)
    }).pipe(Effect.provide(
      authorizedLayer({ transformClient: HttpClient.followRedirects(3) }, { ambient: elsewhere })
    ))
  })

  it.effect("a redirect is never followed with the token by itself: the 3xx is the response", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "design", status: 307, headers: { location: "/elsewhere" } })
      const { read, status } = yield* answer(HttpClientRequest.get(`/design/${chair}`))
      expect([status, tagOf(read)]).toEqual([307, "UnexpectedResponseError"])
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("apiResponse tells a 400 from a 422, and keeps the messages beside the data", () =>
    Effect.gen(function*() {
      const faults = yield* control
      const errors = [{ code: "BAD", detail: "no" }]
      yield* faults.injectFault({ target: "search", status: 400, body: { errors } })
      yield* faults.injectFault({ target: "search", status: 422, body: { errors } })
      const message = { code: "NOTE", detail: "beta", severity: "info" }
      yield* faults.injectFault({ target: "search", status: 200, body: { data: { n: 1 }, messages: [message] } })
      const quick = () => answer(HttpClientRequest.post("/search/quick"))
      expect(tagOf((yield* quick()).read)).toBe("BadRequestError")
      const validation = (yield* quick()).read
      expect(Exit.isFailure(validation) && Option.getOrUndefined(failureOption(validation.cause))).toMatchObject({
        _tag: "ValidationError",
        origin: "server",
        errors
      })
      expect((yield* quick()).read).toEqual(Exit.succeed({ data: { n: 1 }, messages: [message] }))
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("a trade mark quick search and a renewal, as docs/library.md writes them, with faults playing those APIs", () =>
    Effect.gen(function*() {
      const faults = yield* control
      const search = `${AuthorizedClient.apiPaths.tradeMarkSearch}/search/quick`
      const renewal = "/public/ipright-management-b2b-api/v1/patents/2019100001/renew"
      yield* faults.injectFault({
        target: "any",
        match: { path: search },
        status: 200,
        body: { count: 1, trademarkIds: ["1"] }
      })
      yield* faults.injectFault({
        target: "any",
        match: { path: renewal },
        status: 200,
        body: { data: {}, messages: [] }
      })
      const client = yield* Authorized
      const TradeMarkIds = Schema.Struct({ count: Schema.Number, trademarkIds: Schema.Array(Schema.String) })
      const body = { query: "wattle", filters: { quickSearchType: ["WORD"], status: ["REGISTERED"] } }
      const found = yield* Effect.flatMap(
        client.execute(postJson(search, body)),
        AuthorizedClient.apiResponse(TradeMarkIds)
      )
      expect(found.data).toEqual({ count: 1, trademarkIds: ["1"] })
      const renewed = { submitterReference: "renewals-2026-12", numOfYearsToRenew: "1" }
      yield* Effect.flatMap(client.execute(postJson(renewal, renewed)), AuthorizedClient.apiResponse(Any))
      const sent = (yield* faults.requests({ target: "any" })).entries.filter((e) => e.target === undefined)
      expect(sent.map((e) => [e.path, e.body, e.headers["authorization"] !== undefined])).toEqual([
        [search, body, true],
        [renewal, renewed, true]
      ])
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("apiResponse decodes with the application's schema: a body that does not fit is an UnexpectedResponseError", () =>
    Effect.gen(function*() {
      const Renewal = Schema.Struct({ renewed: Schema.Boolean })
      yield* (yield* control).injectFault({ target: "design", status: 200, body: { renewed: "yes" } })
      const response = yield* (yield* Authorized).get(`/design/${chair}`)
      const read = yield* Effect.exit(AuthorizedClient.apiResponse(Renewal)(response))
      expect(tagOf(read)).toBe("UnexpectedResponseError")
    }).pipe(Effect.provide(authorizedLayer())))

  it.effect("no answer is a defect, and an echoed token is masked out of the body and the headers", () =>
    Effect.gen(function*() {
      const token = Redacted.value((yield* (yield* TokenService.TokenService).get).token)
      const faults = yield* control
      const bodies = fc.oneof(
        fc.string(),
        fc.json(),
        fc.constant(`{"errors":[{"code":"${token}"}],"echo":"${token}"}`),
        fc.constant("[".repeat(5000))
      )
      const samples = fc.sample(fc.tuple(fc.integer({ min: 200, max: 599 }), bodies), { numRuns: 60, seed: 7 })
      for (const [status, body] of samples) {
        const empty = status === 204 || status === 205 || status === 304
        yield* faults.injectFault({
          target: "design",
          status,
          ...(empty ? {} : { body }),
          headers: { "x-echo": token }
        })
        const exit = yield* Effect.exit(answer(HttpClientRequest.get(`/design/${chair}`)))
        expect(Exit.isFailure(exit) && hasDie(exit.cause)).toBe(false)
        const text = JSON.stringify(Exit.isSuccess(exit) ? [exit.value.headers, exit.value.read] : exit)
        expect(text).not.toContain(token)
      }
    }).pipe(Effect.provide(authorizedLayer({ retrySchedule: Schedule.recurs(0) }))))
})
