/**
 * Builds the `design-search` executable: `dist/cli/program.cjs`, `src/cli/main.ts` and everything it
 * uses (Effect, @effect/cli, @effect/platform-node, the library) bundled by esbuild into one
 * tree-shaken, minified CommonJS file, so that installing the package installs no CLI framework and
 * `--help` starts without resolving hundreds of modules; and `dist/cli/main.js`, the launcher that
 * starts it from V8's code cache (`src/cli/launch.ts`). undici, a dependency of the package, stays
 * outside and is required only when the service is called (see "CLI start" under "Performance" in
 * the README). Run by `npm run build` after `tsc`.
 */
import { build } from "esbuild"
import { createHash } from "node:crypto"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, URL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outfile = `${root}dist/cli/main.js`
const programFile = `${root}dist/cli/program.cjs`
const requireHere = createRequire(import.meta.url)

/**
 * Each of `names` as a CommonJS module whose exports are getters that require the installed package
 * on first use: a plain `require` would run as soon as a module importing it is
 * (`DesignSearchClient` imports the default transport), and so load the package at every start. The names of its exports are read
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

const shared = {
  bundle: true,
  platform: "node",
  target: "node20",
  minify: true,
  treeShaking: true,
  legalComments: "none",
  logLevel: "warning"
}

// The program: CommonJS, for the launcher compiles it with V8's code cache (`vm.Script`), which
// takes a script, not a module.
await build({
  ...shared,
  entryPoints: [`${root}src/cli/main.ts`],
  outfile: programFile,
  format: "cjs",
  // Never used by the CLI, and optional peers of the library.
  external: ["ioredis"],
  plugins: [requireWhenUsed(["undici"])]
})

// The launcher, told which build of the program it starts so that no cache of another is used.
// CommonJS, as the folder's package.json says: Node starts a CommonJS main without its ES module
// loader, which took 3 ms of a 100 ms start.
const digest = createHash("sha256").update(readFileSync(programFile)).digest("hex").slice(0, 16)
writeFileSync(`${root}dist/cli/package.json`, JSON.stringify({ type: "commonjs" }) + "\n")
await build({
  ...shared,
  entryPoints: [`${root}src/cli/launch.ts`],
  outfile,
  format: "cjs",
  define: { PROGRAM_DIGEST: JSON.stringify(digest) }
})
chmodSync(outfile, 0o755)
