/**
 * The served sandbox of the Effect 4 edition (`Sandbox.serve`): over loopback HTTP it answers the
 * same bytes as in process, on the port it reports; it refuses hosts that are not loopback and a
 * port in use; resets drop the connection; closing its scope stops it promptly.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Net from "node:net"
import * as DesignSearchConfig from "../../src/DesignSearchConfig.js"
import * as Server from "../../src/internal/sandbox/Server.js"
import * as Sandbox from "../../src/Sandbox.js"

const chair = Sandbox.fixedNumbers.chair

/** The requests compared: a token, then searches, a design, a miss and a refusal, each with a token of its own. */
const exchanges = (client: HttpClient.HttpClient, url: string) =>
  Effect.gen(function*() {
    const send = (request: HttpClientRequest.HttpClientRequest) =>
      Effect.flatMap(client.execute(request), (response) =>
        Effect.map(response.text, (text) => ({
          status: response.status,
          contentType: response.headers["content-type"],
          contentLength: response.headers["content-length"],
          text
        })))
    const form = { grant_type: "client_credentials", client_id: "sandbox-client", client_secret: "sandbox-secret" }
    const issued = yield* send(
      HttpClientRequest.post(url + DesignSearchConfig.tokenPath).pipe(HttpClientRequest.bodyUrlParams(form))
    )
    const { access_token, ...token } = JSON.parse(issued.text) as Record<string, unknown>
    const api = (path: string, body?: unknown) =>
      send(
        (body === undefined
          ? HttpClientRequest.get(url + DesignSearchConfig.apiPath + path)
          : HttpClientRequest.post(url + DesignSearchConfig.apiPath + path).pipe(
            HttpClientRequest.bodyJsonUnsafe(body)
          ))
          .pipe(HttpClientRequest.setHeader("authorization", `Bearer ${String(access_token)}`))
      )
    return [
      { ...issued, text: JSON.stringify(token) },
      yield* api("/search/quick", { query: "chair", filters: { statusFilter: ["REGISTERED"] } }),
      yield* api("/page/advanced", {
        rows: [{ op: "AND", query: { owner: Sandbox.samples.owners[0] } }],
        pageNumber: 0,
        pageSize: 5
      }),
      yield* api(`/design/${chair}`),
      yield* api("/design/ZZZ999"),
      yield* api("/search/quick", { query: 1, colour: "red" }),
      yield* send(HttpClientRequest.get(url + DesignSearchConfig.apiPath + "/search/quick"))
    ]
  })

/** A raw exchange with `port`: what the socket reads until the server closes it or `ms` pass. */
const rawExchange = (port: number, text: string) =>
  Effect.callback<string>((resume) => {
    const socket = Net.connect(port, "127.0.0.1", () => socket.write(text))
    let read = ""
    socket.on("data", (chunk) => void (read += chunk.toString("latin1")))
    socket.on("error", () => undefined)
    socket.on("close", () => resume(Effect.succeed(read)))
  })

describe("Sandbox.serve (Effect 4)", () => {
  it.live("answers the same bytes over loopback as in process, on the port it reports", () =>
    Effect.gen(function*() {
      const inProcess = yield* Sandbox.make()
      const expected = yield* exchanges(Sandbox.httpClient(inProcess.app), Sandbox.inProcessUrl)
      const served = yield* Server.serve(yield* Sandbox.make(), { port: 0 })
      assert.isAbove(served.port, 0)
      assert.strictEqual(served.url, `http://127.0.0.1:${served.port}`)
      assert.strictEqual(served.baseUrl, served.url + DesignSearchConfig.apiPath)
      assert.deepStrictEqual(served.clientOptions, {
        clientId: "sandbox-client",
        clientSecret: "sandbox-secret",
        authUrl: served.url,
        baseUrl: served.baseUrl
      })
      const got = yield* exchanges(yield* HttpClient.HttpClient, served.url)
      assert.deepStrictEqual(got.map((e) => e.status), [200, 200, 200, 200, 404, 422, 401])
      assert.strictEqual(got[1]?.contentLength, String(Buffer.byteLength(got[1]?.text ?? "")))
      assert.deepStrictEqual(got, expected)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.live("only loopback hosts and real ports are accepted; a port in use is a ServeError", () =>
    Effect.gen(function*() {
      for (const host of ["0.0.0.0", "example.com", "10.0.0.1"]) {
        const error = yield* Effect.flip(Sandbox.serve({ port: 0, host }))
        assert.strictEqual(error._tag, "ConfigError")
        assert.include(error.message, "loopback")
      }
      const badPort = yield* Effect.flip(Sandbox.serve({ port: 70_000 }))
      assert.strictEqual(badPort._tag, "ConfigError")
      assert.include(badPort.message, "port must be an integer from 0 to 65535, got 70000")
      const served = yield* Sandbox.serve({ port: 0, host: "127.0.0.2" })
      assert.strictEqual(served.url, `http://127.0.0.2:${served.port}`)
      const busy = yield* Effect.flip(Sandbox.serve({ port: served.port, host: "127.0.0.2" }))
      assert.strictEqual(busy._tag, "ServeError")
      const six = yield* Sandbox.serve({ port: 0, host: "[::1]" })
      assert.strictEqual(six.url, `http://[::1]:${six.port}`)
    }))

  it.live("a reset drops the connection before a byte; a reset mid-body sends the headers and half the body", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0 })
      const get = `GET ${DesignSearchConfig.apiPath}/design/${chair} HTTP/1.1\r\nhost: 127.0.0.1:${served.port}\r\n\r\n`
      yield* served.control.injectFault({ target: "design", status: 503, kind: "reset" })
      assert.strictEqual(yield* rawExchange(served.port, get), "")
      yield* served.control.injectFault({ target: "design", status: 503, kind: "resetMidBody" })
      const cut = yield* rawExchange(served.port, get)
      const [head, body] = cut.split("\r\n\r\n")
      const length = Number(/content-length: (\d+)/i.exec(head ?? "")?.[1])
      assert.match(head ?? "", /^HTTP\/1\.1 503 /)
      assert.isAbove(length, 0)
      assert.strictEqual(body?.length, Math.floor(length / 2))
      assert.strictEqual((yield* served.control.stats).requests.design, 2)
    }))

  it.live("closing the scope stops the server promptly, even with a keep-alive connection open", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(
        Effect.gen(function*() {
          const served = yield* Sandbox.serve({ port: 0 })
          const open = Net.connect(served.port, "127.0.0.1")
          yield* Effect.addFinalizer(() => Effect.sync(() => open.destroy()))
          yield* Effect.callback<void>((resume) => {
            open.write(`GET /__sandbox/stats HTTP/1.1\r\nhost: 127.0.0.1:${served.port}\r\n\r\n`)
            open.once("data", () => resume(Effect.void))
          })
          return served.port
        })
      ).pipe(Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.fail("still open after 2 seconds") }))
      const refused = yield* Effect.callback<string>((resume) => {
        const socket = Net.connect(port, "127.0.0.1", () => resume(Effect.succeed("connected")))
        socket.on("error", (error: Error & { code?: string }) => resume(Effect.succeed(error.code ?? "error")))
      })
      assert.strictEqual(refused, "ECONNREFUSED")
    }))
})
