/**
 * The CLI's token cache (`src/cli/TokenCache.ts`; Effect 3 only): the built `design-search` run
 * again and again against a served sandbox, each with the test's own `XDG_CACHE_HOME`, counting
 * the token requests the sandbox saw; then the store itself over a temporary folder.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect, Option, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TokenCache from "../src/cli/TokenCache.js"
import type { AccessToken } from "../src/index.js"
import { Sandbox } from "../src/index.js"
import { envFor, freshFolder, run } from "./support/cli.effect3.js"
import type { Outcome } from "./support/cli.effect3.js"

const secret = "token-cache-secret-7a2b"
const { chair } = Sandbox.fixedNumbers

/** A fresh folder standing for `XDG_CACHE_HOME`, removed afterwards. */
const cacheHome = freshFolder

const folderOf = (home: string) => path.join(home, "design-search")

/** The cache files in `home`'s folder (none when it does not exist). */
const cacheFiles = (home: string): Array<string> =>
  fs.existsSync(folderOf(home)) ? fs.readdirSync(folderOf(home)).map((name) => path.join(folderOf(home), name)) : []

/** The one cache file in `home`'s folder. */
const theFile = (home: string): string => {
  const files = cacheFiles(home)
  expect(files).toHaveLength(1)
  return files[0] ?? ""
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777

const cachedToken = (file: string): unknown => (JSON.parse(fs.readFileSync(file, "utf8")) as { token: unknown }).token

const succeeded = (outcome: Outcome) => {
  expect(outcome.code, outcome.stderr).toBe(0)
  expect(outcome.stdout).toContain(chair)
}

/** A served sandbox, and `design-search get` run against it with `home` as the cache home. */
const setUp = Effect.gen(function*() {
  const served = yield* Sandbox.serve({ port: 0, clientSecret: secret })
  const home = yield* cacheHome
  const get = (args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
    run(["get", chair, ...args], envFor(served, { XDG_CACHE_HOME: home, ...env }))
  const tokenRequests = Effect.map(served.control.stats, (stats) => stats.requests.token)
  return { served, home, get, tokenRequests }
})

// each test runs the CLI several times, each run seconds long on a busy machine
describe("the CLI's token cache", { timeout: 60_000 }, () => {
  it.scopedLive("a second run takes the token from the cache: one token request; file 0600, folder 0700", () =>
    Effect.gen(function*() {
      const { get, home, tokenRequests } = yield* setUp
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(1)
      const file = theFile(home)
      expect(path.basename(file)).toMatch(/^token-[0-9a-f]{32}\.json$/)
      expect(modeOf(file)).toBe(0o600)
      expect(modeOf(folderOf(home))).toBe(0o700)
      expect(fs.readFileSync(file, "utf8")).not.toContain(secret)
      const second = yield* get(["--json"])
      succeeded(second)
      expect(yield* tokenRequests).toBe(1)
      for (const text of [second.stdout, second.stderr]) expect(text).not.toContain(String(cachedToken(file)))
    }))

  it.scopedLive("a file readable by others (0644) is ignored and replaced by one of mode 0600", () =>
    Effect.gen(function*() {
      const { get, home, tokenRequests } = yield* setUp
      succeeded(yield* get())
      const file = theFile(home)
      fs.chmodSync(file, 0o644)
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
      expect(modeOf(theFile(home))).toBe(0o600)
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
    }))

  it.scopedLive("a folder readable by others is narrowed to 0700", () =>
    Effect.gen(function*() {
      const { get, home } = yield* setUp
      fs.mkdirSync(folderOf(home), { mode: 0o755 })
      fs.chmodSync(folderOf(home), 0o755)
      succeeded(yield* get())
      expect(modeOf(folderOf(home))).toBe(0o700)
    }))

  it.scopedLive("a corrupt file, or one that holds another client's token, is ignored and replaced", () =>
    Effect.gen(function*() {
      const { get, home, tokenRequests } = yield* setUp
      succeeded(yield* get())
      const file = theFile(home)
      fs.writeFileSync(file, "{\"token\": ")
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
      const stored = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>
      fs.writeFileSync(file, JSON.stringify({ ...stored, clientId: "another-client" }))
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(3)
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(3)
    }))

  it.scopedLive("a FIFO in place of the file is not waited on: the token is fetched and the FIFO replaced", () =>
    Effect.gen(function*() {
      const { get, home, tokenRequests } = yield* setUp
      succeeded(yield* get())
      const file = theFile(home)
      fs.rmSync(file)
      execFileSync("mkfifo", ["-m", "600", file])
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
      expect(fs.lstatSync(file).isFile()).toBe(true)
    }))

  it.scopedLive("a token within the TokenService's skew of its expiry is not used, and is replaced", () =>
    Effect.gen(function*() {
      const { get, home, tokenRequests } = yield* setUp
      succeeded(yield* get())
      const file = theFile(home)
      const stored = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>
      // an hour's token still good for 10 seconds: within the skew (30 s), so not handed out
      const expiresAt = Date.now() + 10_000
      fs.writeFileSync(file, JSON.stringify({ ...stored, issuedAt: expiresAt - 3_600_000, expiresAt }))
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
      expect(cachedToken(file)).not.toBe(stored["token"])
    }))

  it.scopedLive("a wrong secret beside a cached token is refused (exit 3) after asking the token endpoint", () =>
    Effect.gen(function*() {
      const { get, home, tokenRequests } = yield* setUp
      succeeded(yield* get())
      const wrong = yield* get([], { IPAUSTRALIA_CLIENT_SECRET: "not-the-secret" })
      expect(wrong.code, wrong.stderr).toBe(3)
      expect(wrong.stdout).toBe("")
      expect(wrong.stderr).toContain("InvalidCredentials")
      expect(wrong.stderr).not.toContain("not-the-secret")
      expect(yield* tokenRequests).toBe(2)
      // the right secret's token is still there, and still used
      expect(cacheFiles(home)).toHaveLength(1)
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
    }))

  it.scopedLive("a cached token the API refuses (401) is forgotten: the call succeeds with a new token", () =>
    Effect.gen(function*() {
      const { get, home, served, tokenRequests } = yield* setUp
      succeeded(yield* get())
      const file = theFile(home)
      const refused = cachedToken(file)
      yield* served.control.revokeTokens
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
      expect((yield* served.control.stats).requests.design).toBe(3)
      expect(cachedToken(theFile(home))).not.toBe(refused)
      succeeded(yield* get())
      expect(yield* tokenRequests).toBe(2)
    }))

  it.scopedLive("--no-token-cache (before or after the command) and DESIGN_SEARCH_NO_TOKEN_CACHE=1 write nothing", () =>
    Effect.gen(function*() {
      const { get, home, served, tokenRequests } = yield* setUp
      succeeded(yield* get(["--no-token-cache"]))
      succeeded(yield* run(["--no-token-cache", "get", chair], envFor(served, { XDG_CACHE_HOME: home })))
      succeeded(yield* get([], { [TokenCache.disableVariable]: "1" }))
      expect(yield* tokenRequests).toBe(3)
      expect(fs.existsSync(folderOf(home))).toBe(false)
      // and with a cached token, they do not read it either
      succeeded(yield* get())
      succeeded(yield* get(["--no-token-cache"]))
      succeeded(yield* get([], { [TokenCache.disableVariable]: "1" }))
      expect(yield* tokenRequests).toBe(6)
    }))

  it.scopedLive("the embedded sandbox keeps no token", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      succeeded(yield* run(["get", chair], { XDG_CACHE_HOME: home }))
      expect(fs.existsSync(folderOf(home))).toBe(false)
    }))
})

describe("TokenCache.make", () => {
  const client = { tokenUrl: "https://auth.example/token", clientId: "client" }
  const token = (value: string): AccessToken.AccessToken => ({
    token: Redacted.make(value),
    tokenType: "Bearer",
    issuedAt: DateTime.unsafeMake(Date.now()),
    expiresAt: DateTime.unsafeMake(Date.now() + 3_600_000)
  })
  const accept = () => true

  it.scoped("one file per token URL, client id and secret; the secret in no name", () =>
    Effect.gen(function*() {
      const dir = folderOf(yield* cacheHome)
      const names = [
        TokenCache.fileFor(dir, client, Redacted.make(secret)),
        TokenCache.fileFor(dir, client, Redacted.make("other")),
        TokenCache.fileFor(dir, { ...client, clientId: "other" }, Redacted.make(secret)),
        TokenCache.fileFor(dir, { ...client, tokenUrl: "https://other.example/token" }, Redacted.make(secret))
      ]
      expect(new Set(names).size).toBe(4)
      for (const name of names) expect(name).not.toContain(secret)
    }))

  it.scoped("invalidate deletes the file that holds the refused token, and leaves a newer one", () =>
    Effect.gen(function*() {
      const dir = folderOf(yield* cacheHome)
      const store = TokenCache.make(dir, Redacted.make(secret)).forClient(client)
      const file = TokenCache.fileFor(dir, client, Redacted.make(secret))
      const first = token("first")
      expect(yield* store.obtain(Effect.succeed(first), accept)).toEqual({ token: first, shared: false })
      const again = yield* store.obtain(Effect.die("no fetch expected"), accept)
      expect(again.shared).toBe(true)
      expect(Redacted.value(again.token.token)).toBe("first")
      yield* store.invalidate(token("older"))
      expect(fs.existsSync(file)).toBe(true)
      yield* store.invalidate(first)
      expect(fs.existsSync(file)).toBe(false)
      const second = token("second")
      yield* store.obtain(Effect.succeed(second), accept)
      yield* store.invalidate(first)
      expect(cachedToken(file)).toBe("second")
    }))

  it.scoped("a symbolic link in place of the file is not followed", () =>
    Effect.gen(function*() {
      const home = yield* cacheHome
      const dir = folderOf(home)
      fs.mkdirSync(dir, { mode: 0o700 })
      const target = path.join(home, "elsewhere.json")
      const store = TokenCache.make(dir, Redacted.make(secret)).forClient(client)
      const file = TokenCache.fileFor(dir, client, Redacted.make(secret))
      yield* store.obtain(Effect.succeed(token("real")), accept)
      fs.renameSync(file, target)
      fs.symlinkSync(target, file)
      const obtained = yield* store.obtain(Effect.succeed(token("fetched")), accept)
      expect(obtained.shared).toBe(false)
      // replaced by a file of its own; the link's target untouched
      expect(fs.lstatSync(file).isSymbolicLink()).toBe(false)
      expect(cachedToken(target)).toBe("real")
    }))

  it.effect("the cache folder: $XDG_CACHE_HOME when absolute, else ~/.cache", () =>
    Effect.gen(function*() {
      const withXdg = (value: string | undefined) =>
        Effect.sync(() => {
          const before = process.env["XDG_CACHE_HOME"]
          if (value === undefined) delete process.env["XDG_CACHE_HOME"]
          else process.env["XDG_CACHE_HOME"] = value
          return before
        })
      const before = yield* withXdg("/var/cache/someone")
      expect(yield* TokenCache.directory).toEqual(Option.some("/var/cache/someone/design-search"))
      yield* withXdg("relative/cache")
      expect(yield* TokenCache.directory).toEqual(Option.some(path.join(os.homedir(), ".cache", "design-search")))
      yield* withXdg(before)
    }))
})
