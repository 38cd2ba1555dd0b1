/**
 * A `TokenStore` over a private file of the user's cache folder, so that a script that runs
 * `design-search` a hundred times asks for one token (`docs/cli.md`). Whatever goes wrong with the
 * file, the token is fetched as without it.
 */
import { Clock, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { constants } from "node:fs"
import type { Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type { ClientIdentity } from "../FleetRedis.js"
import type { TokenStore as Store } from "../index.js"
import { AccessToken, DesignSearchConfig, TokenStore } from "../index.js"
import { variable } from "./Environment.js"

/** The variable that turns the cache off (`1`; empty or `0` leave it on). */
export const disableVariable = "DESIGN_SEARCH_NO_TOKEN_CACHE"

const uid = process.getuid?.()

/** A cache file: the token, and whose it is. */
const CacheFile = Schema.parseJson(Schema.Struct({
  tokenUrl: Schema.String,
  clientId: Schema.String,
  ...AccessToken.Stored.fields
}))
const decodeFile = Schema.decodeUnknownOption(CacheFile)
const encodeFile = Schema.encodeEither(CacheFile)

/** The file of one client's token in `directory`; its name hides the secret behind a digest. */
export const fileFor = (directory: string, client: ClientIdentity, secret: Redacted.Redacted<string>): string => {
  const key = JSON.stringify([client.tokenUrl, client.clientId, Redacted.value(secret)])
  return path.join(directory, `token-${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`)
}

/** A file of no use is never shown, only ignored. */
const attempt = <A>(f: () => Promise<A>): Effect.Effect<A, "unusable"> =>
  Effect.tryPromise({ try: f, catch: () => "unusable" as const })

/** Whether a file (by `fstat`) is a regular file of this user's, mode 0600 or narrower. */
const isPrivate = (stat: Stats) => stat.isFile() && (stat.mode & 0o077) === 0 && (uid === undefined || stat.uid === uid)

/** The text of `file` when it is private (`isPrivate`); a link is not followed, a FIFO not waited on. */
const readPrivate = (file: string): Effect.Effect<string, "unusable"> =>
  Effect.acquireUseRelease(
    attempt(() => fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)),
    (handle) =>
      Effect.filterOrFail(attempt(() => handle.stat()), isPrivate, () => "unusable" as const).pipe(
        Effect.zipRight(attempt(() => handle.readFile("utf8")))
      ),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

/** The folder, made if missing, of this user's and of mode 0700 (narrowed if it is wider). */
const privateFolder = (folder: string): Effect.Effect<void, "unusable"> =>
  Effect.flatMap(
    attempt(() => fs.mkdir(folder, { recursive: true, mode: 0o700 }).then(() => fs.lstat(folder))),
    (stat) =>
      !stat.isDirectory() || (uid !== undefined && stat.uid !== uid)
        ? Effect.fail("unusable" as const)
        : (stat.mode & 0o077) === 0
        ? Effect.void
        : attempt(() => fs.chmod(folder, 0o700))
  )

/** Writes `text` to `file` with mode 0600: a temporary file beside it, renamed over it. */
const writePrivate = (file: string, text: string): Effect.Effect<void, "unusable"> => {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`)
  return Effect.zipRight(
    privateFolder(path.dirname(file)),
    attempt(() => fs.writeFile(temporary, text, { mode: 0o600, flag: "wx" })).pipe(
      Effect.zipRight(attempt(() => fs.rename(temporary, file))),
      Effect.tapError(() => Effect.ignore(attempt(() => fs.unlink(temporary))))
    )
  )
}

/** The store over `directory`; the client's secret picks the file too. */
export const make = (directory: string, secret: Redacted.Redacted<string>): Store.Service => ({
  forClient: (client) => {
    const file = fileFor(directory, client, secret)
    const load = Effect.map(
      Effect.option(readPrivate(file)),
      Option.flatMap((text) =>
        Option.filter(decodeFile(text), (s) => s.tokenUrl === client.tokenUrl && s.clientId === client.clientId)
      )
    )
    const save = (token: AccessToken.AccessToken) =>
      Effect.ignore(Effect.flatMap(encodeFile({ ...token, ...client }), (text) => writePrivate(file, text)))
    return {
      obtain: (fetch, accept) =>
        Effect.gen(function*() {
          const found = yield* load
          const now = yield* Clock.currentTimeMillis
          if (Option.isSome(found) && accept(found.value, now)) return { token: found.value, shared: true }
          const token = yield* fetch
          yield* save(token)
          return { token, shared: false }
        }),
      // Compare, then delete: a newer token another run wrote meanwhile is left alone.
      invalidate: (token) =>
        Effect.flatMap(load, (found) =>
          Option.isSome(found) && AccessToken.sameToken(found.value, token)
            ? Effect.ignore(attempt(() => fs.unlink(file)))
            : Effect.void)
    }
  }
})

/** A variable's value; none when it is unset, blank or unreadable. */
const setting = (name: string) => Effect.orElseSucceed(variable(name), () => Option.none<string>())

/** `$XDG_CACHE_HOME/design-search` when that is absolute, else `~/.cache/design-search`; none without a home. */
export const directory: Effect.Effect<Option.Option<string>> = Effect.map(
  setting("XDG_CACHE_HOME"),
  (xdg) =>
    Option.filter(xdg, path.isAbsolute).pipe(
      Option.orElse(() => Option.map(Option.liftThrowable(os.homedir)(), (home) => path.join(home, ".cache"))),
      Option.filter(path.isAbsolute),
      Option.map((base) => path.join(base, "design-search"))
    )
)

/** Whether `DESIGN_SEARCH_NO_TOKEN_CACHE` turns the cache off: any value but empty or `0`. */
export const disabledByEnvironment: Effect.Effect<boolean> = Effect.map(
  setting(disableVariable),
  Option.exists((value) => value.trim() !== "0")
)

/** The store for the configured client; `TokenStore.memory` when there is no folder to use. */
export const layer: Layer.Layer<TokenStore.TokenStore, never, DesignSearchConfig.DesignSearchConfig> = Layer.effect(
  TokenStore.TokenStore,
  Effect.zipWith(directory, DesignSearchConfig.DesignSearchConfig, (folder, config) =>
    Option.match(folder, {
      onNone: () => TokenStore.memory,
      onSome: (dir) => make(dir, config.clientSecret)
    }))
)
