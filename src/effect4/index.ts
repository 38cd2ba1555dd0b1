/**
 * The Effect 4 edition: the toolkit for applications on effect 4.1, imported from
 * `effect-design-search/effect4`. Each module mirrors the Effect 3 edition's of the same name.
 */

/** @since 0.4.0 */
export * as DesignSearchClient from "./DesignSearchClient.js"
