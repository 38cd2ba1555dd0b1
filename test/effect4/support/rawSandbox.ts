/** A sandbox of the Effect 4 edition and a raw `HttpClient` to it: what the sandbox answers, byte for byte. */
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import type { HttpClient } from "effect/http"
import * as DesignSearchConfig from "../../../src/DesignSearchConfig.js"
import * as Sandbox from "../../../src/Sandbox.js"

export const base = Sandbox.inProcessUrl
export const api = base + DesignSearchConfig.apiPath
export const tokenUrl = base + DesignSearchConfig.tokenPath

/** A sandbox built with `options`, and an in-process client to it. */
export const withSandbox = <A, E>(
  f: (sandbox: Sandbox.Sandbox, client: HttpClient.HttpClient) => Effect.Effect<A, E>,
  options: Sandbox.Options = {}
) => Effect.flatMap(Effect.orDie(Sandbox.make(options)), (sandbox) => f(sandbox, Sandbox.httpClient(sandbox.app)))

/** One exchange: status, headers, body text and, when there is one, the body as JSON. */
export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(client.execute(request), (response) =>
    Effect.map(response.text, (text) => ({
      status: response.status,
      headers: response.headers,
      text,
      json: text !== "" && response.headers["content-type"] === "application/json"
        ? (JSON.parse(text) as Record<string, unknown>)
        : undefined
    })))

export const goodForm = {
  grant_type: "client_credentials",
  client_id: "sandbox-client",
  client_secret: "sandbox-secret"
}

export const tokenRequest = (form: Record<string, string>) =>
  HttpClientRequest.post(tokenUrl).pipe(HttpClientRequest.bodyUrlParams(form))

/** `Bearer <a fresh token>`. */
export const bearer = (client: HttpClient.HttpClient) =>
  Effect.map(send(client, tokenRequest(goodForm)), (r) => `Bearer ${String(r.json?.["access_token"])}`)

/** An API request with a fresh token: `GET` a path, or `POST` a body (a string is sent as is, else as JSON). */
export const call = (client: HttpClient.HttpClient, path: string, body?: unknown) =>
  Effect.flatMap(bearer(client), (authorization) => {
    const request = body === undefined
      ? HttpClientRequest.get(api + path)
      : HttpClientRequest.post(api + path).pipe(
        HttpClientRequest.bodyText(typeof body === "string" ? body : JSON.stringify(body), "application/json")
      )
    return send(client, HttpClientRequest.setHeader(request, "authorization", authorization))
  })

/** The JSON pointers of an errors body, sorted. */
export const pointers = (r: { readonly json?: Record<string, unknown> | undefined }) =>
  (r.json?.["errors"] as Array<{ source: { pointer: string } }>).map((e) => e.source.pointer).sort()
