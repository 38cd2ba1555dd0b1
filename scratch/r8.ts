import { parseJson } from "../src/internal/client/answers.js"
let v: unknown = 1
for (let i = 0; i < 6000; i++) v = { a: v }
const text = `{"number":"1","extra":${"{\"a\":".repeat(6000)}1${"}".repeat(6000)}}`
try { const r = parseJson(text); console.log(r._tag) } catch (e) { console.log("threw", e) }
