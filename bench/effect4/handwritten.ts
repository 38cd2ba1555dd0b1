/**
 * bench/handwritten.ts written for Effect 4: the baseline of the Effect 4 edition's
 * `clientVsHandwrittenC64`, what a careful user builds for `getDesign` on `effect/http` and `Schema`
 * alone, with a bearer header, a cached token and a 30 s deadline on each call.
 */
import { Effect, Schema } from "effect"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { Designs } from "../../dist/effect4/index.js"

export interface Options {
  readonly tokenUrl: string
  readonly apiBaseUrl: string
  readonly clientId: string
  readonly clientSecret: string
}

const Token = Schema.Struct({ access_token: Schema.String, expires_in: Schema.Number })
const decodeDesign = HttpClientResponse.schemaBodyJson(Designs.Design)

export const make = (options: Options) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const token = yield* Effect.cachedWithTTL(
      http.execute(
        HttpClientRequest.post(options.tokenUrl).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyUrlParams({
            grant_type: "client_credentials",
            client_id: options.clientId,
            client_secret: options.clientSecret
          })
        )
      ).pipe(Effect.flatMap(HttpClientResponse.schemaBodyJson(Token)), Effect.map((t) => t.access_token)),
      "50 minutes"
    )
    const api = http.pipe(
      HttpClient.filterStatusOk,
      HttpClient.mapRequest(HttpClientRequest.prependUrl(options.apiBaseUrl))
    )
    const getDesign = (designNumber: string) =>
      token.pipe(
        Effect.flatMap((bearer) =>
          api.execute(
            HttpClientRequest.get(`/design/${encodeURIComponent(designNumber)}`).pipe(
              HttpClientRequest.bearerToken(bearer),
              HttpClientRequest.acceptJson
            )
          )
        ),
        Effect.flatMap(decodeDesign),
        Effect.timeout("30 seconds")
      )
    return { getDesign }
  })
