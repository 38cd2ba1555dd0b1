/**
 * The defaults of a sandbox's options and of serving it, and what serving it answers, apart from the
 * sandbox and its server: the CLI shows them in its help without loading either.
 */
import { Duration } from "effect"
import * as Answers from "../../core/sandbox/answers.js"
import type * as DesignSearchConfig from "../../DesignSearchConfig.js"
import type { Control, Sandbox } from "./Control.js"

/**
 * The field of a search result that lists the design numbers: `designNumbers`, or `designIds` as
 * the sibling trade mark API's `trademarkIds` suggests the live service may name it.
 * @since 0.3.0
 * @category models
 */
export type ResultField = Answers.ResultField

/**
 * The names a search result may give its list of design numbers.
 * @since 0.3.0
 * @category constants
 */
export const resultFields: ReadonlyArray<ResultField> = Answers.resultFields

const { tokenLifetimeSeconds, ...plainDefaults } = Answers.defaults

/**
 * Defaults of `Options`. `designs` is the default of the embedded sandbox (`layer`, the CLI without
 * credentials) and of the served one (`serve`, `design-search sandbox`) alike, so a command gives
 * the same answer in both; 500 keeps a sandbox cheap to build, as tests build many.
 * @since 0.1.0
 * @category constants
 */
export const defaults = { ...plainDefaults, tokenLifetime: Duration.seconds(tokenLifetimeSeconds) } as const

/**
 * Where and how a sandbox is served.
 * @since 0.1.0
 * @category options
 */
export interface ListenOptions {
  /** TCP port (default 8787); `0` lets the system pick a free one, reported in `Served.port`. */
  readonly port?: number | undefined
  /** Loopback address to listen on (default `127.0.0.1`): `localhost`, `127.x.y.z` or `::1`. */
  readonly host?: string | undefined
}

/**
 * @since 0.1.0
 * @category constants
 */
export const listenDefaults = Answers.listenDefaults

/**
 * A sandbox being served, and how to reach it.
 * @since 0.1.0
 * @category models
 */
export interface Served {
  /** `http://host:port`, with the address actually bound: the token host (`IPAUSTRALIA_AUTH_URL`). */
  readonly url: string
  /** The API base below `url` (`IPAUSTRALIA_BASE_URL`). */
  readonly baseUrl: string
  readonly host: string
  readonly port: number
  readonly sandbox: Sandbox
  readonly control: Control
  /** Options for `DesignSearchConfig.layer` that point a client at this server with the sandbox's credentials. */
  readonly clientOptions: DesignSearchConfig.Options
}
