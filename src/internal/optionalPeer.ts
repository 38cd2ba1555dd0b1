/**
 * Loading an optional peer dependency (`ioredis` for a fleet, `@effect/platform-node` for a served
 * sandbox) when the feature that needs it is built, never when a module is imported: an application
 * that uses neither installs neither. A package that cannot be loaded is a `ConfigError` naming it
 * and the line that installs it, never a defect.
 */
import { type ConfigErrorType, missingConfig, reference } from "#edition/internal/seam"
import { Effect, Predicate } from "effect"

/**
 * Imports that stand in for the real `import()` of the packages they name, each failing as the
 * import of a missing package would: how the tests see a feature built without its package.
 */
export const FailingImports = reference<ReadonlyMap<string, () => Promise<never>>>(
  "effect-design-search/internal/optionalPeer/FailingImports",
  () => new Map()
)

/** What the import's failure says, without a stack: the code Node gives it, else its message. */
const reasonOf = (error: unknown): string =>
  Predicate.hasProperty(error, "code") && typeof error.code === "string"
    ? error.code
    : error instanceof Error
    ? error.message.split("\n")[0] ?? error.name
    : "unknown failure"

/**
 * Loads `packageName` through `load` (an `import()` of a literal specifier, so that bundlers see
 * it) for `feature`; a failure is a `ConfigError` naming the package and how to install it.
 */
export const load = <A>(options: {
  readonly packageName: string
  readonly feature: string
  readonly install: string
  readonly load: () => Promise<A>
}): Effect.Effect<A, ConfigErrorType> =>
  Effect.flatMap(FailingImports, (failing) =>
    Effect.tryPromise({
      try: failing.get(options.packageName) ?? options.load,
      catch: (error) =>
        missingConfig(
          [options.packageName],
          `${options.feature} needs the optional package ${options.packageName}, which could not be loaded; install it: ${options.install} (${
            reasonOf(error)
          })`
        )
    }))
