/**
 * The CLI's token cache: a `TokenStore` that keeps a client's token in a file of the user's cache
 * folder (`$XDG_CACHE_HOME/design-search/`, else `~/.cache/design-search/`), so that a script that
 * runs `design-search` a hundred times asks for one token, not a hundred. Only the CLI uses it; the
 * library keeps its token in memory unless the application gives it a store.
 *
 * - One file per token URL, client id and secret: its name is a SHA-256 digest of the three, so a
 *   run with a wrong secret finds no token and is refused by the token endpoint, as without a cache;
 *   the secret is in no name and no file.
 * - Written with mode 0600, atomically (a temporary file in the same folder, renamed over the old
 *   one), in a folder of mode 0700.
 * - A file that is not a regular file of this user with mode 0600 or narrower, that cannot be read,
 *   or that holds no token of this client (corrupt) is ignored and replaced by the next token
 *   fetched; an expired token (by the `TokenService`'s skew) likewise.
 * - A token the API refused (a 401) is deleted, if the file still holds it.
 *
 * A cache never fails a call: whatever goes wrong with the file, the token is fetched as without it.
 */
import { Clock, Config, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHash, randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { TokenStore as Store } from "../index.js"
import { AccessToken, DesignSearchConfig, TokenStore } from "../index.js"
import { cacheFolder, isOwnFolder, isPrivateFile, isWide, openFlags } from "./cacheFolder.js"

/** The variable that turns the cache off (`1`; empty or `0` leave it on). */
export const disableVariable = "DESIGN_SEARCH_NO_TOKEN_CACHE"

/** Largest cache file read: a token response is far smaller. */
const maxFileBytes = 64 * 1024

/** What a cache file holds: the token, and whose it is. */
const CacheFile = Schema.parseJson(Schema.Struct({
  tokenUrl: Schema.String,
  clientId: Schema.String,
  token: AccessToken.AccessTokenValue,
  tokenType: AccessToken.TokenType,
  issuedAt: Schema.Int,
  expiresAt: Schema.Int
}))
const decodeFile = Schema.decodeUnknownOption(CacheFile)

/** The file of one client's token in `directory`; its name hides the secret behind a digest. */
export const fileFor = (
  directory: string,
  client: { readonly tokenUrl: string; readonly clientId: string },
  secret: Redacted.Redacted<string>
): string => {
  const digest = createHash("sha256")
    .update(JSON.stringify([client.tokenUrl, client.clientId, Redacted.value(secret)]))
    .digest("hex")
  return path.join(directory, `token-${digest.slice(0, 32)}.json`)
}

/** Why the file was of no use: never shown, only ignored. */
class Unusable {
  readonly _tag = "Unusable"
}
const unusable = new Unusable()

const attempt = <A>(f: () => Promise<A>): Effect.Effect<A, Unusable> =>
  Effect.tryPromise({ try: f, catch: () => unusable })

/**
 * The text of `file` when it is a regular file of this user, mode 0600 or narrower, within the size
 * bound; a symbolic link is not followed.
 */
const readPrivate = (file: string): Effect.Effect<string, Unusable> =>
  Effect.acquireUseRelease(
    attempt(() => fs.open(file, openFlags)),
    (handle) =>
      Effect.flatMap(attempt(() => handle.stat()), (stat) =>
        isPrivateFile(stat, maxFileBytes)
          ? attempt(() => handle.readFile("utf8"))
          : Effect.fail(unusable)),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

/** The folder, made if missing, of mode 0700 (narrowed if it is this user's and wider). */
const privateFolder = (directory: string): Effect.Effect<void, Unusable> =>
  Effect.zipRight(
    attempt(() => fs.mkdir(directory, { recursive: true, mode: 0o700 })),
    Effect.flatMap(attempt(() => fs.lstat(directory)), (stat) =>
      !isOwnFolder(stat)
        ? Effect.fail(unusable)
        : !isWide(stat)
        ? Effect.void
        : attempt(() => fs.chmod(directory, 0o700)))
  )

/** Writes `text` to `file` with mode 0600: a temporary file beside it, renamed over it. */
const writePrivate = (file: string, text: string): Effect.Effect<void, Unusable> => {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`)
  return Effect.zipRight(
    privateFolder(path.dirname(file)),
    attempt(() => fs.writeFile(temporary, text, { mode: 0o600, flag: "wx" })).pipe(
      Effect.zipRight(attempt(() => fs.rename(temporary, file))),
      Effect.tapError(() => attempt(() => fs.unlink(temporary)).pipe(Effect.ignore))
    )
  )
}

/**
 * The store over `directory`, for the client whose secret is `secret` (the `TokenService` asks for
 * a client by token URL and client id; the secret picks the file too).
 */
export const make = (directory: string, secret: Redacted.Redacted<string>): Store.Service => ({
  forClient: (client) => {
    const file = fileFor(directory, client, secret)
    const load = Effect.map(
      Effect.option(readPrivate(file)),
      (text) =>
        Option.flatMap(
          Option.flatMap(text, decodeFile),
          (stored) =>
            stored.tokenUrl === client.tokenUrl && stored.clientId === client.clientId
              ? Option.some<AccessToken.AccessToken>({
                token: Redacted.make(stored.token),
                tokenType: stored.tokenType,
                issuedAt: DateTime.unsafeMake(stored.issuedAt),
                expiresAt: DateTime.unsafeMake(stored.expiresAt)
              })
              : Option.none()
        )
    )
    const save = (token: AccessToken.AccessToken) =>
      Effect.ignore(writePrivate(
        file,
        JSON.stringify({
          tokenUrl: client.tokenUrl,
          clientId: client.clientId,
          token: Redacted.value(token.token),
          tokenType: token.tokenType,
          issuedAt: DateTime.toEpochMillis(token.issuedAt),
          expiresAt: DateTime.toEpochMillis(token.expiresAt)
        })
      ))
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

/**
 * The cache folder: `$XDG_CACHE_HOME/design-search` when that is an absolute path, else
 * `~/.cache/design-search`; none when there is no home folder either.
 */
export const directory: Effect.Effect<Option.Option<string>> = Effect.map(
  Effect.orElseSucceed(Config.option(Config.string("XDG_CACHE_HOME")), () => Option.none<string>()),
  (xdg) => Option.fromNullable(cacheFolder(Option.getOrUndefined(xdg)))
)

/** Whether `DESIGN_SEARCH_NO_TOKEN_CACHE` turns the cache off: any value but empty or `0`. */
export const disabledByEnvironment: Effect.Effect<boolean> = Effect.map(
  Effect.orElseSucceed(Config.option(Config.string(disableVariable)), () => Option.none<string>()),
  Option.match({ onNone: () => false, onSome: (value) => value.trim() !== "" && value.trim() !== "0" })
)

/**
 * The store for the configured client, over the cache folder; `TokenStore.memory` (no cache) when
 * there is no folder to use.
 */
export const layer: Layer.Layer<TokenStore.TokenStore, never, DesignSearchConfig.DesignSearchConfig> = Layer.effect(
  TokenStore.TokenStore,
  Effect.zipWith(directory, DesignSearchConfig.DesignSearchConfig, (folder, config) =>
    Option.match(folder, {
      onNone: () => TokenStore.memory,
      onSome: (dir) => make(dir, config.clientSecret)
    }))
)
