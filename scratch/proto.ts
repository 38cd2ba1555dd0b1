import { parseJson } from "../src/internal/client/answers.js"
const r = parseJson('{"a":1,"__pro\\u0074o__":{"x":1}}')
console.log(r._tag === "Some" && Object.getPrototypeOf(r.value) === Object.prototype && (r.value as any).x === undefined)
