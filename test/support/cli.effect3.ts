/**
 * Helpers of the CLI's tests: run the built `design-search` (`dist/cli/main.js`) as a child process
 * with a clean environment, wait on its output or exit (never on a clock), and point it at a served
 * sandbox. Every wait is bounded and fails the test with what the process said so far.
 */
import { Data, Deferred, Duration, Effect, Either, Schema } from "effect"
import type { Scope } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { Sandbox } from "../../src/index.js"
import { Designs } from "../../src/index.js"

/** The built CLI; `npm test` builds before running the tests. */
export const cliPath = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url))

/** A wait that ran out of time, or a child that could not be started. */
export class CliTestError extends Data.TaggedError("CliTestError")<{ readonly message: string }> {}

/** How a run ended and what it wrote. */
export interface Outcome {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A child process of the CLI that is still running. */
export interface Running {
  /** What it has written so far. */
  readonly output: () => { readonly stdout: string; readonly stderr: string }
  /** Waits for it to exit, at most `timeout`. */
  readonly exit: (timeout?: Duration.DurationInput) => Effect.Effect<Outcome, CliTestError>
  /** Waits until its output satisfies `predicate`, at most `timeout`. */
  readonly waitForOutput: (
    predicate: (output: { readonly stdout: string; readonly stderr: string }) => boolean,
    timeout?: Duration.DurationInput
  ) => Effect.Effect<void, CliTestError>
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
}

const defaultTimeout = Duration.seconds(20)

/**
 * Only what the CLI needs: no `IPAUSTRALIA_*` leaks in from the environment of the test run, and a
 * cache folder of the run's own (`cacheHome`, fresh and empty) unless the test gives one, so that no
 * run reuses another's token and none writes to the user's cache.
 */
const childEnv = (env: Record<string, string>, cacheHome: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  XDG_CACHE_HOME: cacheHome,
  ...env
})

/** A fresh, empty folder, removed with the scope: a run's own cache folder (`XDG_CACHE_HOME`). */
export const freshFolder: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "design-search-cache-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** The user and group a child runs as, where not the test's own, and the Node.js that runs it. */
export interface RunAs {
  readonly uid?: number
  readonly gid?: number
  readonly node?: string | undefined
}

/** Starts the CLI with `args` (as `as` says); the scope kills it if it is still running when the test ends. */
export const start = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  as: RunAs = {}
): Effect.Effect<Running, CliTestError, Scope.Scope> =>
  Effect.gen(function*() {
    if (!fs.existsSync(cliPath)) {
      return yield* new CliTestError({ message: `${cliPath} is missing: run \`npm run build\` first` })
    }
    const cacheHome = yield* freshFolder
    const exited = yield* Deferred.make<Outcome>()
    const out = { stdout: "", stderr: "" }
    const listeners = new Set<() => void>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(as.node ?? process.execPath, [cliPath, ...args], {
          env: childEnv(env, cacheHome),
          stdio: ["ignore", "pipe", "pipe"],
          ...(as.uid === undefined ? {} : { uid: as.uid }),
          ...(as.gid === undefined ? {} : { gid: as.gid })
        })
      ),
      (child) => Effect.sync(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")))
    )
    const changed = () => listeners.forEach((listener) => listener())
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out.stdout += chunk
      changed()
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      out.stderr += chunk
      changed()
    })
    child.on("close", (code, signal) => {
      Deferred.unsafeDone(exited, Effect.succeed({ code, signal, ...out }))
      changed()
    })
    const describe = () =>
      `stdout: ${JSON.stringify(out.stdout.slice(-2000))}\nstderr: ${JSON.stringify(out.stderr.slice(-2000))}`
    const timedOut = (what: string, timeout: Duration.DurationInput) => () =>
      new CliTestError({
        message: `design-search ${args.join(" ")}: no ${what} within ${
          Duration.format(Duration.decode(timeout))
        }\n${describe()}`
      })
    return {
      output: () => ({ ...out }),
      exit: (timeout = defaultTimeout) =>
        Deferred.await(exited).pipe(Effect.timeoutFail({ duration: timeout, onTimeout: timedOut("exit", timeout) })),
      waitForOutput: (predicate, timeout = defaultTimeout) =>
        Effect.async<void>((resume) => {
          const check = () => {
            if (predicate(out)) {
              listeners.delete(check)
              resume(Effect.void)
            }
          }
          listeners.add(check)
          check()
          return Effect.sync(() => void listeners.delete(check))
        }).pipe(Effect.timeoutFail({ duration: timeout, onTimeout: timedOut("expected output", timeout) })),
      kill: (signal) => Effect.sync(() => void child.kill(signal))
    } satisfies Running
  })

/** Runs the CLI to its end. */
export const run = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  timeout: Duration.DurationInput = defaultTimeout,
  as: RunAs = {}
): Effect.Effect<Outcome, CliTestError> =>
  Effect.scoped(Effect.flatMap(start(args, env, as), (running) => running.exit(timeout)))

/** The `IPAUSTRALIA_*` variables that point the CLI at a served sandbox. */
export const envFor = (served: Sandbox.Served, overrides: Record<string, string> = {}): Record<string, string> => ({
  IPAUSTRALIA_CLIENT_ID: served.sandbox.clientId,
  IPAUSTRALIA_CLIENT_SECRET: served.sandbox.clientSecret,
  IPAUSTRALIA_AUTH_URL: served.url,
  IPAUSTRALIA_BASE_URL: served.baseUrl,
  ...overrides
})

/**
 * Waits until the file at `file` satisfies `predicate` (checked now and on every change the file
 * system reports in its directory), at most `timeout`.
 */
export const waitForFile = (
  file: string,
  predicate: (content: string) => boolean,
  timeout: Duration.DurationInput = defaultTimeout
): Effect.Effect<void, CliTestError> =>
  Effect.async<void>((resume) => {
    let done = false
    const check = () => {
      if (done) return true
      const content = Either.getOrElse(Either.try(() => fs.readFileSync(file, "utf8")), () => "")
      if (!predicate(content)) return false
      done = true
      resume(Effect.void)
      return true
    }
    const watcher = fs.watch(path.dirname(file), () => void check())
    if (check()) watcher.close()
    return Effect.sync(() => watcher.close())
  }).pipe(
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new CliTestError({
          message: `${file} did not reach the expected state within ${Duration.format(Duration.decode(timeout))}`
        })
    })
  )

/** The complete lines of a JSONL text (the part after the last newline is not a line yet). */
export const completeLines = (content: string): Array<string> => {
  const lines = content.split("\n")
  lines.pop()
  return lines
}

const decodeDesignLine = Schema.decodeUnknownEither(Schema.parseJson(Designs.Design))

/** Decodes every line of an export file as a design; `Left` names the first line that is not one. */
export const readExport = (file: string): Either.Either<Array<Designs.Design>, string> => {
  const content = fs.readFileSync(file, "utf8")
  if (content !== "" && !content.endsWith("\n")) return Either.left("the file does not end with a newline")
  const designs: Array<Designs.Design> = []
  for (const [index, line] of completeLines(content).entries()) {
    const decoded = decodeDesignLine(line)
    if (Either.isLeft(decoded)) return Either.left(`line ${index + 1} is not a design: ${line.slice(0, 200)}`)
    designs.push(decoded.right)
  }
  return Either.right(designs)
}

/** Matches anything shaped like a JWT. */
export const jwtPattern = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/
