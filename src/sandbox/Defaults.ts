/**
 * The defaults of a sandbox's options, apart from the sandbox itself: the CLI shows them in its
 * help without loading the sandbox.
 */
import { Duration } from "effect"

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
  maxRequestBytes: 1024 * 1024
} as const
