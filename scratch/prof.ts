import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { contenders, fixedServer, loop } from "../bench/throughput.js"
const who = (process.argv[2] ?? "toolkit") as "toolkit" | "handwritten"
const program = Effect.scoped(Effect.gen(function*() {
  const server = yield* fixedServer()
  const c = yield* contenders(server.origin, FetchHttpClient.layer)
  yield* loop(c[who], 500, 8)
  const cpu = process.cpuUsage(); const t = performance.now()
  yield* loop(c[who], 4000, 8)
  const u = process.cpuUsage(cpu)
  console.log(who, "cpu ms/req", ((u.user + u.system) / 1000 / 4000).toFixed(3), "rps", (4000 / ((performance.now() - t) / 1000)).toFixed(0))
}))
await Effect.runPromise(program)
