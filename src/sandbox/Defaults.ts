/**
 * The defaults of a sandbox's options, apart from the sandbox itself: the CLI shows them in its
 * help without loading the sandbox.
 */
import { Duration } from "effect"

/**
 * The field of a search result that lists the design numbers: `designNumbers`, or `designIds` as
 * the sibling trade mark API's `trademarkIds` suggests the live service may name it.
 *
 * @since 0.3.0
 * @category models
 */
export type ResultField = "designNumbers" | "designIds"

/**
 * The names a search result may give its list of design numbers.
 *
 * @since 0.3.0
 * @category constants
 */
export const resultFields: ReadonlyArray<ResultField> = ["designNumbers", "designIds"]

/**
 * Defaults of `Options`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  clientId: "sandbox-client",
  clientSecret: "sandbox-secret",
  designs: 500,
  seed: 1,
  tokenLifetime: Duration.seconds(3600),
  resultCap: 10_000,
  maxRequestBytes: 1024 * 1024,
  resultField: "designNumbers" as ResultField
} as const
