/**
 * effect-design-search: an Effect client toolkit for IP Australia's design search service, with
 * an embeddable sandbox of that service. The same modules are built for Effect 3 (the package's
 * root) and for Effect 4.1 (`effect-design-search/effect4`).
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AccessToken from "./AccessToken.js"

/** @since 0.1.0 */
export * as ApiError from "./ApiError.js"

/** @since 0.5.0 */
export * as AuthorizedClient from "./AuthorizedClient.js"

/** @since 0.1.0 */
export * as DesignSearchClient from "./DesignSearchClient.js"

/** @since 0.1.0 */
export * as DesignSearchConfig from "./DesignSearchConfig.js"

/** @since 0.1.0 */
export * as Designs from "./Designs.js"

/** @since 0.2.0 */
export * as Fleet from "./Fleet.js"

/** @since 0.2.0 */
export * as FleetRedis from "./FleetRedis.js"

/** @since 0.2.0 */
export * as RequestBudget from "./RequestBudget.js"

/** @since 0.1.0 */
export * as Sandbox from "./Sandbox.js"

/** @since 0.1.0 */
export * as TokenService from "./TokenService.js"

/** @since 0.2.0 */
export * as TokenStore from "./TokenStore.js"
