/**
 * An application of the packed package, as a new user writes it from the README and docs/: compiled in a
 * fresh project outside the repository by `scripts/consumer-check.sh` (strict, NodeNext,
 * `exactOptionalPropertyTypes`, no `skipLibCheck`) and run there against the in-process sandbox.
 * It exits 1 with a line saying what differs from the README.
 */
import { Cause, Effect, Fiber, Layer, Schema, TestClock, TestContext } from "effect"
import { DesignSearchClient, Fleet, Sandbox } from "effect-design-search"
import * as Designs from "effect-design-search/Designs"

// docs/library.md, "The client", with the sandbox in place of the network.
const program = Effect.gen(function*() {
  const client = yield* DesignSearchClient.DesignSearchClient
  const { data, messages } = yield* client.quickSearch({
    query: "chair",
    filters: { statusFilter: ["REGISTERED"], classificationFilter: ["06-01"] },
    changedSinceDate: "2020-01-01"
  })
  // data.count, data.designNumbers; messages: warnings or information from the server
  const { data: design } = yield* client.getDesign(data.designNumbers[0]!)
  return { count: data.count, messages: messages.length, design }
})

// The README's "Testing": a gateway hiccup, the retries' backoff on TestClock.
const TestLayer = DesignSearchClient.layer().pipe(Layer.provideMerge(Sandbox.layer({ designs: 500, seed: 1 })))

const hiccup = Effect.gen(function*() {
  const control = yield* Sandbox.SandboxControl
  yield* control.injectFault({ target: "design", status: 503, count: 2 })
  const client = yield* DesignSearchClient.DesignSearchClient
  const fiber = yield* Effect.fork(client.getDesign(Sandbox.fixedNumbers.chair))
  yield* TestClock.adjust("10 seconds") // the retries' backoff
  const { data } = yield* Fiber.join(fiber)
  return { title: data.title, designRequests: (yield* control.stats).requests.design }
}).pipe(Effect.provide(TestLayer), Effect.provide(TestContext.TestContext))

// docs/fleet.md, in a project that did not install ioredis: a typed failure naming the package.
const fleetWithoutIoredis = Effect.scoped(Layer.build(Fleet.layer())).pipe(
  Effect.match({ onFailure: (error) => String(error), onSuccess: () => "built" })
)

const check = (ok: boolean, what: string) => ok ? Effect.void : Effect.fail(what)

const main = Effect.gen(function*() {
  // 5,000 designs: the README's filters match none of the default 500
  const found = yield* program.pipe(
    Effect.provide(DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer({ designs: 5000, seed: 1 }))))
  )
  yield* check(found.count > 0, "a quick search for chair found nothing")
  yield* check(Schema.is(Designs.DesignNumber)(found.design.number), `not a design number: ${found.design.number}`)
  const retried = yield* hiccup
  yield* check(retried.designRequests === 3, `3 design requests expected, ${retried.designRequests} made`)
  const fleet = yield* fleetWithoutIoredis
  yield* check(fleet.includes("npm install ioredis"), `Fleet.layer without ioredis: ${fleet}`)
  return `consumer: ${found.count} chairs, design ${found.design.number}; a hiccup retried to "${retried.title}"; ` +
    "Fleet.layer without ioredis is a ConfigError that says how to install it"
})

Effect.runPromiseExit(main).then((exit) => {
  if (exit._tag === "Success") {
    process.stdout.write(exit.value + "\n")
  } else {
    process.stderr.write(`consumer: ${Cause.pretty(exit.cause)}\n`)
    process.exitCode = 1
  }
})
