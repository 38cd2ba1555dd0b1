/**
 * The `AuthorizedClient`: an `HttpClient` for any API of the family the design search API belongs
 * to (trade mark search, patent search, IP-rights management, or any other base path on the same
 * host), sending each request as the design search operations send theirs: the token of the
 * ambient `TokenService`, one renewal and one more try on a 401 (never on a 403), the same retries
 * and `RequestBudget`, redirects never followed, one deadline. `apiResponse` reads its answers as the
 * operations read theirs. The body is in `internal/client/authorized.ts`; see docs/library.md.
 * @since 0.5.0
 */
import { FetchHttpClient, Service as Tag } from "#edition/internal/seam"
import type { ConfigErrorType, HttpClient } from "#edition/internal/seam"
import type { Effect } from "effect"
import { Layer } from "effect"
import * as DesignSearchConfig from "./DesignSearchConfig.js"
import * as Authorized from "./internal/client/authorized.js"
import * as TokenService from "./TokenService.js"

export {
  /**
   * The base paths of the family's APIs below the host, by name (`tradeMarkSearch`, say): one host,
   * one token and one rate cap serve them all.
   * @since 0.5.0
   * @category constants
   */
  apiPaths
} from "./core/wire/service.js"

export type {
  /**
   * The name of one of the family's APIs (a key of `apiPaths`).
   * @since 0.5.0
   * @category models
   */
  Api
} from "./core/wire/service.js"

export {
  /**
   * Reads a response as the design search operations read theirs (spec 7): a 2xx as an
   * `ApiResponse` of `schema`'s data and the server's messages, any other status as its `ApiError`.
   * Never a defect, whatever the body.
   * @since 0.5.0
   * @category decoding
   */
  apiResponse
} from "./internal/client/authorized.js"

export type {
  /**
   * What a request fails with: no answer, no token, or an answer no response can hold (a body over
   * the cap, a status outside 200–599). Any other answer is a response, whatever its status.
   * @since 0.5.0
   * @category errors
   */
  AuthorizedError,
  /**
   * Options of `make`, `layer` and `layerConfig`.
   * @since 0.5.0
   * @category options
   */
  Options
} from "./internal/client/authorized.js"

/**
 * The authorized `HttpClient`. A request to the configured host carries the token; a request to
 * any other origin is sent as it was written, without the token and outside the budget.
 * @since 0.5.0
 * @category tags
 */
export class AuthorizedClient extends Tag<AuthorizedClient, HttpClient.HttpClient.With<Authorized.AuthorizedError>>()(
  "effect-design-search/AuthorizedClient"
) {}

/**
 * Builds the client from the ambient `HttpClient`, `DesignSearchConfig` and `TokenService`, paced by
 * the `RequestBudget` of its context if there is one. Fails with a `ConfigError` naming `api` when
 * that option is neither a name nor a base path.
 * @since 0.5.0
 * @category constructors
 */
export const make = (
  options: Authorized.Options = {}
): Effect.Effect<
  HttpClient.HttpClient.With<Authorized.AuthorizedError>,
  ConfigErrorType,
  DesignSearchConfig.DesignSearchConfig | TokenService.TokenService | HttpClient.HttpClient
> => Authorized.make(options)

/**
 * The client and the in-memory `TokenService` it uses. Built together with `DesignSearchClient.layer`
 * (`Layer.mergeAll` of both), the two share that one `TokenService`, and so one token.
 * @since 0.5.0
 * @category layers
 */
export const layer = (
  options: Authorized.Options = {}
): Layer.Layer<
  AuthorizedClient | TokenService.TokenService,
  ConfigErrorType,
  DesignSearchConfig.DesignSearchConfig | HttpClient.HttpClient
> => Layer.effect(AuthorizedClient, make(options)).pipe(Layer.provideMerge(TokenService.layer()))

/**
 * `layer` configured from the `IPAUSTRALIA_*` variables, over `FetchHttpClient.layer`.
 * @since 0.5.0
 * @category layers
 */
export const layerConfig = (
  options: Authorized.Options = {}
): Layer.Layer<AuthorizedClient | TokenService.TokenService, ConfigErrorType> =>
  layer(options).pipe(Layer.provide(DesignSearchConfig.layerConfig), Layer.provide(FetchHttpClient.layer))
