import * as Throughput from "../bench/throughput.js"
const r = await Throughput.run({ rounds: 5, requests: 3000 })
console.log(JSON.stringify(r, null, 1).slice(0, 1500))
