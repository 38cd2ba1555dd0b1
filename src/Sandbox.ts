/**
 * The sandbox: a simulation of the design search service that behaves as the specification says
 * the real one does (token endpoint, the API's operations, spec-shaped errors), over a deterministic
 * dataset, with fault injection, token revocation and counters. `layer` puts it behind an
 * in-process `HttpClient` (no sockets) for an application's tests; `SandboxControl` drives it.
 * @since 0.1.0
 */
import { edition, fromResult, HttpClient, invalidConfig, layerUnwrap, Result } from "#edition/internal/seam"
import type { ConfigErrorType, DurationInput, HttpServerError } from "#edition/internal/seam"
import { Duration, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as Checks from "./core/sandbox/checks.js"
import { generateDesigns } from "./core/sandbox/dataset.js"
import * as Register from "./core/sandbox/register.js"
import * as SearchIndex from "./core/sandbox/searchIndex.js"
import * as DesignSearchConfig from "./DesignSearchConfig.js"
import * as OptionalPeer from "./internal/optionalPeer.js"
import { nonNegative } from "./internal/optionChecks.js"
import * as App from "./internal/sandbox/App.js"
import * as Cassette from "./internal/sandbox/Cassette.js"
import * as Control from "./internal/sandbox/Control.js"
import { SandboxControl } from "./internal/sandbox/Control.js"
import type { Sandbox } from "./internal/sandbox/Control.js"
import { defaults } from "./internal/sandbox/Defaults.js"
import type { ListenOptions, ResultField, Served } from "./internal/sandbox/Defaults.js"
import { httpClient } from "./internal/sandbox/InProcessClient.js"
import * as State from "./internal/sandbox/State.js"

export { fixedNumbers, samples } from "./core/sandbox/dataset.js"
export type { RequestFilter } from "./core/sandbox/faultMatch.js"
export type { Journal } from "./core/sandbox/journal.js"
export type { Summary } from "./core/sandbox/register.js"
export { type CassetteOptions } from "./internal/sandbox/Cassette.js"
export { type Control, type Sandbox, SandboxControl, UnknownDesignsError } from "./internal/sandbox/Control.js"
export { defaults, listenDefaults, resultFields } from "./internal/sandbox/Defaults.js"
export type { ListenOptions, ResultField, Served } from "./internal/sandbox/Defaults.js"
export { httpClient } from "./internal/sandbox/InProcessClient.js"
export { type Entry, Fault, FaultTarget, type Stats } from "./internal/sandbox/State.js"

/**
 * Options of `make`, `layer` and `serve`.
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** Default `sandbox-client`; not blank. */
  readonly clientId?: string | undefined
  /** Default `sandbox-secret`; not blank. */
  readonly clientSecret?: string | undefined
  /**
   * How many designs the dataset holds (default `defaults.designs`, 500; at least the fixed records),
   * at most 200,000: each costs about 2 KB and 50 µs to build.
   */
  readonly designs?: number | undefined
  /** Seed of the dataset (default 1), a safe integer: the same seed gives the same designs. */
  readonly seed?: number | undefined
  /** `expires_in` of issued tokens (default 3600 seconds, as the spec says): a second to a year, as the client accepts. */
  readonly tokenLifetime?: DurationInput | undefined
  /** Most design numbers a quick search lists; beyond it a `warning` message says so (default 10,000). */
  readonly resultCap?: number | undefined
  /** Largest request body accepted (default 1 MiB). */
  readonly maxRequestBytes?: number | undefined
  /**
   * The field of a search result that lists the design numbers (default `designNumbers`): the live
   * service's name for it is not public, and the client reads either.
   */
  readonly resultField?: ResultField | undefined
  /** How many requests the journal keeps, the last ones (default 10,000). */
  readonly journalSize?: number | undefined
  /** How large the journal's entries may be in all, as JSON text (default 4 MiB): the oldest go first. */
  readonly journalBytes?: number | undefined
  /**
   * How long the sandbox waits, on its `Clock`, before each answer: a duration, or a range drawn
   * from a random source seeded by `seed` (default none); at most 10 minutes, as a fault's `delayMs`.
   */
  readonly latency?: DurationInput | {
    readonly min: DurationInput
    readonly max: DurationInput
  } | undefined
}

/**
 * Where the in-process sandbox pretends to live; `.invalid` never resolves, so nothing leaks out.
 * @since 0.1.0
 * @category constants
 */
export const inProcessUrl = "https://sandbox.design-search.invalid"

/** A value the options' plain checks accepted, or the `ConfigError` naming the option they refused. */
const checked = <A>(result: Checks.Checked<A>): Result<A, ConfigErrorType> =>
  "refused" in result
    ? Result.fail(invalidConfig(result.refused.path, result.refused.message))
    : Result.succeed(result.value)

/** Each answer's latency in milliseconds: fixed, or drawn from `[min, max]` by a source seeded by `seed`. */
const latencyOf = (latency: Options["latency"], seed: number) => {
  const range = typeof latency === "object" && latency !== null && ("min" in latency || "max" in latency)
  if (range && (latency.min === undefined || latency.max === undefined)) {
    return Result.fail(invalidConfig(["latency"], "latency's range needs both its min and its max"))
  }
  const [min, max] = range ? [latency.min, latency.max] : [latency, latency]
  const ends = [nonNegative("latency", min, Duration.zero), nonNegative("latency", max, Duration.zero)] as const
  return Result.flatMap(
    Result.all(ends),
    ([low, high]) => checked(Checks.latency(Duration.toMillis(low), Duration.toMillis(high), seed))
  )
}

/**
 * Builds a sandbox: generates its dataset and index, and a fresh signing key. Options out of their
 * ranges (docs/library.md) or of the wrong type fail it with a `ConfigError` naming the option.
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Sandbox, ConfigErrorType> =>
  Effect.gen(function*() {
    const plain = yield* fromResult(checked(Checks.plainOptions(options)))
    const lifetime = yield* fromResult(nonNegative("tokenLifetime", options.tokenLifetime, defaults.tokenLifetime))
    const tokenLifetimeSeconds = yield* fromResult(checked(Checks.tokenLifetime(Duration.toSeconds(lifetime))))
    const latency = yield* fromResult(latencyOf(options.latency, plain.seed))
    const { clientId, clientSecret, designs, journalSize, maxRequestBytes, resultCap, resultField, seed } = plain
    const dataset = generateDesigns(designs, seed)
    const index = SearchIndex.make(dataset)
    const register = Register.make(index, seed, dataset)
    const state = State.make(journalSize, plain.journalBytes)
    const secrets = [clientSecret, `${clientId}:${clientSecret}`]
    const signingKey = randomBytes(32)
    const config = { clientId, clientSecret, tokenLifetimeSeconds, resultCap, resultField, maxRequestBytes }
    const app = App.make({ ...config, signingKey, issuer: inProcessUrl, index, register, state, secrets, latency })
    return { app, control: Control.make(state, index, register), clientId, clientSecret, designCount: index.size }
  })

/**
 * A sandbox behind an in-process `HttpClient`, its `SandboxControl`, and a `DesignSearchConfig`
 * that points at it with its credentials: provide it instead of the network in an application's
 * tests.
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<
  HttpClient.HttpClient | SandboxControl | DesignSearchConfig.DesignSearchConfig,
  ConfigErrorType
> => layerUnwrap(Effect.map(make(options), layerOf))

/**
 * `layer`, its answers a cassette's (docs/cassettes.md): `replay` answers from the file at `path`
 * and never from the network; `record` asks the service that the `DesignSearchConfig` given to the
 * layer names (else `DesignSearchConfig.layerConfig`), over the `HttpClient` given to it (else
 * `fetch`), and writes each exchange to the file, with no secret or token in it; `auto` replays what
 * the file holds and records what it lacks. A request a replay lacks gets a 501 (a `ServerError`)
 * naming the closest recorded one and how it differs. The file is checked whole when the layer is
 * built, and a recording holds it locked (`FILE.lock`): a `ConfigError` names the field, the option
 * or the process in the way. `SandboxControl` injects faults and counts requests as on `layer`; its
 * `reset` also replays from the start.
 * @since 0.3.0
 * @category layers
 */
export const layerCassette = (
  path: string,
  options: Cassette.CassetteOptions
): Layer.Layer<
  HttpClient.HttpClient | SandboxControl | DesignSearchConfig.DesignSearchConfig,
  ConfigErrorType
> => layerUnwrap(Effect.map(Cassette.make(path, options), layerOf))

/** The services of `layer` over `sandbox`. */
const layerOf = (sandbox: Sandbox) =>
  Layer.mergeAll(
    Layer.succeed(HttpClient.HttpClient, httpClient(sandbox.app)),
    Layer.succeed(SandboxControl, sandbox.control),
    DesignSearchConfig.layer({
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
      authUrl: inProcessUrl,
      baseUrl: inProcessUrl + DesignSearchConfig.apiPath
    })
  )

/**
 * Options of `serve`: the sandbox's (`Options`) and where to listen (`port`, default 8787, `0` for
 * any free port; `host`, default `127.0.0.1`, loopback only).
 * @since 0.1.0
 * @category options
 */
export interface ServeOptions extends Options, ListenOptions {
  /** The file of a cassette to replay (`layerCassette`) instead of a dataset. */
  readonly cassette?: string | undefined
  /** The cassette's `ignore` option. */
  readonly ignore?: ReadonlyArray<string> | undefined
}

/**
 * Builds a sandbox and serves it over loopback HTTP until the scope closes, with the `/__sandbox/*`
 * control routes (faults, requests, stats, touch, advance, revoke-tokens, reset), answering only requests addressed to
 * it and control requests from no page but its own. Needs `@effect/platform-node`, an optional peer:
 * without it, a `ConfigError` (`MissingData` in Effect 3) naming the package (`make` and `layer` never need it).
 * @since 0.1.0
 * @category constructors
 */
export const serve = (
  options: ServeOptions = {}
): Effect.Effect<Served, ConfigErrorType | HttpServerError.ServeError, Scope.Scope> =>
  Effect.flatMap(loadServer, (Server) =>
    Effect.flatMap(
      // `make` refuses options that are no object
      typeof options !== "object" || options === null || options.cassette === undefined
        ? make(options)
        : Cassette.make(options.cassette, { mode: "replay", ignore: options.ignore }),
      (sandbox) => Server.serve(sandbox, options)
    ))

/** The server, with `@effect/platform-node`, loaded when a sandbox is first served. */
const loadServer = OptionalPeer.load({
  packageName: "@effect/platform-node",
  feature: "Sandbox.serve",
  install: `npm install @effect/platform-node@${{ 3: "^0.108", 4: "^4.1" }[edition]}`,
  load: () => import("./internal/sandbox/Server.js")
})
