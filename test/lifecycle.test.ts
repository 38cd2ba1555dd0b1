/**
 * Faults and lifecycles over real sockets: the served sandbox drops connections, a call that is
 * interrupted aborts its request, and closing the client's scope leaves no timer, fiber or socket.
 */
import { FetchHttpClient, forkChild } from "#edition/internal/seam"
import type { HttpClient } from "#edition/internal/seam"
import { fiberTracker, NodeHttpClient } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Schedule, Scope } from "effect"
import { DesignSearchClient, DesignSearchConfig, Sandbox, TokenService } from "../src/index.js"

const chair = Sandbox.fixedNumbers.chair
const Client = DesignSearchClient.DesignSearchClient

/** The `HttpClient`s under test: the default one (fetch) and the platform's undici client. */
const transports = [
  ["FetchHttpClient.layer", FetchHttpClient.layer],
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici]
] as const

/** The client reaching `served` over `transport`, with immediate retries so no test waits on backoff. */
const clientLayerOver = (transport: Layer.Layer<HttpClient.HttpClient>) => (served: Sandbox.Served) =>
  DesignSearchClient.layer({ retrySchedule: Schedule.recurs(3) }).pipe(
    Layer.provide(TokenService.layer({ retrySchedule: Schedule.recurs(4) })),
    Layer.provide(DesignSearchConfig.layer(served.clientOptions)),
    Layer.provide(transport)
  )

/**
 * Waits until `check` holds, polled on real time for 5 seconds at most by a timer that has fired when
 * `check` runs (an effect's timers would count among the active handles a check counts).
 */
const eventually = (check: () => boolean) =>
  Effect.flatMap(
    Effect.promise(() =>
      new Promise<boolean>((resolve) => {
        const deadline = Date.now() + 5000
        const poll = () => check() ? resolve(true) : Date.now() > deadline ? resolve(false) : void setTimeout(poll, 5)
        poll()
      })
    ),
    (ok) => ok ? Effect.void : Effect.die(new Error("condition not reached within 5 s"))
  )
/** The served sandbox's counters, read at once. */
const statsOf = (served: Sandbox.Served) => Effect.runSync(served.control.stats)

/** Counts of the process's active handles, by kind. */
const activeResources = () => {
  const counts = new Map<string, number>()
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1)
  return counts
}

for (const [transportName, transport] of transports) {
  const clientLayer = clientLayerOver(transport)

  describe(`dropped connections over real sockets, ${transportName}`, () => {
    for (const kind of ["reset", "resetMidBody"] as const) {
      it.live(`${kind}: a TransportError after the first try and three retries; once, the retry succeeds`, () =>
        Effect.scoped(Effect.gen(function*() {
          const served = yield* Sandbox.serve({ port: 0, designs: 300 })
          const client = Context.get(yield* Layer.build(clientLayer(served)), Client)
          yield* served.control.injectFault({ target: "design", kind, status: 200, count: 4, body: { number: chair } })
          const error = yield* Effect.flip(client.getDesign(chair))
          expect(error).toMatchObject({ _tag: "TransportError", reason: kind === "reset" ? "Network" : "Body" })
          expect((yield* served.control.stats).requests.design).toBe(4)
          yield* served.control.injectFault({ target: "design", kind, status: 200, body: { number: chair } })
          expect((yield* client.getDesign(chair)).data.number).toBe(chair)
          expect((yield* served.control.stats).requests.design).toBe(6)
        })))
    }

    it.live("a connection reset at the token endpoint is retried", () =>
      Effect.scoped(Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 300 })
        const client = Context.get(yield* Layer.build(clientLayer(served)), Client)
        yield* served.control.injectFault({ target: "token", kind: "reset", status: 200, count: 2 })
        expect((yield* client.getDesign(chair)).data.number).toBe(chair)
        expect((yield* served.control.stats).requests.token).toBe(3)
      })))
  })

  describe(`timeouts and caps, ${transportName}`, () => {
    const strict = (served: Sandbox.Served) =>
      DesignSearchClient.layer({ retrySchedule: Schedule.recurs(0) }).pipe(
        Layer.provide(
          DesignSearchConfig.layer({ ...served.clientOptions, requestTimeout: "300 millis", maxBodyBytes: 2048 })
        ),
        Layer.provide(transport)
      )

    it.live("an answer that stalls past the request timeout is a TransportError Timeout", () =>
      Effect.scoped(Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 300 })
        const client = Context.get(yield* Layer.build(strict(served)), Client)
        yield* client.getDesign(chair)
        yield* served.control.injectFault({ target: "design", status: 200, delayMs: 60_000 })
        expect(yield* Effect.flip(client.getDesign(chair))).toMatchObject({ _tag: "TransportError", reason: "Timeout" })
        yield* eventually(() => statsOf(served).abandoned === 1)
      })))

    it.live("a body over the cap is refused, with or without Content-Length, and the next call goes through", () =>
      Effect.scoped(Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 300 })
        const client = Context.get(yield* Layer.build(strict(served)), Client)
        yield* served.control.injectFault({
          target: "design",
          status: 200,
          body: { number: chair, title: "x".repeat(5000) }
        })
        expect(yield* Effect.flip(client.getDesign(chair))).toMatchObject({
          _tag: "UnexpectedResponseError",
          status: 200
        })
        expect((yield* client.getDesign(chair)).data.number).toBe(chair)
      })))
  })

  describe(`interruption and scope, ${transportName}`, () => {
    it.live("interrupting a call aborts its request: the server sees the client go away", () =>
      Effect.scoped(Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 300 })
        const client = Context.get(yield* Layer.build(clientLayer(served)), Client)
        yield* client.getDesign(chair)
        yield* served.control.injectFault({ target: "design", status: 200, delayMs: 60_000 })
        const fiber = yield* forkChild(client.getDesign(chair))
        yield* eventually(() => statsOf(served).requests.design === 2)
        yield* Fiber.interrupt(fiber)
        yield* eventually(() => statsOf(served).abandoned === 1)
        // the next call goes through at once: nothing is stuck behind the aborted one
        expect((yield* client.getDesign(chair)).data.number).toBe(chair)
      })))

    it.live("closing the client's scope leaves no timers, fibers or sockets behind", () =>
      Effect.scoped(Effect.gen(function*() {
        const served = yield* Sandbox.serve({ port: 0, designs: 300 })
        const baseline = activeResources()
        // Effect 4 has no supervisors: there only the timers and sockets are counted
        const fibers = fiberTracker === undefined ? undefined : yield* fiberTracker
        const scope = yield* Scope.make()
        yield* Effect.gen(function*() {
          const context = yield* Layer.buildWithScope(clientLayer(served), scope)
          const client = Context.get(context, Client)
          const tokens = Context.get(context, TokenService.TokenService)
          yield* client.quickSearch({ query: "chair" })
          const { bottle, wristWatch } = Sandbox.fixedNumbers
          yield* Effect.forEach([chair, bottle, wristWatch], client.getDesign, { concurrency: 3 })
          // a token handed out from the cache: its refresh is scheduled
          yield* tokens.get
        }).pipe(fibers?.supervise ?? ((effect) => effect))
        const during = activeResources()
        expect(during.get("TCPSocketWrap") ?? 0).toBeGreaterThan(baseline.get("TCPSocketWrap") ?? 0)
        // the refresh fiber, waiting to refresh the token in use
        if (fibers !== undefined) expect(yield* fibers.running).toBeGreaterThan(0)
        yield* Scope.close(scope, Exit.void)
        if (fibers !== undefined) expect(yield* fibers.running).toBe(0)
        const left = (kind: string) => (activeResources().get(kind) ?? 0) - (baseline.get(kind) ?? 0)
        yield* eventually(() => left("TCPSocketWrap") <= 0 && left("Timeout") <= 0)
      })))
  })
}
