/** A sandbox and a raw `HttpClient` to it: what the sandbox answers, byte for byte; a cassette's file. */
import { HttpClientRequest } from "#edition/internal/seam"
import type { HttpClient } from "#edition/internal/seam"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DesignSearchConfig, Sandbox } from "../../src/index.js"

export const base = Sandbox.inProcessUrl
export const api = base + DesignSearchConfig.apiPath
export const tokenUrl = base + DesignSearchConfig.tokenPath

/** A sandbox built with `options`, and an in-process client to it. */
export const withSandbox = <A, E, R>(
  f: (sandbox: Sandbox.Sandbox, client: HttpClient.HttpClient) => Effect.Effect<A, E, R>,
  options: Sandbox.Options = {}
) => Effect.flatMap(Effect.orDie(Sandbox.make(options)), (sandbox) => f(sandbox, Sandbox.httpClient(sandbox.app)))

/** One exchange: status, headers, body text and, when there is one, the body as JSON. */
export const send = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(client.execute(request), (response) =>
    Effect.map(response.text, (text) => ({
      status: response.status,
      headers: response.headers as Readonly<Record<string, string | undefined>>,
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

/** A token request with `form`, to the sandbox at `at` (the in-process one unless said). */
export const tokenRequest = (form: Record<string, string>, at = base) =>
  HttpClientRequest.post(at + DesignSearchConfig.tokenPath).pipe(HttpClientRequest.bodyUrlParams(form))

/** `Bearer <a fresh token>`. */
export const bearer = (client: HttpClient.HttpClient, at = base) =>
  Effect.map(send(client, tokenRequest(goodForm, at)), (r) => `Bearer ${String(r.json?.["access_token"])}`)

/** An API request with a fresh token: `GET` a path, or `POST` a body (a string is sent as is, else as JSON). */
export const call = (client: HttpClient.HttpClient, path: string, body?: unknown, at = base) =>
  Effect.flatMap(bearer(client, at), (authorization) => {
    const url = at + DesignSearchConfig.apiPath + path
    const request = body === undefined
      ? HttpClientRequest.get(url)
      : HttpClientRequest.post(url).pipe(
        HttpClientRequest.bodyText(typeof body === "string" ? body : JSON.stringify(body), "application/json")
      )
    return send(client, HttpClientRequest.setHeader(request, "authorization", authorization))
  })

/** The sandbox's counters: `requests` as given (the others none), a token issued for each token request. */
export const counters = (requests: Partial<Sandbox.Stats["requests"]> = {}): Sandbox.Stats => ({
  tokensIssued: requests.token ?? 0,
  requests: { token: 0, search: 0, design: 0, advanced: 0, page: 0, ...requests },
  abandoned: 0
})

/** The JSON pointers of an errors body, sorted. */
export const pointers = (r: { readonly json?: Record<string, unknown> | undefined }) =>
  (r.json?.["errors"] as Array<{ source: { pointer: string } }>).map((e) => e.source.pointer).sort()

/** The path of a cassette in a temporary folder, removed with the scope. */
export const tempFile: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "design-search-cassette-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  ),
  (dir) => path.join(dir, "cassette.json")
)
