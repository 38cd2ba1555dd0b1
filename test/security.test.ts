import { FetchHttpClient, HttpClient, requestError } from "#edition/internal/seam"
import { logsTo } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import { DesignSearchClient, DesignSearchConfig, Sandbox, TokenService } from "../src/index.js"
import { clientLayer, sandboxLayer, withTime } from "./support/layers.js"
import { listening } from "./support/loopback.js"
import { recordingTracer } from "./support/tracing.js"

const secret = "top-secret-credential-9f8e7d"
const Client = DesignSearchClient.DesignSearchClient

/** Everything the toolkit could show of itself while `effect` runs: errors, causes, logs, spans. */
const observe = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const logs: Array<string> = []
    const { spans, tracer } = yield* recordingTracer
    const exit = yield* effect.pipe(
      Effect.exit,
      Effect.withTracer(tracer),
      logsTo("All", ({ annotations, cause, message }) => {
        logs.push(JSON.stringify({ message, cause: Cause.pretty(cause), annotations }))
      })
    )
    const shown = [
      ...logs,
      ...spans.flatMap((s) => [s.name, ...[...s.attributes].map(([k, v]) => `${k}=${String(v)}`)]),
      Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "",
      Exit.isFailure(exit) ? JSON.stringify(Cause.squash(exit.cause)) : "",
      Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : ""
    ]
    return { exit, shown, spans }
  })

describe("secrets never escape", () => {
  it.effect("neither the client secret nor the token shows in errors, causes, logs or spans", () =>
    Effect.gen(function*() {
      const token = yield* (yield* TokenService.TokenService).get
      const tokenValue = Redacted.value(token.token)
      const sandbox = yield* Sandbox.SandboxControl
      const client = yield* Client
      yield* sandbox.injectFault({ target: "design", status: 500 })
      yield* sandbox.injectFault({ target: "search", status: 401, count: 2 })
      const results = [
        yield* observe(client.getDesign(Sandbox.fixedNumbers.chair)),
        yield* observe(client.quickSearch({ query: "chair" })),
        yield* observe(client.getDesign(Sandbox.fixedNumbers.bottle))
      ]
      expect(results.map((r) => r.exit._tag)).toEqual(["Failure", "Failure", "Success"])
      expect(results.flatMap((r) => r.spans).length).toBeGreaterThan(0)
      for (const text of results.flatMap((r) => r.shown)) {
        expect(text).not.toContain(secret)
        expect(text).not.toContain(tokenValue)
      }
    }).pipe(Effect.provide(clientLayer({ sandbox: { clientSecret: secret }, config: { clientSecret: secret } }))))

  it.effect("a refused secret shows in no TokenError, cause or log", () =>
    Effect.gen(function*() {
      const { exit, shown } = yield* observe((yield* Client).quickSearch({ query: "chair" }))
      expect(Exit.isFailure(exit)).toBe(true)
      for (const text of shown) expect(text).not.toContain(secret)
    }).pipe(Effect.provide(clientLayer({ config: { clientSecret: secret } }))))
})

describe("a client that quotes the request in its failure", () => {
  const bodyText = (body: unknown) =>
    typeof body === "object" && body !== null && "body" in body && body.body instanceof Uint8Array
      ? new TextDecoder().decode(body.body)
      : ""
  /** `client` failing every request, quoting its credentials and body, as some proxies and agents do. */
  const quoting = (client: HttpClient.HttpClient) =>
    HttpClient.transform(client, (_, request) =>
      Effect.fail(requestError(request, "Transport", {
        description: `refused ${request.headers["authorization"]} ${bodyText(request.body)}`
      })))

  it.effect("shows no token in the TransportError of an API call", () =>
    Effect.gen(function*() {
      const tokenValue = Redacted.value((yield* (yield* TokenService.TokenService).get).token)
      const { exit, shown } = yield* withTime(
        observe((yield* Client).getDesign(Sandbox.fixedNumbers.chair)),
        "1 minute"
      )
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({ _tag: "TransportError" })
      expect(shown.join("\n")).toContain("Bearer [redacted]")
      for (const text of shown) expect(text).not.toContain(tokenValue)
    }).pipe(Effect.provide(clientLayer({ client: { transformClient: quoting } }))))

  it.effect("shows no client secret in the TokenError of a token request", () =>
    Effect.gen(function*() {
      const { exit, shown } = yield* withTime(observe((yield* Client).quickSearch({ query: "chair" })), "1 minute")
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toMatchObject({ _tag: "TokenError" })
      expect(shown.join("\n")).toContain("[redacted]")
      for (const text of shown) expect(text).not.toContain(secret)
    }).pipe(Effect.provide(
      DesignSearchClient.layer().pipe(
        Layer.provide(Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, quoting))),
        Layer.provideMerge(sandboxLayer({ sandbox: { clientSecret: secret }, config: { clientSecret: secret } }))
      )
    )))
})

describe("the Authorization header goes only to the configured API origin", () => {
  it.effect("a redirect to another origin is not followed, and nothing is sent there", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.SandboxControl
      yield* sandbox.injectFault({
        target: "design",
        status: 302,
        headers: { location: "https://elsewhere.example/steal" }
      })
      const error = yield* Effect.flip((yield* Client).getDesign(Sandbox.fixedNumbers.chair))
      expect(error).toMatchObject({ _tag: "UnexpectedResponseError", status: 302 })
    }).pipe(Effect.provide(clientLayer())))

  it.live("over FetchHttpClient, no operation follows a redirect: the 302 is the answer", () =>
    Effect.scoped(Effect.gen(function*() {
      const elsewhere: Array<string | undefined> = []
      const other = yield* listening(createServer((req, res) => {
        elsewhere.push(req.url)
        res.writeHead(200, { "content-type": "application/json" }).end("{\"number\":\"1\"}")
      }))
      const api = yield* listening(createServer((req, res) =>
        req.url?.endsWith("/access_token")
          ? void res.writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ access_token: "a.b.c", expires_in: 3600, token_type: "Bearer" }))
          : void res.writeHead(302, { location: `http://127.0.0.1:${other}/steal` }).end()
      ))
      const client = yield* Effect.map(
        Layer.build(
          DesignSearchClient.layer().pipe(
            Layer.provide(FetchHttpClient.layer),
            Layer.provide(Layer.orDie(DesignSearchConfig.layer({
              clientId: "id",
              clientSecret: secret,
              authUrl: `http://127.0.0.1:${api}`,
              baseUrl: `http://127.0.0.1:${api}/api`
            })))
          )
        ),
        Context.get(Client)
      )
      const rows = [{ op: "AND" as const, query: { productName: "chair" } }]
      const errors = yield* Effect.all([
        Effect.flip(client.getDesign("201900001")),
        Effect.flip(client.quickSearch({ query: "chair" })),
        Effect.flip(client.advancedSearch({ rows })),
        Effect.flip(client.searchPage({ rows, pageNumber: 0, pageSize: 10 }))
      ])
      expect(errors.map((e) => [e._tag, "status" in e ? e.status : undefined])).toEqual(
        Array(4).fill(["UnexpectedResponseError", 302])
      )
      expect(elsewhere).toEqual([])
    })))

  it.effect("even a transformClient that follows redirects never carries the token off the API origin", () =>
    Effect.gen(function*() {
      const sandbox = yield* Effect.orDie(Sandbox.make())
      const sent: Array<{ url: string; authorization: string | undefined }> = []
      const inProcess = Sandbox.httpClient(sandbox.app)
      // recorded at the wire: what is really sent, redirects included
      const wire = HttpClient.make((request) => {
        sent.push({ url: request.url, authorization: request.headers["authorization"] })
        return inProcess.execute(request)
      })
      const layer = DesignSearchClient.layer({ transformClient: HttpClient.followRedirects(3) }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, wire)),
        Layer.provide(Layer.orDie(DesignSearchConfig.layer({
          clientId: sandbox.clientId,
          clientSecret: sandbox.clientSecret,
          authUrl: Sandbox.inProcessUrl,
          baseUrl: Sandbox.inProcessUrl + DesignSearchConfig.apiPath
        })))
      )
      yield* sandbox.control.injectFault({
        target: "design",
        status: 302,
        headers: { location: "https://sandbox.design-search.invalid.evil.example/x" }
      })
      yield* Effect.exit(Effect.provide(Effect.flatMap(Client, (c) => c.getDesign(Sandbox.fixedNumbers.chair)), layer))
      const api = sent.filter((s) => s.url.includes("/design/"))
      const offOrigin = sent.filter((s) => s.url.includes("evil.example"))
      expect(api[0]?.authorization).toMatch(/^Bearer /)
      expect(offOrigin).toHaveLength(1)
      expect(offOrigin[0]?.authorization).toBeUndefined()
    }))
})
