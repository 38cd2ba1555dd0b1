/**
 * The program (`dist/cli/program.cjs`, run by `launch.ts`). Like `NodeRuntime.runMain`, but the exit
 * code is the program's own and signals are handled inside it (`Cli.run`).
 */
import { Effect, Exit } from "effect"
import { run } from "./Cli.js"

/** The package's version, written in by the build (`scripts/build-cli.mjs`) from `package.json`. */
declare const DESIGN_SEARCH_VERSION: string

// A reader that goes away (`design-search search x --json | head -c1`) is not an error of ours; any
// other failure to write the results (`> /dev/full`) is, and must not end in exit 0.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  process.stderr.write(`design-search: cannot write the results to stdout: ${error.code ?? error.message}\n`)
  process.exit(1)
})

const keepAlive = setInterval(() => {}, 2 ** 31 - 1)

Effect.runFork(run(process.argv, DESIGN_SEARCH_VERSION)).addObserver((exit) => {
  clearInterval(keepAlive)
  process.exitCode = Exit.isSuccess(exit) ? exit.value : 1
  // Leave when the event loop drains; should a stray handle keep it alive, leave anyway.
  setTimeout(() => process.exit(), 1000).unref()
})
