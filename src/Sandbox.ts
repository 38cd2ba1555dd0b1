/**
 * The sandbox: a simulation of the design search service that behaves as the specification says
 * the real one does (token endpoint, both API operations, spec-shaped errors), over a deterministic
 * dataset, with fault injection, token revocation and counters. `layer` puts it behind an
 * in-process `HttpClient` (no sockets) for an application's tests; `SandboxControl` drives it.
 *
 * @since 0.1.0
 */
import { HttpClient, HttpClientError, HttpClientResponse, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp, HttpBody, HttpServerError } from "@effect/platform"
import { ConfigError, Context, Duration, Effect, FiberRef, Layer, Option, ParseResult, Schema, Stream } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as DesignSearchConfig from "./DesignSearchConfig.js"
import { currentRequestTimeout, markTimeoutAware, RequestTimeout } from "./internal/requestTimeout.js"
import * as App from "./sandbox/App.js"
import { generateDesigns } from "./sandbox/Dataset.js"
import * as SearchIndex from "./sandbox/SearchIndex.js"
import * as Server from "./sandbox/Server.js"
import { positiveInt } from "./sandbox/Settings.js"
import * as State from "./sandbox/State.js"

export { fixedNumbers } from "./sandbox/Dataset.js"
export { listenDefaults } from "./sandbox/Server.js"
export type { ListenOptions, Served } from "./sandbox/Server.js"
export { Fault, FaultTarget } from "./sandbox/State.js"
export type { Stats } from "./sandbox/State.js"

/** @since 0.1.0 */
export interface Options {
  /** Default `sandbox-client`. */
  readonly clientId?: string | undefined
  /** Default `sandbox-secret`. */
  readonly clientSecret?: string | undefined
  /** How many designs the dataset holds (default 500; at least the fixed records). */
  readonly designs?: number | undefined
  /** Seed of the dataset (default 1): the same seed gives the same designs. */
  readonly seed?: number | undefined
  /** `expires_in` of issued tokens (default 3600 seconds, as the spec says). */
  readonly tokenLifetime?: Duration.DurationInput | undefined
  /** Most design numbers a quick search lists; beyond it a `warning` message says so (default 10,000). */
  readonly resultCap?: number | undefined
  /** Largest request body accepted (default 1 MiB). */
  readonly maxRequestBytes?: number | undefined
}

/** @since 0.1.0 */
export const defaults = {
  clientId: "sandbox-client",
  clientSecret: "sandbox-secret",
  designs: 500,
  seed: 1,
  tokenLifetime: Duration.seconds(3600),
  resultCap: 10_000,
  maxRequestBytes: 1024 * 1024
} as const

/** Where the in-process sandbox pretends to live; `.invalid` never resolves, so nothing leaks out. @since 0.1.0 */
export const inProcessUrl = "https://sandbox.design-search.invalid"

/** Drives a sandbox from a test or a tool. @since 0.1.0 */
export interface Control {
  /** Serves a fault to the next `count` requests to its target (faults queue in order). */
  readonly injectFault: (fault: typeof State.Fault.Encoded) => Effect.Effect<void, ParseResult.ParseError>
  /** Revokes every token issued so far: the API answers them with 401. */
  readonly revokeTokens: Effect.Effect<void>
  readonly stats: Effect.Effect<State.Stats>
  /** Drops faults, tokens and counters. */
  readonly reset: Effect.Effect<void>
}

/** @since 0.1.0 */
export class SandboxControl extends Context.Tag("effect-design-search/SandboxControl")<SandboxControl, Control>() {}

/** A sandbox: its app, its control, and the credentials it accepts. @since 0.1.0 */
export interface Sandbox {
  readonly app: HttpApp.Default
  readonly control: Control
  readonly clientId: string
  readonly clientSecret: string
  readonly designCount: number
}

const decodeFault = Schema.decodeUnknown(State.Fault)

/**
 * Builds a sandbox: generates its dataset and index, and a fresh signing key.
 *
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<Sandbox, ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const clientId = options.clientId ?? defaults.clientId
    const clientSecret = options.clientSecret ?? defaults.clientSecret
    if (clientId === "" || clientSecret === "") {
      return yield* Effect.fail(ConfigError.InvalidData(["clientId"], "sandbox credentials must not be empty"))
    }
    const designs = yield* positiveInt("designs", options.designs ?? defaults.designs)
    const seed = options.seed ?? defaults.seed
    const lifetime = Duration.decodeUnknown(options.tokenLifetime ?? defaults.tokenLifetime)
    const tokenLifetimeSeconds = yield* positiveInt(
      "tokenLifetime",
      lifetime._tag === "Some" && Duration.isFinite(lifetime.value) ? Math.round(Duration.toSeconds(lifetime.value)) : NaN
    )
    const resultCap = yield* positiveInt("resultCap", options.resultCap ?? defaults.resultCap)
    const maxRequestBytes = yield* positiveInt("maxRequestBytes", options.maxRequestBytes ?? defaults.maxRequestBytes)
    const index = SearchIndex.make(generateDesigns(designs, seed))
    const state = State.make()
    const app = App.make({
      clientId,
      clientSecret,
      tokenLifetimeSeconds,
      resultCap,
      maxRequestBytes,
      signingKey: randomBytes(32),
      issuer: inProcessUrl,
      index,
      state
    })
    const control: Control = {
      injectFault: (fault) =>
        Effect.flatMap(decodeFault(fault), (f) => Effect.sync(() => void state.faults.push({ fault: f, remaining: f.count }))),
      revokeTokens: Effect.sync(() => state.activeTokens.clear()),
      stats: Effect.sync(() => State.stats(state)),
      reset: Effect.sync(() => State.reset(state))
    }
    return { app, control, clientId, clientSecret, designCount: index.size }
  })

const toBodyInit = (body: HttpBody.HttpBody): Effect.Effect<BodyInit | undefined, unknown> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(undefined)
    case "Uint8Array":
      return Effect.succeed(body.body as BodyInit)
    case "Raw":
      return Effect.succeed(body.body as BodyInit)
    case "FormData":
      return Effect.succeed(body.formData)
    case "Stream":
      return Effect.map(Stream.runCollect(body.stream), (chunks) => Buffer.concat([...chunks]))
  }
}

/**
 * An `HttpClient` that hands every request to `app` in process, with no sockets. Requests and
 * responses still go through the platform's web `Request`/`Response`, so headers and bodies are
 * encoded exactly as they would be on the wire. It enforces the client's request timeout on the
 * app's answer (the body is in memory by then), on the `Clock`, so `TestClock` drives it.
 *
 * @since 0.1.0
 */
export const httpClient = (app: HttpApp.Default): HttpClient.HttpClient =>
  markTimeoutAware(HttpClient.make((request, url, signal) =>
    Effect.gen(function*() {
      const body = yield* Effect.catchAll(toBodyInit(request.body), (cause) =>
        Effect.fail(new HttpClientError.RequestError({ request, reason: "Encode", cause })))
      const webRequest = yield* Effect.try({
        try: () =>
          new Request(url, {
            method: request.method,
            headers: new Headers(request.headers),
            signal,
            ...(body === undefined ? {} : { body })
          }),
        catch: (cause) => new HttpClientError.RequestError({ request, reason: "Encode", cause })
      })
      const timeout = yield* FiberRef.get(currentRequestTimeout)
      const answer = Effect.provideService(app, HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(webRequest))
      const response = yield* Option.match(timeout, {
        onNone: () => answer,
        onSome: (duration) =>
          Effect.timeoutFail(answer, {
            duration,
            onTimeout: () =>
              new HttpClientError.RequestError({ request, reason: "Transport", cause: new RequestTimeout({ timeout: duration }) })
          })
      })
      const reset = response.headers[State.resetHeader]
      if (reset === "reset") {
        return yield* Effect.fail(
          new HttpClientError.RequestError({ request, reason: "Transport", description: "connection reset by the sandbox" })
        )
      }
      return HttpClientResponse.fromWeb(
        request,
        reset === "reset-mid-body" ? cutMidBody(response) : HttpServerResponse.toWeb(response)
      )
    })
  ))

/** The response with its body failing after half of it arrived, as a connection reset would. */
const cutMidBody = (response: HttpServerResponse.HttpServerResponse): Response => {
  const web = HttpServerResponse.toWeb(response)
  const headers = new Headers(web.headers)
  headers.delete(State.resetHeader)
  const bytes = response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array(0)
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2))),
    pull: (controller) => controller.error(new Error("connection reset by the sandbox"))
  })
  return new Response(body, { status: response.status, headers })
}

/**
 * A sandbox behind an in-process `HttpClient`, its `SandboxControl`, and a `DesignSearchConfig`
 * that points at it with its credentials: provide it instead of the network in an application's
 * tests.
 *
 * @since 0.1.0
 */
export const layer = (
  options: Options = {}
): Layer.Layer<HttpClient.HttpClient | SandboxControl | DesignSearchConfig.DesignSearchConfig, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(make(options), (sandbox) =>
    Layer.mergeAll(
      Layer.succeed(HttpClient.HttpClient, httpClient(sandbox.app)),
      Layer.succeed(SandboxControl, sandbox.control),
      DesignSearchConfig.layer({
        clientId: sandbox.clientId,
        clientSecret: sandbox.clientSecret,
        authUrl: inProcessUrl,
        baseUrl: inProcessUrl + DesignSearchConfig.apiPath
      })
    )))

/**
 * Options of `serve`: the sandbox's (`Options`) and where to listen (`port`, default 8787, `0` for
 * any free port; `host`, default `127.0.0.1`, loopback only).
 *
 * @since 0.1.0
 */
export interface ServeOptions extends Options, Server.ListenOptions {}

/**
 * Builds a sandbox and serves it over loopback HTTP until the scope closes: the same app as
 * `make`, plus the control routes `POST /__sandbox/faults`, `GET /__sandbox/stats`,
 * `POST /__sandbox/revoke-tokens` and `POST /__sandbox/reset`. The result says where it listens
 * (`url`, `port`) and holds the in-process `control` too.
 *
 * @since 0.1.0
 */
export const serve = (
  options: ServeOptions = {}
): Effect.Effect<Server.Served, ConfigError.ConfigError | HttpServerError.ServeError, Scope.Scope> =>
  Effect.flatMap(make(options), (sandbox) => Server.serve(sandbox, options))
