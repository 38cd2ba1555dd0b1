/**
 * Syncs every design of the sandbox into a PostgreSQL mirror with the Effect 3 edition, in a process
 * of its own, so that the Effect 4 edition's tests can take up what it wrote:
 * `node --import tsx test/support/mirrorSync.ts URL` prints the run's report as JSON.
 */
import { Effect, Layer } from "effect"
import * as DesignMirror from "../../src/DesignMirror.js"
import { clientLayer } from "./layers.js"
import { designs, everything } from "./mirror.js"

const database = DesignMirror.layerPostgres({ url: process.argv[2] ?? "" })
const run = Effect.flatMap(DesignMirror.DesignMirror, (mirror) => mirror.sync(everything)).pipe(
  Effect.provide(
    DesignMirror.layer().pipe(Layer.provideMerge(Layer.merge(database, clientLayer({ sandbox: { designs } }))))
  )
)

Effect.runPromise(run).then(
  (report) => process.stdout.write(JSON.stringify(report)),
  (error: unknown) => {
    process.stderr.write(String(error))
    process.exitCode = 1
  }
)
