#!/usr/bin/env node
/**
 * The `design-search` executable (`dist/cli/main.js`): starts the CLI's program, `program.cjs` beside
 * it (the bundle of `main.ts`). A short command starts it with V8's code cache for it, so that a run
 * after the first neither parses the bundle's 1.5 MB nor compiles the functions an earlier run
 * compiled (see "CLI start" under "Performance" in the README); Node 20 keeps no such cache itself
 * (`module.enableCompileCache` is Node 22's).
 *
 * The cache is one file in the CLI's cache folder (`cacheFolder.ts`), named by the program's build,
 * the Node version and the architecture; V8 checks it again (its version, its flags, the program's
 * length and the cache's checksum) and compiles afresh whatever it refuses. A run that found no
 * cache, or one V8 refused, writes one as it exits: with mode 0600 (a temporary file, synced, renamed
 * over the old one), in a folder of mode 0700, keeping the latest few of other builds. A file that is
 * not a regular file of this user's with mode 0600 or narrower is not read (V8 would run what it
 * holds). Whatever goes wrong with the cache, the program runs without it.
 * `DESIGN_SEARCH_NO_CODE_CACHE=1` turns it off: nothing is read or written.
 *
 * Plain Node, no Effect: everything here runs before the program is loaded.
 */
import { createHash } from "node:crypto"
import { chmodSync, closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync } from "node:fs"
import { readdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { setFlagsFromString } from "node:v8"
import { Script } from "node:vm"
import { cacheFolder, isOwnFolder, isPrivateFile, isWide, openFlags } from "./cacheFolder.js"
import { isLong, nodeOptionsArgs, v8FlagsFor } from "./launchFlags.js"

/** A digest of `program.cjs`, written in by the build (`scripts/build-cli.mjs`). */
declare const PROGRAM_DIGEST: string

/** The variable that turns the code cache off (`1`; empty or `0` leave it on). */
const disableVariable = "DESIGN_SEARCH_NO_CODE_CACHE"

/** Largest cache file read: V8's cache of the whole program is a few MB. */
const maxCacheBytes = 64 * 1024 * 1024

/** A temporary file older than this is one a writer killed mid-write left behind. */
const staleTemporaryMillis = 60_000

/**
 * Caches of other builds and Node versions kept beside this one's, the latest written: two installs
 * (a global and a project's) or two Node versions that take turns each keep theirs.
 */
const otherCachesKept = 3

// CommonJS (see `scripts/build-cli.mjs`): an ES module would make Node load its module loader first.
// The real path: a link to the launcher (a bin folder's) started with --preserve-symlinks-main is
// not beside the program.
const program = path.join(path.dirname(realpathSync(__filename)), "program.cjs")

/** The cache files' names: `code-<program digest>-<Node version>-<architecture>.v8`. */
const cacheName = /^code-.*\.v8$/
const temporaryName = /^\.code-.*\.tmp$/

/** Says why the program cannot be started, and leaves with exit 1. */
const cannotStart = (why: string): never => {
  process.stderr.write(`design-search: ${why}: reinstall the package\n`)
  process.exit(1)
}

/** The cache file of this program under this Node, or none when the cache is off or has no folder. */
const cacheFile = (): string | undefined => {
  const disabled = process.env[disableVariable]?.trim()
  if (disabled !== undefined && disabled !== "" && disabled !== "0") return undefined
  const folder = cacheFolder(process.env.XDG_CACHE_HOME)
  if (folder === undefined) return undefined
  return path.join(folder, `code-${PROGRAM_DIGEST}-${process.version}-${process.arch}.v8`)
}

/** The cache in `file` when it is a regular file of this user's, mode 0600 or narrower, within the bound. */
const readCache = (file: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    fd = openSync(file, openFlags)
    return isPrivateFile(fstatSync(fd), maxCacheBytes) ? readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Removes from `folder` what `writeCache` says; an entry that cannot be removed is left alone. */
const removeLeftovers = (folder: string, kept: string): void => {
  const now = Date.now()
  const others: Array<{ readonly file: string; readonly mtimeMs: number }> = []
  for (const name of readdirSync(folder)) {
    const file = path.join(folder, name)
    try {
      if (cacheName.test(name) && name !== kept) others.push({ file, mtimeMs: lstatSync(file).mtimeMs })
      else if (temporaryName.test(name) && now - lstatSync(file).mtimeMs > staleTemporaryMillis) unlinkSync(file)
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  for (const other of others.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(otherCachesKept)) {
    try {
      unlinkSync(other.file)
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/**
 * Writes `data` to `file` with mode 0600: a temporary file beside it, synced, renamed over it; `data`
 * is made only once the temporary file is open, so a folder that takes no file costs nothing. Then
 * removes the caches of other builds and Node versions but the `otherCachesKept` latest, so upgrades
 * leave few behind, and temporary files writers killed mid-write left.
 */
const writeCache = (file: string, data: () => Buffer): void => {
  const folder = path.dirname(file)
  const temporary = path.join(folder, `.${path.basename(file)}.${process.pid}.tmp`)
  let fd: number | undefined
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
    const stat = lstatSync(folder)
    if (!isOwnFolder(stat)) return
    if (isWide(stat)) chmodSync(folder, 0o700)
    if (lstatSync(file, { throwIfNoEntry: false })?.isDirectory() === true) return
    fd = openSync(temporary, "wx", 0o600)
    const bytes = data()
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written)
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(temporary, file)
    removeLeftovers(folder, path.basename(file))
  } catch {
    if (fd !== undefined) closeSync(fd)
    try {
      unlinkSync(temporary)
    } catch {
      // never made
    }
  }
}

const long = isLong(process.argv.slice(2))
const nodeArgs = [...process.execArgv, ...nodeOptionsArgs(process.env.NODE_OPTIONS)]
// Before the program is compiled: V8 reads them as it compiles and optimizes.
for (const flag of v8FlagsFor(long, nodeArgs, process.versions.v8)) setFlagsFromString(flag)
// A long command starts without the code cache, which V8 takes only under the flags it was made
// with, and whose gain is small beside its run.
const short = !long

/** The program's bytes: a regular file, opened without waiting (a FIFO in its place would hold the open). */
const readProgram = (): Buffer => {
  let fd: number | undefined
  try {
    fd = openSync(program, constants.O_RDONLY | constants.O_NONBLOCK)
    if (!fstatSync(fd).isFile()) return cannotStart(`its program ${program} is not a file`)
    return readFileSync(fd)
  } catch (error) {
    return cannotStart(`cannot read its program ${program} (${String(error)})`)
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

const bytes = readProgram()
// The program the launcher was built with, whole: another would run beside the code cached of this
// one, a cut one fail with a stack trace.
if (createHash("sha256").update(bytes).digest("hex").slice(0, 16) !== PROGRAM_DIGEST) {
  cannotStart(`its program ${program} is not the one it was built with`)
}
const source = bytes.toString("utf8")
const file = short ? cacheFile() : undefined
// V8 checks a cache's header only; a damaged body (a write cut by a power loss) would crash it.
if (file !== undefined) setFlagsFromString("--verify-snapshot-checksum")
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
