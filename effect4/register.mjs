// `node --import ./effect4/register.mjs`: bare imports made from an Effect 4 edition file (src/effect4,
// dist/effect4, bench/effect4, test/effect4) resolve from this folder, whose node_modules hold effect 4.
import { register } from "node:module"
register("./resolve.mjs", import.meta.url)
