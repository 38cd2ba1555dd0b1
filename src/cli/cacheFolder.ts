/**
 * The CLI's cache folder, where it keeps the service's token between runs (`TokenCache.ts`) and
 * V8's code cache of its program (`launch.ts`): `$XDG_CACHE_HOME/design-search` when that is an
 * absolute path, else `~/.cache/design-search`; none when there is no home folder either. Plain
 * Node, no Effect: the launcher reads it before Effect is loaded.
 */
import * as os from "node:os"
import * as path from "node:path"

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
