/**
 * A sync of every design of the sandbox into a PostgreSQL mirror by the Effect 3 edition, in a
 * process of its own, whose tables a test then takes up (under Effect 4: another edition's).
 * `effect3Sync(URL, SCHEMA?)` runs this file as `node --import tsx test/support/mirrorSync.ts URL
 * SCHEMA`, which prints the run's report as JSON.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as DesignMirror from "../../src/DesignMirror.js"
import { mirrorOver, syncAll } from "./mirror.js"

const script = fileURLToPath(import.meta.url)
/** The repository's root, where the Effect 3 edition's tests run. */
const root = fileURLToPath(new URL("../..", import.meta.url))

/** The report of that sync into the database `url`, in the mirror's `schema` (its default if none). */
export const effect3Sync = (url: string, schema?: string) =>
  Effect.tryPromise({
    try: () =>
      new Promise<{ readonly criteriaKey: string; readonly watermark: string; readonly fetched: number }>(
        (resolve, reject) =>
          // tsconfig.test.json's paths: `#edition/*` and `#test-edition/*` as the Effect 3 suite has them
          void execFile(process.execPath, ["--import", "tsx", script, url, ...(schema === undefined ? [] : [schema])], {
            cwd: root,
            env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.test.json" }
          }, (error, stdout, stderr) =>
            error === null ? resolve(JSON.parse(stdout)) : reject(`${error.message}${stderr}`))
      ),
    catch: (e) =>
      new Error(String(e))
  })

if (process.argv[1] === script) {
  const sql = DesignMirror.layerPostgres({ url: process.argv[2] ?? "" })
  Effect.runPromise(Effect.provide(syncAll, mirrorOver(sql, { options: { schema: process.argv[3] } })))
    .then(
      (report) => process.stdout.write(JSON.stringify(report)),
      (error: unknown) => {
        process.stderr.write(String(error))
        process.exitCode = 1
      }
    )
}
