#!/usr/bin/env node
/**
 * The `design-search` executable: turns on Node's compile cache (Node ≥ 22.1), then runs the program
 * beside its real path (`program.cjs`), so a link to it starts it, also with `--preserve-symlinks-main`.
 */
import { realpathSync } from "node:fs"
import * as nodeModule from "node:module"
import * as path from "node:path"
;(nodeModule as { readonly enableCompileCache?: () => unknown }).enableCompileCache?.()
nodeModule.createRequire(__filename)(path.join(path.dirname(realpathSync(__filename)), "program.cjs"))
