/**
 * Where the design search service lives, as plain data: its environments and hosts, the paths of
 * its token endpoint and API, and the rules a configured URL of it must keep.
 */

/** The public environments of the service. */
export const environments = ["test", "production"] as const

/** One of `environments`. */
export type Environment = (typeof environments)[number]

/** The host of each environment: it serves both the token endpoint and the APIs. */
export const hosts: Readonly<Record<Environment, string>> = {
  test: "https://test.api.ipaustralia.gov.au",
  production: "https://production.api.ipaustralia.gov.au"
}

/** Path of the token endpoint below the auth host (spec 4.1). */
export const tokenPath = "/public/external-token-api/v1/access_token"

/** Path of the design search API below the host. */
export const apiPath = "/public/australian-design-search-api/v1"

/** The base paths of the family's APIs below the host: one host, one token, one rate cap for all. */
export const apiPaths = {
  designSearch: apiPath,
  tradeMarkSearch: "/public/australian-trade-mark-search-api/v1",
  patentSearch: "/public/australian-patent-search-api/v1",
  iprightManagement: "/public/ipright-management-b2b-api/v1"
} as const

/** The name of one of the family's APIs. */
export type Api = keyof typeof apiPaths

/**
 * Where a request's URL points: an absolute URL as is; a path below `/public/` on the host of
 * `apiBaseUrl` (a proxy's prefix kept); any other path below `base`, a base path of that host.
 */
export const resolveUrl = (apiBaseUrl: string, base: string, url: string): string => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url
  const host = apiBaseUrl.endsWith(apiPath) ? apiBaseUrl.slice(0, -apiPath.length) : new URL(apiBaseUrl).origin
  if (url.startsWith("/public/")) return host + url
  return host + base + (url === "" || url.startsWith("/") || url.startsWith("?") ? url : `/${url}`)
}

/** The service's endpoints: `search` the quick search, `advanced` the advanced one, `page` the paged one. */
export const endpoints = ["token", "search", "design", "advanced", "page"] as const

/** One of `endpoints`. */
export type Endpoint = (typeof endpoints)[number]

/** Where a design is read: this, then its number. */
export const designPath = `${apiPath}/design/`

const fixedPaths: Readonly<Record<string, Endpoint>> = {
  [tokenPath]: "token",
  [`${apiPath}/search/quick`]: "search",
  [`${apiPath}/search/advanced`]: "advanced",
  [`${apiPath}/page/advanced`]: "page"
}

/** The endpoint a request's path reaches, if any: what the sandbox routes and counts it as. */
export const endpointOf = (path: string): Endpoint | undefined =>
  Object.hasOwn(fixedPaths, path) ? fixedPaths[path] : path.startsWith(designPath) ? "design" : undefined

const loopbackHosts = new Set(["localhost", "[::1]"])

/** True for `localhost`, `127.0.0.0/8` and `[::1]`: the only hosts allowed over plain `http:`. */
export const isLoopbackHost = (hostname: string): boolean =>
  loopbackHosts.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname)

/**
 * A configured URL, or what is wrong with it (to follow its setting's name): it must be absolute,
 * carry no credentials, query or fragment, and be `https:` unless its host is loopback.
 */
export const serviceUrl = (input: unknown): URL | { readonly problem: string } => {
  // `process.env.X` and untyped callers can hand over anything
  if (typeof input !== "string") return { problem: `must be a string, got ${typeof input}` }
  if (!URL.canParse(input)) return { problem: `is not an absolute URL: ${JSON.stringify(input)}` }
  const url = new URL(input)
  if (url.username !== "" || url.password !== "") return { problem: "must not carry credentials" }
  if (url.search !== "" || url.hash !== "") return { problem: "must not carry a query or a fragment" }
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return url
  return {
    problem: `must use https: (plain http: is allowed only for loopback hosts), got ${url.protocol}//${url.host}`
  }
}

/** The variables that hold the credentials IP Australia issues to an application. */
export const credentialVariables = ["IPAUSTRALIA_CLIENT_ID", "IPAUSTRALIA_CLIENT_SECRET"] as const

/** Credential variables not set, told as what to do about them: a provider's own text names no remedy. */
export const credentialsNotSet = (names: ReadonlyArray<string>): string =>
  `${names.join(" and ")} ${names.length === 1 ? "is" : "are"} not set: set ` +
  `${credentialVariables.join(" and ")} to the credentials IP Australia issued to your application, ` +
  "or provide Sandbox.layer() in place of the service to run without them"
