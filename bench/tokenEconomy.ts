/**
 * Token economy: how many token requests the toolkit makes, and how often a call waits on a token,
 * on simulated time (`TestClock`) against the in-process sandbox (`DesignSearchClient.layer()` over
 * `Sandbox.layer()`, the sandbox's default 3,600 s token lifetime). Three scenarios:
 *
 * - cold: 1,000 concurrent `getDesign`/`quickSearch` calls on a cold cache (target: 1 token
 *   request); baseline, measured on the same sandbox: a client with no cache (one token per call);
 * - day: 24 simulated hours, one call per simulated minute (target 24–25 token requests, and 0 calls
 *   waiting on a token after the first); baseline, measured: a lazy cache that fetches when its
 *   token expires (the 24 h ÷ 1 h = 24 floor), whose every fetch is a wait;
 * - idle: one call, then 24 idle simulated hours (target: at most 1 token request beyond the
 *   first); baseline, measured: a cache that refreshes on a timer whether or not it is used.
 *
 * Counts are the sandbox's (`SandboxControl.stats`, `requests.token`); waits are the
 * `TokenService`'s own counter. Each scenario runs `rounds` times, each on a fresh sandbox and
 * client; figures are medians.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Clock, Duration, Effect, Layer, Redacted, Ref, TestClock, TestContext } from "effect"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { DesignSearchClient, DesignSearchConfig, Sandbox, TokenService } from "../src/index.js"
import { median, round } from "./stats.js"

const chair = Sandbox.fixedNumbers.chair
/** The sandbox's token lifetime (its default, as the spec says). */
const lifetimeHours = 1

/** The toolkit over the in-process sandbox: client, token service, sandbox control. */
const toolkitLayer = () => DesignSearchClient.layer().pipe(Layer.provideMerge(Layer.orDie(Sandbox.layer())))
/** The sandbox alone, for the hand-written baselines. */
const sandboxLayer = () => Layer.orDie(Sandbox.layer())

/** Runs `program` on simulated time: the layer is built inside the `TestContext`, so its `Clock` is the `TestClock`. */
const simulate = <A, E, R>(program: Effect.Effect<A, E, R>, layer: Layer.Layer<R>): Promise<A> =>
  Effect.runPromise(program.pipe(Effect.provide(layer), Effect.orDie, Effect.provide(TestContext.TestContext)))

const sandboxTokenRequests = Effect.map(Effect.flatMap(Sandbox.SandboxControl, (c) => c.stats), (s) => s.requests.token)

/** One toolkit call: designs and searches alternate. */
const toolkitCall = (client: DesignSearchClient.Service, i: number) =>
  i % 2 === 0 ? Effect.asVoid(client.getDesign(chair)) : Effect.asVoid(client.quickSearch({ query: "chair" }))

// ---------------------------------------------------------------------------------------------
// The baselines: what a person writes by hand around an HttpClient

interface NaiveToken {
  readonly header: string
  readonly expiresAt: number
}

/** One token request, as a hand-written client sends it; the expiry read from the `Clock`. */
const fetchToken = Effect.gen(function*() {
  const http = yield* HttpClient.HttpClient
  const config = yield* DesignSearchConfig.DesignSearchConfig
  const response = yield* http.execute(
    HttpClientRequest.post(config.tokenUrl).pipe(
      HttpClientRequest.acceptJson,
      HttpClientRequest.bodyUrlParams({
        grant_type: "client_credentials",
        client_id: config.clientId,
        client_secret: Redacted.value(config.clientSecret)
      })
    )
  )
  if (response.status !== 200) return yield* Effect.dieMessage(`token endpoint answered ${response.status}`)
  const body = (yield* response.json) as { access_token: string; expires_in: number; token_type: string }
  const now = yield* Clock.currentTimeMillis
  return {
    header: `${body.token_type} ${body.access_token}`,
    expiresAt: now + body.expires_in * 1000
  } satisfies NaiveToken
})

/** One API call with a given token, failing on anything but 200 so the baseline does real work. */
const naiveCall = (token: NaiveToken, i: number) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const config = yield* DesignSearchConfig.DesignSearchConfig
    const request = i % 2 === 0
      ? HttpClientRequest.get(`${config.apiBaseUrl}/design/${chair}`)
      : HttpClientRequest.post(`${config.apiBaseUrl}/search/quick`).pipe(
        HttpClientRequest.bodyUnsafeJson({ query: "chair" })
      )
    const response = yield* http.execute(
      request.pipe(HttpClientRequest.acceptJson, HttpClientRequest.setHeader("authorization", token.header))
    )
    yield* response.text
    if (response.status !== 200) return yield* Effect.dieMessage(`API answered ${response.status}`)
  })

/** A lazy cache: keeps the token until 30 s before it expires, then fetches on the next call (which waits). */
const lazyCache = Effect.gen(function*() {
  const state = yield* Ref.make<NaiveToken | undefined>(undefined)
  const waits = yield* Ref.make(0)
  const get = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const cached = yield* Ref.get(state)
    if (cached !== undefined && now < cached.expiresAt - 30_000) return cached
    yield* Ref.update(waits, (n) => n + 1)
    const token = yield* fetchToken
    yield* Ref.set(state, token)
    return token
  })
  return { get, waits: Ref.get(waits) }
})

// ---------------------------------------------------------------------------------------------
// Scenarios

export interface ColdRound {
  readonly calls: number
  readonly tokenRequests: number
  readonly noCacheTokenRequests: number
}

const cold = (calls: number) =>
  Promise.all([
    simulate(
      Effect.gen(function*() {
        const client = yield* DesignSearchClient.DesignSearchClient
        yield* Effect.all(Array.from({ length: calls }, (_, i) => toolkitCall(client, i)), {
          concurrency: "unbounded",
          discard: true
        })
        return yield* sandboxTokenRequests
      }),
      toolkitLayer()
    ),
    simulate(
      Effect.gen(function*() {
        yield* Effect.all(
          Array.from({ length: calls }, (_, i) => Effect.flatMap(fetchToken, (token) => naiveCall(token, i))),
          { concurrency: "unbounded", discard: true }
        )
        return yield* sandboxTokenRequests
      }),
      sandboxLayer()
    )
  ]).then(([tokenRequests, noCacheTokenRequests]): ColdRound => ({ calls, tokenRequests, noCacheTokenRequests }))

export interface DayRound {
  readonly calls: number
  readonly tokenRequests: number
  /** The `TokenService`'s own count; should equal the sandbox's. */
  readonly serviceTokenRequests: number
  readonly refreshes: number
  readonly waits: number
  readonly waitsAfterWarmup: number
  readonly lazyCacheTokenRequests: number
  readonly lazyCacheWaitsAfterWarmup: number
}

/** Steady traffic: one call a simulated minute for `minutes`, the clock moved a minute after each. */
const day = async (minutes: number): Promise<DayRound> => {
  const ours = await simulate(
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      for (let minute = 0; minute < minutes; minute++) {
        yield* toolkitCall(client, minute)
        yield* TestClock.adjust("1 minute")
      }
      const stats = yield* (yield* TokenService.TokenService).stats
      return { tokenRequests: yield* sandboxTokenRequests, stats }
    }),
    toolkitLayer()
  )
  const lazy = await simulate(
    Effect.gen(function*() {
      const cache = yield* lazyCache
      for (let minute = 0; minute < minutes; minute++) {
        yield* Effect.flatMap(cache.get, (token) => naiveCall(token, minute))
        yield* TestClock.adjust("1 minute")
      }
      return { tokenRequests: yield* sandboxTokenRequests, waits: yield* cache.waits }
    }),
    sandboxLayer()
  )
  return {
    calls: minutes,
    tokenRequests: ours.tokenRequests,
    serviceTokenRequests: ours.stats.tokenRequests,
    refreshes: ours.stats.refreshes,
    waits: ours.stats.waits,
    waitsAfterWarmup: ours.stats.waits - 1,
    lazyCacheTokenRequests: lazy.tokenRequests,
    lazyCacheWaitsAfterWarmup: lazy.waits - 1
  }
}

export interface IdleRound {
  readonly idleHours: number
  readonly extraTokenRequests: number
  readonly timerRefreshExtraTokenRequests: number
}

/** One call, then `hours` idle, the clock moved in 5-minute steps so fibers woken on the way can finish their I/O. */
const idle = async (hours: number): Promise<IdleRound> => {
  const steps = (hours * 60) / 5
  const ours = await simulate(
    Effect.gen(function*() {
      const client = yield* DesignSearchClient.DesignSearchClient
      yield* toolkitCall(client, 0)
      const first = yield* sandboxTokenRequests
      for (let i = 0; i < steps; i++) yield* TestClock.adjust("5 minutes")
      return (yield* sandboxTokenRequests) - first
    }),
    toolkitLayer()
  )
  // Baseline: fetch, use once, then refresh 5 minutes ahead of every expiry on a timer, used or not.
  const timer = await simulate(
    Effect.scoped(Effect.gen(function*() {
      const state = yield* Ref.make(yield* fetchToken)
      yield* naiveCall(yield* Ref.get(state), 0)
      const first = yield* sandboxTokenRequests
      yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const current = yield* Ref.get(state)
        yield* Effect.sleep(Duration.millis(Math.max(0, current.expiresAt - 5 * 60_000 - now)))
        yield* Ref.set(state, yield* fetchToken)
      })))
      for (let i = 0; i < steps; i++) yield* TestClock.adjust("5 minutes")
      return (yield* sandboxTokenRequests) - first
    })),
    sandboxLayer()
  )
  return { idleHours: hours, extraTokenRequests: ours, timerRefreshExtraTokenRequests: timer }
}

// ---------------------------------------------------------------------------------------------

export interface TokenEconomyResult {
  readonly rounds: number
  readonly tokenLifetimeHours: number
  readonly cold: {
    readonly calls: number
    readonly tokenRequests: number
    readonly baselineNoCache: number
    readonly ratioToBaseline: number
    readonly target: string
    readonly met: boolean
    readonly samples: ReadonlyArray<ColdRound>
  }
  readonly day: {
    readonly simulatedHours: number
    readonly calls: number
    readonly tokenRequests: number
    readonly refreshes: number
    /** 24 h ÷ token lifetime: the fewest requests that keep a token valid all day. */
    readonly baselineLifetimes: number
    readonly baselineLazyCache: number
    readonly ratioToBaseline: number
    readonly target: string
    readonly met: boolean
    readonly waitsAfterWarmup: number
    readonly baselineLazyCacheWaitsAfterWarmup: number
    readonly waitsRatioToBaseline: number
    readonly waitsTarget: string
    readonly waitsMet: boolean
    readonly samples: ReadonlyArray<DayRound>
  }
  readonly idle: {
    readonly idleHours: number
    readonly extraTokenRequests: number
    readonly baselineTimerRefresh: number
    readonly ratioToBaseline: number
    readonly target: string
    readonly met: boolean
    readonly samples: ReadonlyArray<IdleRound>
  }
}

export const run = async (
  options: { readonly rounds?: number; readonly coldCalls?: number; readonly hours?: number } = {}
): Promise<TokenEconomyResult> => {
  const rounds = options.rounds ?? 3
  const coldCalls = options.coldCalls ?? 1_000
  const hours = options.hours ?? 24
  const coldSamples: Array<ColdRound> = []
  const daySamples: Array<DayRound> = []
  const idleSamples: Array<IdleRound> = []
  for (let r = 0; r < rounds; r++) coldSamples.push(await cold(coldCalls))
  // The simulations spend their real time waiting for `TestClock.adjust` to see every fiber
  // suspended (it polls with `setTimeout(0)`); run side by side, each on its own `TestClock`, the
  // rounds overlap those waits. Counts depend on simulated time only.
  const rest = Array.from({ length: rounds }, () => [day(hours * 60), idle(hours)] as const)
  for (const [d, i] of rest) {
    daySamples.push(await d)
    idleSamples.push(await i)
  }
  const med = <T>(samples: ReadonlyArray<T>, f: (t: T) => number) => median(samples.map(f))
  const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? 0 : Number.POSITIVE_INFINITY) : round(a / b))

  const coldTokens = med(coldSamples, (s) => s.tokenRequests)
  const noCache = med(coldSamples, (s) => s.noCacheTokenRequests)
  const dayTokens = med(daySamples, (s) => s.tokenRequests)
  const lifetimes = hours / lifetimeHours
  const lazyTokens = med(daySamples, (s) => s.lazyCacheTokenRequests)
  const waits = med(daySamples, (s) => s.waitsAfterWarmup)
  const lazyWaits = med(daySamples, (s) => s.lazyCacheWaitsAfterWarmup)
  const idleExtra = med(idleSamples, (s) => s.extraTokenRequests)
  const timerExtra = med(idleSamples, (s) => s.timerRefreshExtraTokenRequests)
  return {
    rounds,
    tokenLifetimeHours: lifetimeHours,
    cold: {
      calls: coldCalls,
      tokenRequests: coldTokens,
      baselineNoCache: noCache,
      ratioToBaseline: ratio(coldTokens, noCache),
      target: "= 1",
      met: coldTokens === 1,
      samples: coldSamples
    },
    day: {
      simulatedHours: hours,
      calls: hours * 60,
      tokenRequests: dayTokens,
      refreshes: med(daySamples, (s) => s.refreshes),
      baselineLifetimes: lifetimes,
      baselineLazyCache: lazyTokens,
      ratioToBaseline: ratio(dayTokens, lifetimes),
      target: `${lifetimes}–${lifetimes + 1}`,
      met: dayTokens >= lifetimes && dayTokens <= lifetimes + 1,
      waitsAfterWarmup: waits,
      baselineLazyCacheWaitsAfterWarmup: lazyWaits,
      waitsRatioToBaseline: ratio(waits, lazyWaits),
      waitsTarget: "= 0",
      waitsMet: waits === 0,
      samples: daySamples
    },
    idle: {
      idleHours: hours,
      extraTokenRequests: idleExtra,
      baselineTimerRefresh: timerExtra,
      ratioToBaseline: ratio(idleExtra, timerExtra),
      target: "≤ 1",
      met: idleExtra <= 1,
      samples: idleSamples
    }
  }
}

// `tsx bench/tokenEconomy.ts` runs it alone (hours and rounds optional: `tsx bench/tokenEconomy.ts 3 1`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const hours = Number(process.argv[2] ?? 24)
  const rounds = Number(process.argv[3] ?? 3)
  const start = performance.now()
  run({ hours, rounds }).then((result) => {
    process.stdout.write(JSON.stringify(result, (k, v) => (k === "samples" ? undefined : v), 2) + "\n")
    process.stdout.write(`${round((performance.now() - start) / 1000, 1)} s\n`)
  })
}
