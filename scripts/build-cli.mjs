/**
 * Builds the `design-search` executable, `dist/cli/main.js`: `src/cli/main.ts` and everything it
 * uses (Effect, @effect/cli, @effect/platform-node, the library) bundled by esbuild into one
 * tree-shaken, minified ES module, so that installing the package installs no CLI framework and
 * `--help` starts without resolving and compiling hundreds of modules. undici, a dependency of the
 * package, stays outside and is required only when the service is called (see "CLI start" under
 * "Performance" in the README). Run by `npm run build` after `tsc`.
 */
import { build } from "esbuild"
import { chmodSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, URL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outfile = `${root}dist/cli/main.js`
const requireHere = createRequire(import.meta.url)

/**
 * Each of `names` as a CommonJS module whose exports are getters that require the installed package
 * on first use: an external ES import would be hoisted to the top of the bundle and a plain
 * `require` run as soon as a module importing it is (`DesignSearchClient` imports the default
 * transport), so either would load the package at every start. The names of its exports are read
 * here, at build time.
 */
const requireWhenUsed = (names) => ({
  name: "require-when-used",
  setup(build) {
    const filter = new RegExp(`^(?:${names.join("|")})$`)
    build.onResolve({ filter }, (args) =>
      args.namespace === "require-when-used"
        ? { path: args.path, external: true }
        : { path: args.path, namespace: "require-when-used" })
    build.onLoad({ filter: /.*/, namespace: "require-when-used" }, (args) => {
      const exported = Object.keys(requireHere(args.path))
      return {
        contents: [
          "let loaded",
          `const load = () => loaded ??= require(${JSON.stringify(args.path)})`,
          `for (const name of ${JSON.stringify(exported)}) {`,
          "  Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] })",
          "}"
        ].join("\n"),
        loader: "js"
      }
    })
  }
})

await build({
  entryPoints: [`${root}src/cli/main.ts`],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  treeShaking: true,
  legalComments: "none",
  logLevel: "warning",
  // Bundled CommonJS packages require Node's built-ins: give the module a `require` of its own.
  banner: {
    js:
      "import { createRequire as createRequireOfBundle } from \"node:module\"; const require = createRequireOfBundle(import.meta.url);"
  },
  // Never used by the CLI, and optional peers of the library.
  external: ["ioredis"],
  plugins: [requireWhenUsed(["undici"])]
})
chmodSync(outfile, 0o755)
