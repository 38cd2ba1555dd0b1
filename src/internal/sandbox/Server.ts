/**
 * Serving a sandbox over loopback HTTP with `@effect/platform-node` (loaded when `Sandbox.serve` is
 * called): its app and the `/__sandbox/*` control routes, behind the checks of `Address.ts`.
 * Loopback only, since the sandbox hands out tokens to anyone who knows its well-known credentials.
 */
import { HttpServer, HttpServerRequest, invalidConfig } from "#edition/internal/seam"
import type { ConfigErrorType, HttpServerError } from "#edition/internal/seam"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Duration, Effect, Option } from "effect"
import type { Scope } from "effect"
import * as Http from "node:http"
import type { Duplex } from "node:stream"
import * as DesignSearchConfig from "../../DesignSearchConfig.js"
import * as Address from "./Address.js"
import type { App, Sandbox } from "./Control.js"
import * as ControlRoutes from "./ControlRoutes.js"
import { listenDefaults } from "./Defaults.js"
import type { ListenOptions, Served } from "./Defaults.js"
import { resetHeader } from "./State.js"

/** The address to bind: a loopback host, IPv6 without brackets. */
const invalid = (name: string, message: string) => invalidConfig([name], message)

const listenHost = (host: string): Effect.Effect<string, ConfigErrorType> => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  return bare === "::1" || DesignSearchConfig.isLoopbackHost(bare)
    ? Effect.succeed(bare)
    : Effect.fail(
      invalid("host", `the sandbox listens on loopback only (localhost, 127.0.0.1, ::1), got ${JSON.stringify(host)}`)
    )
}

const validPort = (port: number): Effect.Effect<number, ConfigErrorType> =>
  Number.isInteger(port) && port >= 0 && port <= 65535
    ? Effect.succeed(port)
    : Effect.fail(invalid("port", `port must be an integer from 0 to 65535, got ${port}`))

/**
 * Plays the app's resets (`State.resetHeader`): `reset` destroys the socket before anything is sent
 * (the handler waits for the interruption that follows); `reset-mid-body` sends the headers, with
 * the full `Content-Length`, and half the body, then destroys it.
 */
const honorResets = (app: App): App =>
  Effect.flatMap(app, (response) => {
    const reset = response.headers[resetHeader]
    if (reset === undefined) return Effect.succeed(response)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const nodeResponse = NodeHttpServerRequest.toServerResponse(request) as Http.ServerResponse
      if (reset === "reset") {
        return Effect.andThen(Effect.sync(() => nodeResponse.destroy()), Effect.interruptible(Effect.never))
      }
      const { [resetHeader]: _, ...headers } = response.headers
      const bytes = response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array(0)
      return Effect.sync(() => {
        nodeResponse.writeHead(response.status, { ...headers, "content-length": String(bytes.length) })
        const socket = nodeResponse.socket
        nodeResponse.end(bytes.subarray(0, Math.floor(bytes.length / 2)), () => socket?.destroy())
        return response
      })
    })
  })

/** A request Node's parser refuses (an unknown method, headers too large) gets a spec-shaped error, not a bare status. */
const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const [status, text] = error.code === "HPE_HEADER_OVERFLOW"
    ? [431, "Request Header Fields Too Large"]
    : [400, "Bad Request"]
  const detail = `the request could not be parsed (${error.code ?? "parse error"})`
  answerRaw(socket, status, text, { id: "parse", code: "MALFORMED_REQUEST", detail })
}

/** A `CONNECT` (a tunnel, which Node hands no route) gets a spec-shaped 405 rather than a dropped socket. */
const answerConnect = (_request: Http.IncomingMessage, socket: Duplex): void =>
  answerRaw(socket, 405, "Method Not Allowed", {
    id: "connect",
    code: "METHOD_NOT_ALLOWED",
    detail: "the sandbox opens no tunnels: CONNECT is not allowed"
  })

/** One spec-shaped error written straight to `socket`, which it then closes. */
const answerRaw = (socket: Duplex, status: number, text: string, error: object): void => {
  if (!socket.writable) return void socket.destroy()
  const body = JSON.stringify({ errors: [error] })
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${
      Buffer.byteLength(body)
    }\r\nconnection: close\r\n\r\n${body}`
  )
}

/** Stops accepting, waits up to 3 seconds for open requests, then drops the remaining connections. */
const closeGracefully = (server: Http.Server): Effect.Effect<void> =>
  Effect.promise(() =>
    new Promise<void>((resolve) => server.listening ? server.close(() => resolve()).closeIdleConnections() : resolve())
  ).pipe(
    Effect.timeoutOption(Duration.seconds(3)),
    Effect.flatMap((closed) => Option.isSome(closed) ? Effect.void : Effect.sync(() => server.closeAllConnections()))
  )

/**
 * Serves `sandbox` on loopback until the scope closes: a `ConfigError` for a host that is not
 * loopback or a bad port, a `ServeError` when the address cannot be bound.
 * @since 0.1.0
 * @category constructors
 */
export const serve = (
  sandbox: Sandbox,
  options: ListenOptions = {}
): Effect.Effect<Served, ConfigErrorType | HttpServerError.ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const host = yield* listenHost(options.host ?? listenDefaults.host)
    const port = yield* validPort(options.port ?? listenDefaults.port)
    // A request without Host (HTTP/1.1 requires one) reaches the app, which answers it a
    // spec-shaped 421 like any request not addressed to the sandbox, rather than Node a bare 400.
    const server = Http.createServer({ requireHostHeader: false })
    const httpServer = yield* NodeHttpServer.make(() => server, { port, host })
    server.on("clientError", answerClientError)
    server.on("connect", answerConnect)
    const address = server.address()
    const boundHost = typeof address === "object" && address !== null ? address.address : host
    const boundPort = typeof address === "object" && address !== null ? address.port : port
    const own = Address.make(boundHost, boundPort)
    const app = Address.onlyOwnHost(
      ControlRoutes.withControlRoutes(honorResets(sandbox.app), sandbox.control, own),
      own
    )
    yield* HttpServer.serveEffect(app).pipe(Effect.provideService(HttpServer.HttpServer, httpServer))
    // Added last, so it runs first: close while the handler is still installed, so requests
    // already on a connection are answered.
    yield* Effect.addFinalizer(() => closeGracefully(server))
    const url = `http://${boundHost.includes(":") ? `[${boundHost}]` : boundHost}:${boundPort}`
    const baseUrl = url + DesignSearchConfig.apiPath
    const { clientId, clientSecret, control } = sandbox
    const clientOptions = { clientId, clientSecret, authUrl: url, baseUrl }
    return { url, baseUrl, host: boundHost, port: boundPort, sandbox, control, clientOptions } satisfies Served
  })
