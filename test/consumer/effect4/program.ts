/**
 * The README's Effect 4 program (test/readme.test.ts checks that the README shows it as it is
 * here): compiled and run in a fresh Effect 4.1 project by scripts/consumer-check.sh, against the
 * in-process sandbox and a throwaway PostgreSQL server named by DATABASE_URL.
 */
import { Console, Effect, Layer } from "effect"
import { DesignSearchClient, Sandbox } from "effect-design-search/effect4"
import * as DesignMirror from "effect-design-search/effect4/DesignMirror"

const program = Effect.gen(function*() {
  const client = yield* DesignSearchClient.DesignSearchClient
  const { data } = yield* client.quickSearch({ query: "chair", filters: { statusFilter: ["REGISTERED"] } })
  yield* Console.log(`${data.count} registered designs match "chair"`)
  const mirror = yield* DesignMirror.DesignMirror
  const report = yield* mirror.sync({ rows: [{ op: "AND", query: { owner: "wattle" } }] })
  yield* Console.log(`mirrored ${report.inserted} designs of Wattle in ${report.requests} requests`)
})

// The sandbox in place of the network; against the service: DesignSearchClient.layerConfig()
const ClientLayer = DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer()))
const MirrorLayer = DesignMirror.layer().pipe(
  Layer.provide(DesignMirror.layerPostgres({ url: process.env["DATABASE_URL"] ?? "postgres://localhost/designs" }))
)

Effect.runPromise(program.pipe(Effect.provide(MirrorLayer.pipe(Layer.provideMerge(ClientLayer)))))
