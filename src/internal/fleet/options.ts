/**
 * The fleet's options, checked: each layer checks its own, and `Fleet.layer` checks them all before
 * it connects, so that bad options fail at once and not after the connection was waited for.
 */
import { type ConfigErrorType, type DurationInput, fromResult, invalidConfig, Result } from "#edition/internal/seam"
import { Duration, Effect } from "effect"
import { checkUrl } from "../../core/fleet/redis.js"
import { positive } from "../optionChecks.js"

/** Defaults of the connection's options. */
export const connectionDefaults = {
  url: "redis://127.0.0.1:6379",
  keyPrefix: "design-search",
  commandTimeout: Duration.millis(500),
  probeInterval: Duration.seconds(1),
  connectTimeout: Duration.seconds(2)
} as const

/** Defaults of the token store's options. */
export const storeDefaults = { lockTtl: Duration.seconds(10), maxWait: Duration.seconds(30) } as const

/** Defaults of the budget's options. */
export const budgetDefaults = { burst: 1, maxBackOff: Duration.seconds(60) } as const

type Durations<K extends string> = { readonly [k in K]?: DurationInput | undefined }
/** What a check's effect succeeds with. */
type Checked<C> = C extends (options: never) => Effect.Effect<infer A, unknown> ? A : never

const invalid = (path: ReadonlyArray<string>, message: string) => Result.fail(invalidConfig(path, message))

/** `check`, reading the options only when run: anything but an object (a `null` from JavaScript) is refused. */
const lazily = <O, A>(check: (options: O) => Result<A, ConfigErrorType>) => (options: O) =>
  Effect.suspend(() =>
    fromResult(
      typeof options === "object" && options !== null ? check(options) : invalid([], "expected an object of options")
    )
  )

const millis = (name: string, input: DurationInput | undefined, fallback: Duration.Duration) =>
  Result.map(positive(name, input, fallback), Duration.toMillis)

/** A `redis:` or `rediss:` URL (its password never told), a prefix, positive durations. */
export const checkConnection = lazily((
  options: Durations<"commandTimeout" | "probeInterval" | "connectTimeout"> & {
    readonly url?: string | undefined
    readonly keyPrefix?: string | undefined
  }
) => {
  const url = checkUrl(options.url ?? connectionDefaults.url)
  if ("problem" in url) return invalid(["url"], url.problem)
  const keyPrefix = options.keyPrefix ?? connectionDefaults.keyPrefix
  if (keyPrefix === "") return invalid(["keyPrefix"], "keyPrefix must not be empty")
  const d = connectionDefaults
  return Result.map(
    Result.all({
      commandTimeoutMillis: millis("commandTimeout", options.commandTimeout, d.commandTimeout),
      probeIntervalMillis: millis("probeInterval", options.probeInterval, d.probeInterval),
      connectTimeoutMillis: millis("connectTimeout", options.connectTimeout, d.connectTimeout)
    }),
    (durations) => ({ url: url.href, keyPrefix, ...durations })
  )
})

/** The connection's options checked, durations in milliseconds. */
export type ConnectionSettings = Checked<typeof checkConnection>

/** The token store's options checked, in milliseconds. */
export const checkStore = lazily((options: Durations<"lockTtl" | "maxWait">) =>
  Result.all({
    lockMillis: millis("lockTtl", options.lockTtl, storeDefaults.lockTtl),
    maxWaitMillis: millis("maxWait", options.maxWait, storeDefaults.maxWait)
  })
)

/** The budget's options checked into its pace. */
export const checkPace = lazily((
  options: Durations<"maxBackOff"> & {
    readonly requestsPerSecond?: number | undefined
    readonly burst?: number | undefined
  }
) => {
  const { burst = budgetDefaults.burst, requestsPerSecond } = options
  if (requestsPerSecond !== undefined && !(Number.isFinite(requestsPerSecond) && requestsPerSecond > 0)) {
    return invalid(["requestsPerSecond"], "expected a positive number")
  }
  if (!Number.isSafeInteger(burst) || burst < 1) return invalid(["burst"], "expected a positive integer")
  const intervalMillis = requestsPerSecond === undefined ? 0 : 1000 / requestsPerSecond
  return Result.map(millis("maxBackOff", options.maxBackOff, budgetDefaults.maxBackOff), (maxBackOffMillis) => ({
    intervalMillis,
    toleranceMillis: (burst - 1) * intervalMillis,
    maxBackOffMillis
  }))
})

/** The budget's pace in milliseconds: between slots (0: none), the tolerance of a burst, the longest back-off. */
export type Pace = Checked<typeof checkPace>
