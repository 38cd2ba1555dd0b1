/**
 * Writes `dist/effect4/package.json`, which makes the Effect 4 build's `#edition/*` imports name its
 * own copies of the modules kept per edition (`*.effect4.js`), as the root package.json's `imports`
 * name the Effect 3 build's (`*.effect3.js`), and keeps the root's `sideEffects: false` true for
 * bundlers, which read the nearest package.json. Run by `npm run build` after `tsc`.
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath, URL } from "node:url"

const target = fileURLToPath(new URL("../dist/effect4/package.json", import.meta.url))
writeFileSync(
  target,
  JSON.stringify({ type: "module", sideEffects: false, imports: { "#edition/*": "./*.effect4.js" } }, null, 2) + "\n"
)
