/**
 * Which requests the served sandbox is addressed by, and which page may drive it: the defences of a
 * server on loopback against the browser of the user who started it.
 *
 * The `Host` check (`onlyOwnHost`, every route) stops DNS rebinding: a page whose name resolves to
 * 127.0.0.1 would otherwise read tokens fetched with the public default credentials, or reset a
 * test run; its browser still sends its own `Host`. The `Origin` check (`isOwnOrigin`, the control
 * routes) stops a page that posts straight to the sandbox: browsers send `Origin` with every
 * cross-origin POST, while tools and tests send none, so the body-less control routes stay body-less.
 * The in-process client never reaches either check.
 */
import { HttpServerRequest } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { errorAnswers } from "./Http.js"

/** The names a loopback sandbox answers to besides the address it is bound to. */
const loopbackNames = ["localhost", "127.0.0.1", "[::1]"] as const

/**
 * Where a served sandbox listens: the `host[:port]` forms (lower case) that a `Host` header naming
 * it may take.
 */
export interface OwnAddress {
  readonly authorities: ReadonlySet<string>
  /** For error messages: the forms as a client would write them. */
  readonly described: string
}

/**
 * The sandbox's own address: the host it is bound to (an IPv6 address in brackets) and the loopback
 * names, each with the bound port (and also without it on port 80, where a client leaves it out).
 */
export const make = (boundHost: string, port: number): OwnAddress => {
  const bound = (boundHost.includes(":") ? `[${boundHost}]` : boundHost).toLowerCase()
  const names = [...new Set([bound, ...loopbackNames])]
  const withPort = names.map((name) => `${name}:${port}`)
  return {
    authorities: new Set(port === 80 ? [...withPort, ...names] : withPort),
    described: withPort.join(", ")
  }
}

/**
 * Whether an `Origin` header is the sandbox's own: `http://` and one of its own `Host` forms. A
 * page's origin, `null` (a sandboxed frame, a file) and `https://` are not.
 */
export const isOwnOrigin = (own: OwnAddress, origin: string): boolean => {
  const normalized = origin.trim().toLowerCase()
  return normalized.startsWith("http://") && own.authorities.has(normalized.slice("http://".length))
}

/**
 * The authority a request is addressed to: that of an absolute-form target (`GET http://host/path`),
 * which is the one that counts (RFC 9112 3.2.2), else the `Host` header. A target in absolute form
 * that is no URL names nothing.
 */
const addressedTo = (target: string, host: string | undefined): string | undefined => {
  if (target.startsWith("/") || target === "*") return host
  try {
    const url = new URL(target)
    return url.protocol === "http:" && url.username === "" && url.password === "" ? url.host : ""
  } catch {
    return ""
  }
}

/**
 * Wraps `app` so that a request whose `Host` (or absolute-form target) does not name the sandbox
 * gets a spec-shaped 421 (Misdirected Request: this server does not answer for that name, RFC 9110
 * 15.5.20) and reaches nothing: no route, no counter, no fault. A request that names its `Host`
 * twice gets a 400, as RFC 9112 (3.2) asks: Node keeps the first, so which one it meant cannot be known.
 */
export const onlyOwnHost = (app: HttpApp.Default, own: OwnAddress): HttpApp.Default => {
  const errors = errorAnswers("host")
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const raw = NodeHttpServerRequest.toIncomingMessage(request).rawHeaders
    if (raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === "host").length > 1) {
      return Effect.succeed(errors(400, [{
        code: "DUPLICATE_HOST",
        detail: "the request names its Host more than once",
        source: { header: "Host" }
      }]))
    }
    const host = addressedTo(request.url, request.headers["host"])
    // A request with no Host (HTTP/1.0) names nothing.
    return host !== undefined && own.authorities.has(host.trim().toLowerCase()) ? app : Effect.succeed(errors(421, [{
      code: "MISDIRECTED_REQUEST",
      detail: `the sandbox answers requests for ${own.described} only, not for ${
        host === undefined ? "a request without Host" : JSON.stringify(host)
      }`,
      source: { header: "Host" }
    }]))
  })
}
