#!/usr/bin/env node
/**
 * The `design-search` executable (`dist/cli/main.js`): starts the CLI's program, `program.cjs` beside
 * it (the bundle of `main.ts`). A short command starts it with V8's code cache for it, so that a run
 * after the first neither parses the bundle's 1.5 MB nor compiles the functions an earlier run
 * compiled (see "CLI start" under "Performance" in the README); Node 20 keeps no such cache itself
 * (`module.enableCompileCache` is Node 22's).
 *
 * The cache is one file in the CLI's cache folder (`cacheFolder.ts`), named by the program's build,
 * the Node version and the architecture; V8 checks it again (its version, its flags and the
 * program's length) and compiles afresh whatever it refuses. A run that found no cache, or one V8
 * refused, writes one as it exits: with mode 0600 (a temporary file, renamed over the old one), in a
 * folder of mode 0700, and removes those of other builds. A file that is not a regular file of this
 * user's with mode 0600 or narrower is not read (V8 would run what it holds). Whatever goes wrong
 * with the cache, the program runs without it. `DESIGN_SEARCH_NO_CODE_CACHE=1` turns it off:
 * nothing is read or written.
 *
 * Plain Node, no Effect: everything here runs before the program is loaded.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync } from "node:fs"
import { chmodSync, readdirSync, unlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { Script } from "node:vm"
import { cacheFolder } from "./cacheFolder.js"

/** A digest of `program.cjs`, written in by the build (`scripts/build-cli.mjs`). */
declare const PROGRAM_DIGEST: string

/** The variable that turns the code cache off (`1`; empty or `0` leave it on). */
const disableVariable = "DESIGN_SEARCH_NO_CODE_CACHE"

/** Largest cache file read: V8's cache of the whole program is a few MB. */
const maxCacheBytes = 64 * 1024 * 1024

const currentUid = typeof process.getuid === "function" ? process.getuid() : undefined

const program = fileURLToPath(new URL("./program.cjs", import.meta.url))

/** The cache files' names: `code-<program digest>-<Node version>-<architecture>.v8`. */
const cacheName = /^code-.*\.v8$/

/** The cache file of this program under this Node, or none when the cache is off or has no folder. */
const cacheFile = (): string | undefined => {
  const disabled = process.env[disableVariable]
  if (disabled !== undefined && disabled !== "" && disabled !== "0") return undefined
  const folder = cacheFolder(process.env.XDG_CACHE_HOME)
  if (folder === undefined) return undefined
  return path.join(folder, `code-${PROGRAM_DIGEST}-${process.version}-${process.arch}.v8`)
}

/** The cache in `file` when it is a regular file of this user's, mode 0600 or narrower, within the bound. */
const readCache = (file: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    // Not blocking: a FIFO put in its place would hold the open until something wrote to it.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const stat = fstatSync(fd)
    const usable = stat.isFile() && (stat.mode & 0o077) === 0 &&
      (currentUid === undefined || stat.uid === currentUid) && stat.size <= maxCacheBytes
    return usable ? readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Writes `data` to `file` with mode 0600: a temporary file beside it, renamed over it. Then removes
 * the caches of other builds and Node versions: one is kept, so upgrades leave none behind.
 */
const writeCache = (file: string, data: () => Buffer): void => {
  const folder = path.dirname(file)
  const temporary = path.join(folder, `.${path.basename(file)}.${process.pid}.tmp`)
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const stat = lstatSync(folder)
    if (!stat.isDirectory() || (currentUid !== undefined && stat.uid !== currentUid)) return
    if ((stat.mode & 0o077) !== 0) chmodSync(folder, 0o700)
    writeFileSync(temporary, data(), { mode: 0o600, flag: "wx" })
    renameSync(temporary, file)
    for (const name of readdirSync(folder)) {
      if (cacheName.test(name) && name !== path.basename(file)) unlinkSync(path.join(folder, name))
    }
  } catch {
    try {
      unlinkSync(temporary)
    } catch {
      // never written
    }
  }
}

/** Commands that run for seconds or more: their start is small beside their run. */
const longCommands: ReadonlySet<string> = new Set(["export", "sync", "sandbox"])

/** The command `args` name: the first word that is no option (`--env`'s value is one). */
const commandOf = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return undefined
    if (arg === "--env") i++
    else if (!arg.startsWith("-")) return arg
  }
  return undefined
}

/**
 * V8 optimizes a function once it has run some bytecode. A short command (`--help`, `get`) never
 * earns the optimizing compile of Effect's run loop back, and its exit waits for any compile under
 * way (about 20 ms after `--help`): four times V8's default budget optimizes nothing in `--help`. A
 * long command keeps V8's default, which its first thousands of designs need, and starts without the
 * code cache, which V8 takes only under the flags it was made with and whose gain is small beside
 * its run. The budget is set before the program is compiled; one given to Node wins.
 */
const interruptBudget = "--interrupt-budget"
const short = !longCommands.has(commandOf(process.argv.slice(2)) ?? "")
if (short && !process.execArgv.some((arg) => arg.startsWith(interruptBudget))) {
  setFlagsFromString(`${interruptBudget}=${4 * 132 * 1024}`)
}

let source: string
try {
  source = readFileSync(program, "utf8")
} catch (error) {
  process.stderr.write(`design-search: cannot read its program ${program} (${String(error)}): reinstall the package\n`)
  process.exit(1)
}
const file = short ? cacheFile() : undefined
const cached = file === undefined ? undefined : readCache(file)
// The program as Node would wrap a CommonJS module, compiled from the cache when V8 takes it.
const script = new Script(
  `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
  cached === undefined ? { filename: program } : { filename: program, cachedData: cached }
)
if (file !== undefined && (cached === undefined || script.cachedDataRejected === true)) {
  // At exit the cache holds every function this run compiled, not only the program's top level.
  process.once("exit", () => writeCache(file, () => script.createCachedData()))
}
const programModule = { exports: {} }
const run: unknown = script.runInThisContext()
if (typeof run === "function") {
  run.call(
    programModule.exports,
    programModule.exports,
    createRequire(program),
    programModule,
    program,
    path.dirname(program)
  )
}
