// `node --import ./effect4/register.mjs`: bare imports made from the Effect 4 build (dist/effect4) or
// its benchmark (bench/effect4) resolve from this folder, whose node_modules hold effect 4.
import { register } from "node:module"
register("./resolve.mjs", import.meta.url)
