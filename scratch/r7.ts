import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Duration, Effect } from "effect"
import { send } from "../src/internal/client/http.js"
for (const layer of [FetchHttpClient.layer, NodeHttpClient.layerUndici, NodeHttpClient.layer]) {
  const r = await Effect.runPromise(Effect.flip(Effect.flatMap(HttpClient.HttpClient, (c) => send(c, HttpClientRequest.get("http://127.0.0.1:1/x"), { timeout: Duration.seconds(5), maxBodyBytes: 100 }))).pipe(Effect.provide(layer)))
  console.log(r.message)
  const d = await Effect.runPromise(Effect.flip(Effect.flatMap(HttpClient.HttpClient, (c) => send(c, HttpClientRequest.get("http://no-such-host.invalid/x"), { timeout: Duration.seconds(5), maxBodyBytes: 100 }))).pipe(Effect.provide(layer)))
  console.log(d.message)
}
