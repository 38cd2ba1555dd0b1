/**
 * Builds the `design-search` executable: `dist/cli/program.cjs`, `src/cli/main.ts` and everything it
 * uses (Effect, @effect/platform-node, the library) bundled by esbuild into one tree-shaken, minified
 * CommonJS file, so that installing the package installs nothing for the CLI and `--help` starts
 * without resolving hundreds of modules; and `dist/cli/main.js`, the launcher that
 * turns on Node's compile cache and runs it (`src/cli/launch.ts`). Both are CommonJS, as the folder's
 * `package.json` says: Node starts a CommonJS main without its ES module loader. The version
 * `--version` prints is `package.json`'s. Run by `npm run build` after `tsc`.
 */
import { build } from "esbuild"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath, URL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8"))
const shared = { bundle: true, platform: "node", target: "node20", format: "cjs", minify: true, logLevel: "warning" }

await build({
  ...shared,
  entryPoints: [`${root}src/cli/main.ts`],
  outfile: `${root}dist/cli/program.cjs`,
  legalComments: "none",
  define: { DESIGN_SEARCH_VERSION: JSON.stringify(version) },
  // An optional peer of the library that the CLI never uses.
  external: ["ioredis"]
})
await build({ ...shared, entryPoints: [`${root}src/cli/launch.ts`], outfile: `${root}dist/cli/main.js` })
writeFileSync(`${root}dist/cli/package.json`, JSON.stringify({ type: "commonjs" }) + "\n")
chmodSync(`${root}dist/cli/main.js`, 0o755)
