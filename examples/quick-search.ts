/**
 * Searches the embedded sandbox for chairs and prints the first few designs: the library used from
 * an Effect program, with the network swapped for `Sandbox.layer`. Run it with `npm run example`.
 * The README shows this file below this comment, and `test/readme.test.ts` checks that it does.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { DesignSearchClient, Sandbox } from "effect-design-search"

const program = Effect.gen(function*() {
  const client = yield* DesignSearchClient.DesignSearchClient
  const { data, messages } = yield* client.quickSearch({ query: "chair", filters: { statusFilter: ["REGISTERED"] } })
  yield* Console.log(`${data.count} registered designs match "chair"`)
  for (const number of data.designNumbers.slice(0, 5)) {
    const { data: design } = yield* client.getDesign(number)
    yield* Console.log(`${design.number}  ${design.title ?? ""}  (${design.owners?.[0]?.name ?? "no owner"})`)
  }
  for (const message of messages) yield* Console.log(`${message.severity ?? "information"}: ${message.detail}`)
})

// The sandbox in place of the network: no credentials, no sockets. Against the service, this
// line is `const ClientLayer = DesignSearchClient.layerConfig()`.
const ClientLayer = DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))

program.pipe(Effect.provide(ClientLayer), NodeRuntime.runMain)
