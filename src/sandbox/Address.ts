/**
 * The served sandbox's defences against the browser of the user who started it. The `Host` check
 * (every route) stops DNS rebinding: a page whose name resolves to 127.0.0.1 would otherwise read
 * tokens fetched with the public default credentials; its browser still sends its own `Host`. The
 * `Origin` check (control routes) stops a page that posts straight to the sandbox: browsers send
 * `Origin` with every cross-origin POST, tools and tests send none.
 */
import { HttpServerRequest } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { counter, errorAnswers } from "./Http.js"

/** The names a loopback sandbox answers to besides the address it is bound to. */
const loopbackNames = ["localhost", "127.0.0.1", "[::1]"] as const

/** The `host[:port]` forms (lower case) a `Host` header naming the sandbox may take, and them for messages. */
export interface OwnAddress {
  readonly authorities: ReadonlySet<string>
  readonly described: string
}

/** The bound host (IPv6 in brackets) and the loopback names, with the port (and without it on port 80). */
export const make = (boundHost: string, port: number): OwnAddress => {
  const bound = (boundHost.includes(":") ? `[${boundHost}]` : boundHost).toLowerCase()
  const names = [...new Set([bound, ...loopbackNames])]
  const withPort = names.map((name) => `${name}:${port}`)
  return {
    authorities: new Set(port === 80 ? [...withPort, ...names] : withPort),
    described: withPort.join(", ")
  }
}

/** Whether an `Origin` is the sandbox's own: `http://` and one of its `Host` forms (not `null`, not `https://`). */
export const isOwnOrigin = (own: OwnAddress, origin: string): boolean => {
  const normalized = origin.trim().toLowerCase()
  return normalized.startsWith("http://") && own.authorities.has(normalized.slice("http://".length))
}

/** The authority of an absolute-form target (RFC 9112 3.2.2: it wins), else the `Host` header. */
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
 * A request not addressed to the sandbox gets a spec-shaped 421 (RFC 9110 15.5.20) and reaches no
 * route, counter or fault; one that names its `Host` twice a 400 (RFC 9112 3.2: Node keeps the first).
 */
export const onlyOwnHost = (app: HttpApp.Default, own: OwnAddress): HttpApp.Default => {
  const errors = errorAnswers(counter("host"))
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
