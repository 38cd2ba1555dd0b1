/**
 * Which adapter of the transport seam a client sends through, chosen once when it is made: over
 * undici's dispatcher when the ambient `HttpClient` is the default transport's (it provides
 * `Dispatcher` naming itself) and nothing transforms it; over the ambient `HttpClient` otherwise.
 */
import { HttpClient } from "@effect/platform"
import { Effect, Option } from "effect"
import * as HttpClientTransport from "./httpClientTransport.js"
import type { Limits, Transport } from "./transport.js"
import { splitUrl } from "./transport.js"
import * as UndiciTransport from "./undiciTransport.js"

/** The transport of calls below `baseUrl` (an absolute URL without query or fragment). */
export const chooseTransport = (
  baseUrl: string,
  limits: Limits,
  transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
): Effect.Effect<Transport, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const ambient = yield* HttpClient.HttpClient
    const undici = yield* Effect.serviceOption(UndiciTransport.Dispatcher)
    // `DesignSearchConfig` URLs are absolute with no query or fragment, so they always split
    const base = splitUrl(baseUrl) ?? { origin: baseUrl, path: "" }
    if (transformClient === undefined && Option.isSome(undici) && undici.value.httpClient === ambient) {
      return UndiciTransport.make(undici.value.dispatcher, base, limits)
    }
    return HttpClientTransport.make(ambient, base, limits, transformClient)
  })
