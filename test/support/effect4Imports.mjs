/**
 * `node --import tsx --import ./test/support/effect4Imports.mjs` (Node.js 22.15 or later): the
 * repository's sources on Effect 4, as effect4/vitest.config.ts resolves them. A repository file's
 * bare `effect` and `@effect/*` resolve from effect4/; `#edition/X` is `src/X.effect4.ts`. For the
 * workers `fleet.ts` starts; registered after tsx's hooks, this one runs first.
 */
import { registerHooks } from "node:module"
import { URL } from "node:url"

const root = new URL("../../", import.meta.url).href
const anchor = new URL("effect4/package.json", root).href
const ownInstall = /^(effect|@effect\/[^/]+)(\/|$)/
const editionModule = /^#edition\/(.*)$/

registerHooks({
  resolve: (specifier, context, next) => {
    const parent = context.parentURL
    if (parent === undefined || !parent.startsWith(root) || parent.includes("/node_modules/")) {
      return next(specifier, context)
    }
    const edition = editionModule.exec(specifier)
    if (edition !== null) return next(new URL(`src/${edition[1]}.effect4.ts`, root).href, context)
    return next(specifier, ownInstall.test(specifier) ? { ...context, parentURL: anchor } : context)
  }
})
