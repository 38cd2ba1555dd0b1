/**
 * The names a served sandbox answers to, as plain data: the `Host` forms that name it (against DNS
 * rebinding) and the `Origin`s that are its own (against a page that posts straight to it).
 */
import type { Problem } from "./answers.js"

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
    // any userinfo, even an empty one (`http://@host/`, which the URL parser drops), is not the sandbox's
    const authority = target.slice(target.indexOf("//") + 2).split(/[/?#]/, 1)[0] ?? ""
    return url.protocol === "http:" && !authority.includes("@") ? url.host : ""
  } catch {
    return ""
  }
}

/**
 * What is wrong with where a request (`target`, its `Host` and how many `Host` headers it has) is
 * addressed, with the status to answer: a 400 when it names its `Host` more than once (RFC 9112
 * 3.2), a 421 (RFC 9110 15.5.20) when not the sandbox; none when it is addressed to the sandbox.
 */
export const misaddressed = (
  own: OwnAddress,
  target: string,
  host: string | undefined,
  hostHeaders: number
): { readonly status: 400 | 421; readonly problem: Problem } | undefined => {
  if (hostHeaders > 1) {
    return {
      status: 400,
      problem: {
        code: "DUPLICATE_HOST",
        detail: "the request names its Host more than once",
        source: { header: "Host" }
      }
    }
  }
  const to = addressedTo(target, host)
  // A request with no Host (HTTP/1.0) names nothing.
  if (to !== undefined && own.authorities.has(to.trim().toLowerCase())) return undefined
  return {
    status: 421,
    problem: {
      code: "MISDIRECTED_REQUEST",
      detail: `the sandbox answers requests for ${own.described} only, not for ${
        to === undefined ? "a request without Host" : JSON.stringify(to)
      }`,
      source: { header: "Host" }
    }
  }
}
