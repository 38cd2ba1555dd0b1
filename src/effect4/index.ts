/**
 * The Effect 4 edition: the toolkit for applications on effect 4.1, imported from
 * `effect-design-search/effect4`. Each module mirrors the Effect 3 edition's of the same name.
 *
 * @since 0.4.0
 */

/** @since 0.4.0 */
export * as AccessToken from "./AccessToken.js"

/** @since 0.4.0 */
export * as ApiError from "./ApiError.js"

/** @since 0.4.0 */
export * as DesignSearchClient from "./DesignSearchClient.js"

/** @since 0.4.0 */
export * as DesignSearchConfig from "./DesignSearchConfig.js"

/** @since 0.4.0 */
export * as Designs from "./Designs.js"

/** @since 0.4.0 */
export * as Fleet from "./Fleet.js"

/** @since 0.4.0 */
export * as FleetRedis from "./FleetRedis.js"

/** @since 0.4.0 */
export * as RequestBudget from "./RequestBudget.js"

/** @since 0.4.0 */
export * as Sandbox from "./Sandbox.js"

/** @since 0.4.0 */
export * as TokenService from "./TokenService.js"

/** @since 0.4.0 */
export * as TokenStore from "./TokenStore.js"
