/**
 * The launcher's code cache (`src/cli/launch.ts`): the built `design-search` run with a cache folder
 * of the test's own. A second run reads V8's cache (which V8 would otherwise refuse and the
 * launcher rewrite); a cache that is refused, not the user's alone or a link is replaced; a run with
 * no usable folder, or with the cache off, is as without it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { version as cliVersion } from "../src/cli/Cli.js"
import { Sandbox } from "../src/index.js"
import { cliPath, freshFolder, run } from "./support/cli.js"

/** A fresh folder standing for `XDG_CACHE_HOME`, removed afterwards. */
const cacheHome = freshFolder

const folderOf = (home: string) => path.join(home, "design-search")

/** The code cache files in `home`'s folder. */
const codeFiles = (home: string): Array<string> =>
  fs.existsSync(folderOf(home))
    ? fs.readdirSync(folderOf(home)).filter((name) => name.startsWith("code-")).map((name) =>
      path.join(folderOf(home), name)
    )
    : []

/** The one code cache file in `home`'s folder. */
const theFile = (home: string): string => {
  const files = codeFiles(home)
  expect(files).toHaveLength(1)
  return files[0] ?? ""
}

/** A run with the code cache on, in `home`. */
const runCached = (args: ReadonlyArray<string>, home: string) =>
  run(args, { XDG_CACHE_HOME: home, DESIGN_SEARCH_NO_CODE_CACHE: "" })

const help = ["--help"]
const get = ["get", Sandbox.fixedNumbers.chair, "--json", "--env", "sandbox"]

/** What identifies a file's content as written: a rename makes a new inode. */
const identity = (file: string) => {
  const stat = fs.lstatSync(file)
  return { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size }
}

describe("the code cache", () => {
  it.scoped("a first run writes it with mode 0600 in a folder of mode 0700, and the next run reads it as is", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const uncached = yield* run(help)
      const first = yield* runCached(help, home)
      const file = theFile(home)
      expect(path.basename(file)).toMatch(/^code-[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+\.v8$/)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.statSync(folderOf(home)).mode & 0o777).toBe(0o700)
      expect(fs.statSync(file).size).toBeGreaterThan(100_000)
      const written = identity(file)
      // V8 takes the cache only under the flags it was made with: refused, it would be written again.
      const second = yield* runCached(help, home)
      expect(identity(theFile(home))).toEqual(written)
      for (const outcome of [first, second]) {
        expect(outcome.code).toBe(0)
        expect(outcome.stdout).toBe(uncached.stdout)
        expect(outcome.stderr).toBe("")
      }
    }))

  it.scoped("a command run from the cache answers as one run without it", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const uncached = yield* run(get)
      expect(uncached.code).toBe(0)
      const runs = [yield* runCached(get, home), yield* runCached(get, home)]
      for (const outcome of runs) expect(outcome).toEqual(uncached)
    }))

  it.scoped("the long commands (export, sync, sandbox) neither read nor write it; the short ones do", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const out = path.join(home, "designs.jsonl")
      const exports = [
        ["export", "chair", "--out", out, "--env", "sandbox"],
        ["--env", "sandbox", "export", "chair", "--out", out],
        ["--log-level", "info", "export", "chair", "--out", out, "--env", "sandbox"],
        ["--", "export", "chair", "--out", out, "--env", "sandbox"]
      ]
      for (const args of exports) {
        const outcome = yield* runCached(args, home)
        expect(outcome.code, outcome.stderr).toBe(0)
        expect(codeFiles(home)).toEqual([])
      }
      expect((yield* runCached(["--env", "sandbox", ...get.slice(0, 3)], home)).code).toBe(0)
      expect(codeFiles(home)).toHaveLength(1)
    }))

  it.scoped("a cache V8 refuses (garbage, cut short, damaged inside) is replaced by a good one, and the run is as without it", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const uncached = yield* run(help)
      yield* runCached(help, home)
      const file = theFile(home)
      const good = fs.readFileSync(file)
      // Whole-file garbage and a cut file fail V8's header check; a body zeroed from the middle (a
      // write cut by a power loss) or with bytes changed inside only the checksum of the body.
      const zeroedHalf = Buffer.concat([
        good.subarray(0, good.length >> 1),
        Buffer.alloc(good.length - (good.length >> 1))
      ])
      const flipped = Buffer.from(good)
      for (let i = good.length >> 2; i < good.length; i += 4099) flipped[i] = flipped[i]! ^ 0xff
      const bad = [
        Buffer.alloc(good.length, 0x5a),
        good.subarray(0, good.length >> 1),
        Buffer.alloc(0),
        zeroedHalf,
        flipped
      ]
      for (const content of bad) {
        fs.rmSync(file)
        fs.writeFileSync(file, content, { mode: 0o600 })
        const outcome = yield* runCached(help, home)
        expect(outcome.code).toBe(0)
        expect(outcome.stdout).toBe(uncached.stdout)
        expect(outcome.stderr).toBe("")
        expect(fs.readFileSync(theFile(home)).length).toBeGreaterThan(100_000)
        expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      }
    }))

  it.scoped("a cache others may write, or a link, is not read: it is replaced, and a link's target left alone", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      yield* runCached(help, home)
      const file = theFile(home)
      const good = fs.readFileSync(file)

      // A good cache, but writable by the group: read, V8 would take it and nothing be written.
      fs.chmodSync(file, 0o660)
      const before = identity(file)
      expect((yield* runCached(help, home)).code).toBe(0)
      expect(identity(file).ino).not.toBe(before.ino)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)

      // A link to a good cache elsewhere: replaced by a file of its own, the target untouched.
      const elsewhere = path.join(home, "elsewhere.v8")
      fs.writeFileSync(elsewhere, good, { mode: 0o600 })
      const target = identity(elsewhere)
      fs.rmSync(file)
      fs.symlinkSync(elsewhere, file)
      expect((yield* runCached(help, home)).code).toBe(0)
      expect(fs.lstatSync(file).isFile()).toBe(true)
      expect(identity(elsewhere)).toEqual(target)
      expect(fs.readFileSync(elsewhere).equals(good)).toBe(true)
    }))

  it.scoped("a FIFO in its place is not waited on, and is replaced", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const uncached = yield* run(help)
      yield* runCached(help, home)
      const file = theFile(home)
      fs.rmSync(file)
      execFileSync("mkfifo", ["-m", "600", file])
      const outcome = yield* runCached(help, home)
      expect(outcome.code).toBe(0)
      expect(outcome.stdout).toBe(uncached.stdout)
      expect(fs.lstatSync(file).isFile()).toBe(true)
    }))

  it.scoped("writing one keeps the three latest caches of other builds and Node versions, and removes the rest", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const folder = folderOf(home)
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
      const others = [0, 1, 2, 3, 4].map((i) => `code-0123456789abcde${i}-v20.0.0-x64.v8`)
      others.forEach((name, i) => {
        const file = path.join(folder, name)
        fs.writeFileSync(file, "x", { mode: 0o600 })
        const written = new Date(Date.now() - (i + 1) * 3_600_000)
        fs.utimesSync(file, written, written)
      })
      // One that cannot be removed stops nothing.
      fs.mkdirSync(path.join(folder, "code-a-directory.v8"))
      const kept = ["token-0123456789abcdef0123456789abcdef.json", "notes.v8"]
      for (const name of kept) fs.writeFileSync(path.join(folder, name), "x", { mode: 0o600 })
      expect((yield* runCached(help, home)).code).toBe(0)
      const latest = ["code-a-directory.v8", ...others.slice(0, 2)]
      const ours = fs.readdirSync(folder).filter((name) =>
        name.startsWith("code-") && !name.includes("0123456789abcde")
      )
      expect(ours.filter((name) => !latest.includes(name))).toHaveLength(1)
      expect(fs.readdirSync(folder).sort()).toEqual([...ours, ...others.slice(0, 2), ...kept].sort())
    }))

  it.scoped("with no folder to write to, or DESIGN_SEARCH_NO_CODE_CACHE=1, the run is as without it", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const uncached = yield* run(get)
      const notAFolder = path.join(home, "file")
      fs.writeFileSync(notAFolder, "")
      expect(yield* runCached(get, notAFolder)).toEqual(uncached)
      expect(fs.readFileSync(notAFolder, "utf8")).toBe("")

      const off = yield* run(get, { XDG_CACHE_HOME: home, DESIGN_SEARCH_NO_CODE_CACHE: "1" })
      expect(off).toEqual(uncached)
      expect(codeFiles(home)).toEqual([])
    }))

  it.scoped("a launcher without its program, with another, or with a FIFO, says so in one line, exit 1", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const alone = path.join(home, "main.js")
      fs.copyFileSync(cliPath, alone)
      fs.writeFileSync(path.join(home, "package.json"), JSON.stringify({ type: "commonjs" }))
      const start = () =>
        spawnSync(process.execPath, [alone, "--version"], {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", XDG_CACHE_HOME: home },
          encoding: "utf8",
          timeout: 20_000
        })
      const missing = start()
      expect(missing.status).toBe(1)
      expect(missing.stdout).toBe("")
      expect(missing.stderr).toMatch(
        /^design-search: cannot read its program .*program\.cjs .*: reinstall the package\n$/
      )

      const program = fs.readFileSync(path.join(path.dirname(cliPath), "program.cjs"), "utf8")
      const version = JSON.stringify(cliVersion)
      expect(program).toContain(version)
      // Empty, cut, and edited to the same length: none is the program the launcher was built with.
      for (
        const other of [
          "",
          program.slice(0, program.length >> 1),
          program.replace(version, `"${"9".repeat(version.length - 2)}"`)
        ]
      ) {
        fs.writeFileSync(path.join(home, "program.cjs"), other)
        const outcome = start()
        expect(outcome.status).toBe(1)
        expect(outcome.stdout).toBe("")
        expect(outcome.stderr).toMatch(
          /^design-search: its program .*program\.cjs is not the one it was built with: reinstall the package\n$/
        )
      }
      fs.rmSync(path.join(home, "program.cjs"))
      execFileSync("mkfifo", [path.join(home, "program.cjs")])
      const fifo = start()
      expect(fifo.status).toBe(1)
      expect(fifo.stderr).toMatch(/^design-search: its program .*program\.cjs is not a file: reinstall the package\n$/)
      fs.rmSync(path.join(home, "program.cjs"))
      fs.writeFileSync(path.join(home, "program.cjs"), program)
      expect(start().stdout.trim()).toBe(cliVersion)
    }))

  it.scoped("a link to the launcher starts it, also with --preserve-symlinks-main", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const link = path.join(home, "design-search")
      fs.symlinkSync(cliPath, link)
      for (const options of [[], ["--preserve-symlinks-main"]]) {
        const outcome = spawnSync(process.execPath, [...options, link, "--version"], {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", XDG_CACHE_HOME: home },
          encoding: "utf8",
          timeout: 20_000
        })
        expect(outcome.status, outcome.stderr).toBe(0)
        expect(outcome.stdout.trim()).toBe(cliVersion)
      }
    }))

  it.scoped("temporary files a killed writer left are removed when a minute old, and a writer's own are not", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const folder = folderOf(home)
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
      const stale = path.join(folder, ".code-0123456789abcdef-v20.0.0-x64.v8.4242.tmp")
      const fresh = path.join(folder, ".code-0123456789abcdef-v20.0.0-x64.v8.4343.tmp")
      for (const file of [stale, fresh]) fs.writeFileSync(file, "x", { mode: 0o600 })
      const twoMinutesAgo = new Date(Date.now() - 120_000)
      fs.utimesSync(stale, twoMinutesAgo, twoMinutesAgo)
      expect((yield* runCached(help, home)).code).toBe(0)
      expect(fs.existsSync(stale)).toBe(false)
      expect(fs.existsSync(fresh)).toBe(true)
    }))
})
