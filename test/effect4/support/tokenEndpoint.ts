/**
 * A token endpoint of the tests' own, as an `HttpClient`: it issues a new token to each request with
 * the right secret (401 `invalid_client` otherwise), counts requests, and answers injected faults
 * first, in order, each after its delay on the `Clock` (so `TestClock` drives it).
 */
import { Context, Duration, Effect, Layer } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as DesignSearchConfig from "../../../src/DesignSearchConfig.js"
import * as TokenService from "../../../src/TokenService.js"

export const clientId = "test-client"
export const clientSecret = "test-secret-4b1d"

export interface Fault {
  readonly status: number
  readonly body?: string | object
  readonly headers?: Record<string, string>
  readonly delay?: Duration.Input
  /** How many requests it answers (1 unless told). */
  readonly count?: number
}

export interface Service {
  /** Token requests answered or in progress. */
  readonly requests: Effect.Effect<number>
  readonly inject: (fault: Fault) => Effect.Effect<void>
}

export class TokenEndpoint extends Context.Service<TokenEndpoint, Service>()("test/TokenEndpoint") {}

const formOf = (body: unknown): URLSearchParams =>
  new URLSearchParams(body instanceof Uint8Array ? new TextDecoder().decode(body) : "")

/** The endpoint (`TokenEndpoint`), the `HttpClient` that reaches it, and a configuration for it. */
export const layer = (
  options: {
    readonly lifetime?: Duration.Input
    readonly secret?: string
    readonly config?: Partial<DesignSearchConfig.Options>
  } = {}
) =>
  Layer.unwrap(Effect.sync(() => {
    let requests = 0
    let issued = 0
    const faults: Array<Fault & { left: number }> = []
    const lifetime = Duration.toSeconds(Duration.fromInputUnsafe(options.lifetime ?? "1 hour"))
    const answer = (status: number, body: string | object, headers: Record<string, string> = {}) =>
      new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers })
    const client = HttpClient.make((request) =>
      Effect.suspend(() => {
        requests++
        const fault = faults[0]
        if (fault !== undefined && --fault.left === 0) faults.shift()
        const secret = formOf(request.body._tag === "Uint8Array" ? request.body.body : undefined).get("client_secret")
        const response = fault !== undefined
          ? answer(fault.status, fault.body ?? "", fault.headers)
          : secret !== clientSecret
          ? answer(401, { error: "invalid_client", error_description: "Client authentication failed" })
          : answer(200, { access_token: `token-${++issued}`, expires_in: lifetime, token_type: "Bearer" })
        return Effect.as(Effect.sleep(fault?.delay ?? 0), HttpClientResponse.fromWeb(request, response))
      })
    )
    const endpoint: Service = {
      requests: Effect.sync(() => requests),
      inject: (fault) => Effect.sync(() => void faults.push({ ...fault, left: fault.count ?? 1 }))
    }
    return Layer.mergeAll(
      Layer.succeed(TokenEndpoint, endpoint),
      Layer.succeed(HttpClient.HttpClient, client),
      Layer.orDie(DesignSearchConfig.layer({
        clientId,
        clientSecret: options.secret ?? clientSecret,
        authUrl: "https://auth.example",
        baseUrl: "https://api.example/designs",
        ...options.config
      }))
    )
  }))

/** A `TokenService` over the endpoint, which stays in the context beside it. */
export const serviceLayer = (
  options: Parameters<typeof layer>[0] & { readonly retrySchedule?: TokenService.Options["retrySchedule"] } = {}
) => TokenService.layer({ retrySchedule: options.retrySchedule }).pipe(Layer.provideMerge(layer(options)))

/** The endpoint's request count. */
export const requests = Effect.flatMap(TokenEndpoint, (e) => e.requests)
