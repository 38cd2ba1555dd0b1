/**
 * A fleet: processes that call the API with the same client id and share one token and one rate
 * budget through Redis (see docs/fleet.md). `layer` is the whole of it over one connection; provide
 * it below a `DesignSearchClient` layer and its `TokenService` and calls use it.
 * @since 0.2.0
 */
import { type ConfigErrorType, layerUnwrap } from "#edition/internal/seam"
import { Effect, Layer } from "effect"
import * as FleetRedis from "./FleetRedis.js"
import { checkPace, checkStore } from "./internal/fleet/options.js"
import * as RequestBudget from "./RequestBudget.js"
import * as TokenStore from "./TokenStore.js"

/**
 * Options of `layer`: the connection's, the token store's and the budget's.
 * @since 0.2.0
 * @category options
 */
export interface Options extends FleetRedis.Options, TokenStore.RedisOptions, RequestBudget.Options {}

/**
 * `TokenStore.layerRedis` and `RequestBudget.layerRedis` over one `FleetRedis.layer` connection.
 * Fails only on bad options, every one checked before the connection is waited for; Redis being
 * down is no failure.
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<TokenStore.TokenStore | RequestBudget.RequestBudget, ConfigErrorType> =>
  layerUnwrap(
    Effect.as(
      Effect.zip(checkStore(options), checkPace(options)),
      Layer.merge(TokenStore.layerRedis(options), RequestBudget.layerRedis(options)).pipe(
        Layer.provide(FleetRedis.layer(options))
      )
    )
  )
