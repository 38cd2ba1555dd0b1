/**
 * The program (`dist/cli/program.cjs`, run by `launch.ts`), on `NodeRuntime.runMain`: SIGINT and
 * SIGTERM interrupt the command (its finalizers run), and the exit code is the command's own.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Exit } from "effect"
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

const { onSignal, program } = run(process.argv, DESIGN_SEARCH_VERSION)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit) => {
    // `program` answers its code and never fails: a run that did not succeed was interrupted by a signal.
    process.exitCode = Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : onSignal
    // Leave when the event loop drains; should a stray handle keep it alive, leave anyway.
    setTimeout(() => process.exit(), 1000).unref()
  }
})
