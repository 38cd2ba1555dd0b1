/** Layers the tests build the client from: the in-process sandbox with chosen options. */
import { forkChild, HttpClient, layerUnwrap } from "#edition/internal/seam"
import { NodeHttpClient, TestClock } from "#test-edition/support/seam"
import { Context, Effect, Fiber, Layer } from "effect"
import { DesignSearchClient, DesignSearchConfig, Sandbox } from "../../src/index.js"

export interface TestOptions {
  readonly sandbox?: Sandbox.Options
  /** Overrides of the configuration pointing at the sandbox (a wrong secret, other timings). */
  readonly config?: Partial<DesignSearchConfig.Options>
  readonly client?: DesignSearchClient.Options
  /** What the sandbox's `HttpClient` is wrapped in: a recorder, a server beside it. */
  readonly ambient?: (sandbox: HttpClient.HttpClient) => HttpClient.HttpClient
}

/** A sandbox, the control over it, and a configuration that reaches it. */
export const sandboxLayer = (options: TestOptions = {}) =>
  layerUnwrap(
    Effect.map(Effect.orDie(Sandbox.make(options.sandbox)), (sandbox) =>
      Layer.mergeAll(
        Layer.succeed(HttpClient.HttpClient, (options.ambient ?? ((c) => c))(Sandbox.httpClient(sandbox.app))),
        Layer.succeed(Sandbox.SandboxControl, sandbox.control),
        Layer.orDie(DesignSearchConfig.layer({
          clientId: sandbox.clientId,
          clientSecret: sandbox.clientSecret,
          authUrl: Sandbox.inProcessUrl,
          baseUrl: Sandbox.inProcessUrl + DesignSearchConfig.apiPath,
          ...options.config
        }))
      ))
  )

/** The client, its token service and the sandbox behind them. */
export const clientLayer = (options: TestOptions = {}) =>
  DesignSearchClient.layer(options.client).pipe(Layer.provideMerge(sandboxLayer(options)))

/** The sandbox's counters. */
export const sandboxStats = Effect.flatMap(Sandbox.SandboxControl, (c) => c.stats)

/** Runs `effect` in the background while simulated time passes, then joins it. */
export const withTime = <A, E, R>(effect: Effect.Effect<A, E, R>, time: Parameters<typeof TestClock.adjust>[0]) =>
  Effect.gen(function*() {
    const fiber = yield* forkChild(effect)
    yield* TestClock.adjust(time)
    return yield* Fiber.join(fiber)
  })

/** A client over undici to a served sandbox, built in the test's scope. */
export const servedClient = (served: Sandbox.Served) =>
  Effect.map(
    Layer.build(
      DesignSearchClient.layer().pipe(
        Layer.provide(DesignSearchConfig.layer(served.clientOptions)),
        Layer.provide(NodeHttpClient.layerUndici)
      )
    ),
    Context.get(DesignSearchClient.DesignSearchClient)
  )
