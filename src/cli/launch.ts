#!/usr/bin/env node
/**
 * The `design-search` executable (`dist/cli/main.js`): turns on Node's own compile cache (Node 22.1
 * and later; Node 20 has none), then runs the program bundled beside it (`program.cjs`, see
 * `scripts/build-cli.mjs`). The program is found from the launcher's real path, so a link to it (a
 * bin folder's) starts it, also under `--preserve-symlinks-main`.
 */
import { realpathSync } from "node:fs"
import * as nodeModule from "node:module"
import * as path from "node:path"
;(nodeModule as { readonly enableCompileCache?: () => unknown }).enableCompileCache?.()
nodeModule.createRequire(__filename)(path.join(path.dirname(realpathSync(__filename)), "program.cjs"))
