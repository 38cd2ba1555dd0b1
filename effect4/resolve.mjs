// The resolution hook effect4/register.mjs installs.
const edition = /\/(dist|bench)\/effect4\//
const ownInstall = /^(effect|@effect\/[^/]+|vitest)(\/|$)/
const anchor = new globalThis.URL("./package.json", import.meta.url).href
export const resolve = (specifier, context, next) =>
  context.parentURL !== undefined && edition.test(context.parentURL) && ownInstall.test(specifier)
    ? next(specifier, { ...context, parentURL: anchor })
    : next(specifier, context)
