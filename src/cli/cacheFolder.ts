/**
 * The CLI's cache folder, where it keeps the service's token between runs (`TokenCache.ts`) and
 * V8's code cache of its program (`launch.ts`): `$XDG_CACHE_HOME/design-search` when that is an
 * absolute path, else `~/.cache/design-search`; none when there is no home folder either. And what
 * both take for the user's own in it. Plain Node, no Effect: the launcher reads it before Effect is
 * loaded.
 */
import { constants } from "node:fs"
import type { Stats } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const currentUid = typeof process.getuid === "function" ? process.getuid() : undefined

/**
 * How a cache file is opened: read only, a symbolic link not followed, and not blocking (a FIFO put
 * in its place would hold the open until something wrote to it).
 */
export const openFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** Whether a cache file opened with `openFlags` is this user's alone: a regular file, mode 0600 or narrower, within `maxBytes`. */
export const isPrivateFile = (stat: Stats, maxBytes: number): boolean =>
  stat.isFile() && (stat.mode & 0o077) === 0 && (currentUid === undefined || stat.uid === currentUid) &&
  stat.size <= maxBytes

/** Whether a folder (by `lstat`) is this user's: a directory, not a link. */
export const isOwnFolder = (stat: Stats): boolean =>
  stat.isDirectory() && (currentUid === undefined || stat.uid === currentUid)

/** Whether an own folder is wider than 0700, to be narrowed. */
export const isWide = (stat: Stats): boolean => (stat.mode & 0o077) !== 0

/** The folder, given `XDG_CACHE_HOME` (absent, or any text: only an absolute path counts). */
export const cacheFolder = (xdgCacheHome: string | undefined): string | undefined => {
  if (xdgCacheHome !== undefined && path.isAbsolute(xdgCacheHome)) return path.join(xdgCacheHome, "design-search")
  let home: string
  try {
    home = os.homedir()
  } catch {
    return undefined
  }
  return path.isAbsolute(home) ? path.join(home, ".cache", "design-search") : undefined
}
