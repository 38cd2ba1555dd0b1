/**
 * Raw requests to the in-process sandbox (its app and its `/__sandbox/*` control routes), grouped in
 * scenarios each run on a fresh sandbox with the clock at 0, and what is read of their answers:
 * status, headers sorted by name (no `date`), and the body as text, a token's signature (its key is
 * drawn afresh by each sandbox) left out. `sandbox-transcript.json` holds the Effect 3 sandbox's
 * answers (`npm run parity:record`); both editions answer the same bytes. Plain data: no `effect` import.
 */
import { fixedNumbers } from "../../src/core/sandbox/dataset.js"
import { apiPath, designPath, tokenPath } from "../../src/core/wire/service.js"

export interface RawRequest {
  readonly method: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** Sends `authorization: Bearer` and the last token this scenario was issued. */
  readonly bearer?: boolean
}

export interface Scenario {
  readonly name: string
  /** Options of the scenario's sandbox (`Sandbox.Options`, in plain units). */
  readonly sandbox?: {
    readonly designs?: number
    readonly seed?: number
    readonly resultCap?: number
    readonly resultField?: "designNumbers" | "designIds"
    readonly tokenLifetimeSeconds?: number
    readonly maxRequestBytes?: number
    readonly journalSize?: number
  }
  readonly requests: ReadonlyArray<RawRequest>
}

/** What is kept of an answer. */
export interface Answer {
  readonly request: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Where the sandbox's requests are sent, and the address its control routes take as their own. */
export const origin = "https://sandbox.design-search.invalid"
export const ownAddress = { host: "127.0.0.1", port: 8787 } as const

const form = { "content-type": "application/x-www-form-urlencoded" }
const json = { "content-type": "application/json" }
const grant = "grant_type=client_credentials&client_id=sandbox-client&client_secret=sandbox-secret"
const token: RawRequest = { method: "POST", path: tokenPath, headers: form, body: grant }
const post = (path: string, body: unknown, bearer = true): RawRequest => ({
  method: "POST",
  path,
  headers: json,
  body: typeof body === "string" ? body : JSON.stringify(body),
  bearer
})
const quick = `${apiPath}/search/quick`
const advanced = `${apiPath}/search/advanced`
const paged = `${apiPath}/page/advanced`
const control = (name: string) => `/__sandbox/${name}`
const byOwner = { rows: [{ op: "AND", query: { owner: "ltd", statuses: ["REGISTERED", "FILED"] } }] }

export const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "token endpoint",
    requests: [
      token,
      { ...token, body: grant.replace("sandbox-secret", "wrong") },
      { ...token, body: "grant_type=client_credentials" },
      { ...token, body: grant.replace("client_credentials", "password") },
      { ...token, headers: json, body: JSON.stringify({ grant_type: "client_credentials" }) },
      { method: "GET", path: tokenPath }
    ]
  },
  {
    name: "quick search",
    requests: [
      token,
      post(quick, { query: "chair" }),
      post(quick, { query: "zzzzqqqq" }),
      post(quick, { query: "" }),
      post(quick, { query: "chair", colour: "red" }),
      post(quick, "{not json"),
      post(quick, { query: "chair" }, false),
      { ...post(quick, { query: "chair" }, false), headers: { ...json, authorization: "Bearer not.a.token" } },
      { method: "GET", path: quick, bearer: true }
    ]
  },
  {
    name: "advanced search",
    requests: [
      token,
      post(advanced, byOwner),
      post(advanced, { rows: [{ op: "AND", query: { owner: "ltd", colour: "red" } }] }),
      post(advanced, { rows: [{ op: "AND", query: { date: { type: "SOMETIME", from: "2020-01-01" } } }] }),
      post(advanced, { rows: [{ op: "XOR", query: { owner: "ltd" } }] }),
      post(advanced, { rows: [] })
    ]
  },
  {
    name: "paged search",
    requests: [
      token,
      post(paged, { ...byOwner, pageNumber: 0, pageSize: 3 }),
      post(paged, { ...byOwner, pageNumber: 1000, pageSize: 3 }),
      post(paged, { ...byOwner, pageNumber: 0, pageSize: 101 }),
      post(paged, { ...byOwner, pageNumber: -1, pageSize: 3 }),
      post(paged, { ...byOwner, pageNumber: 0.5, pageSize: 3 }),
      post(paged, { ...byOwner, pageNumber: 0, pageSize: 1.5 }),
      post(paged, { ...byOwner, pageNumber: "1", pageSize: "3" })
    ]
  },
  {
    name: "design by number",
    requests: [
      token,
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      { method: "GET", path: designPath + fixedNumbers.wristWatch, bearer: true },
      { method: "GET", path: designPath + "100000000", bearer: true },
      { method: "GET", path: designPath + "not%20a%20number!", bearer: true },
      { method: "POST", path: designPath + fixedNumbers.chair, bearer: true },
      { method: "HEAD", path: designPath + fixedNumbers.chair, bearer: true },
      { method: "HEAD", path: designPath + "100000000", bearer: true },
      { method: "GET", path: "/nothing/here" },
      { method: "HEAD", path: "/nothing/here" }
    ]
  },
  {
    name: "control routes",
    requests: [
      token,
      { method: "GET", path: control("stats") },
      { method: "GET", path: control("requests") + "?target=token" },
      { method: "GET", path: control("requests") + "?target=nowhere" },
      post(control("touch"), { numbers: [fixedNumbers.chair] }, false),
      post(control("touch"), { numbers: ["999999999", fixedNumbers.chair] }, false),
      { method: "POST", path: control("touch"), headers: { "content-type": "text/plain" }, body: "{}" },
      { method: "POST", path: control("touch"), body: "{}" },
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      { method: "POST", path: control("revoke-tokens") },
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      { method: "GET", path: control("stats"), headers: { origin: "https://example.com" } },
      { method: "GET", path: control("stats"), headers: { origin: "http://127.0.0.1:8787" } },
      { method: "GET", path: control("faults") },
      { method: "GET", path: control("nothing") },
      { method: "POST", path: control("reset") },
      { method: "GET", path: control("stats") }
    ]
  },
  {
    name: "a sandbox of other options",
    sandbox: {
      designs: 60,
      seed: 7,
      resultCap: 2,
      resultField: "designIds",
      tokenLifetimeSeconds: 600,
      maxRequestBytes: 200,
      journalSize: 3
    },
    requests: [
      token,
      post(quick, { query: "chair" }),
      post(advanced, { rows: [{ op: "AND", query: { owner: "ltd" } }] }),
      post(paged, { rows: [{ op: "AND", query: { owner: "ltd" } }], pageNumber: 0, pageSize: 2 }),
      post(quick, { query: "x".repeat(300) }),
      { method: "GET", path: designPath + fixedNumbers.bottle, bearer: true },
      { method: "GET", path: control("requests") },
      { method: "GET", path: control("stats") }
    ]
  },
  {
    name: "matched faults and the journal's filters",
    requests: [
      token,
      post(control("faults"), { target: "design", status: 404, match: { designNumber: fixedNumbers.bottle } }, false),
      post(
        control("faults"),
        { target: "advanced", status: 422, match: { body: { "rows[0].query.owner": "Nobody" } } },
        false
      ),
      post(control("faults"), { target: "page", status: 503, after: 1, times: 2, match: { pageNumber: 1 } }, false),
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      { method: "GET", path: designPath + fixedNumbers.bottle, bearer: true },
      post(advanced, { rows: [{ op: "AND", query: { owner: "ltd" } }] }),
      post(advanced, { rows: [{ op: "AND", query: { owner: "Nobody" } }] }),
      ...[1, 1, 1, 1, 2].map((pageNumber) => post(paged, { ...byOwner, pageNumber, pageSize: 2 })),
      { method: "GET", path: control("requests") + "?target=page&pageNumber=1" },
      { method: "GET", path: control("requests") + `?target=design&designNumber=${fixedNumbers.bottle}` },
      {
        method: "GET",
        path: control("requests") + "?target=advanced&body=%7B%22rows%5B0%5D.query.owner%22%3A%22Nobody%22%7D"
      },
      { method: "GET", path: control("requests") + "?target=design&pageNumber=1" },
      { method: "GET", path: control("requests") + "?body=%7B%22client_secret%22%3A%22x%22%7D" },
      post(control("faults"), { target: "search", status: 500, match: { designNumber: fixedNumbers.chair } }, false),
      post(control("faults"), { target: "design", status: 500, match: { pagenumber: 2 } }, false)
    ]
  },
  {
    name: "faults",
    requests: [
      token,
      post(control("faults"), { target: "search", status: 503 }, false),
      post(quick, { query: "chair" }),
      post(control("faults"), { target: "search", status: 429, headers: { "retry-after": "5" } }, false),
      post(quick, { query: "chair" }),
      post(control("faults"), {
        target: "design",
        status: 200,
        body: "<html>Welcome</html>",
        headers: {
          "content-type": "text/html"
        }
      }, false),
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      post(control("faults"), { target: "design", status: 404, body: { error: "Design [1] not found" } }, false),
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      post(control("faults"), { target: "any", status: 204 }, false),
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      post(control("faults"), { target: "token", kind: "reset", status: 200 }, false),
      token,
      post(control("faults"), { target: "design", kind: "resetMidBody", status: 200, body: { number: "1" } }, false),
      { method: "GET", path: designPath + fixedNumbers.chair, bearer: true },
      post(control("faults"), { target: "design", status: 700 }, false),
      post(control("faults"), { target: "nowhere", status: 500, colour: "red" }, false),
      post(control("faults"), { target: "design", status: 204, body: "x" }, false),
      { method: "GET", path: control("requests") + "?target=design" }
    ]
  }
]

/** The request line of a raw request, as the transcript names it. */
export const requestLine = (request: RawRequest): string => `${request.method} ${request.path}`

/** A JWT's header and claims, its signature replaced: the same claims give the same text. */
export const withoutSignatures = (body: string): string =>
  body.replace(/(eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*)\.[A-Za-z0-9_-]+/g, "$1.<signature>")

/** The headers of an answer as the transcript keeps them: sorted by name, `date` left out. */
export const keptHeaders = (headers: Iterable<readonly [string, string]>): Record<string, string> =>
  Object.fromEntries([...headers].filter(([name]) => name !== "date").sort(([a], [b]) => (a < b ? -1 : 1)))

/** The token of a token answer's body, if it is one. */
export const tokenOf = (body: string): string | undefined => {
  const match = /"access_token":"([^"]+)"/.exec(body)
  return match?.[1]
}
