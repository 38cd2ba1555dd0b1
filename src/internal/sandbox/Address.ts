/**
 * The served sandbox's defences against the browser of the user who started it. The `Host` check
 * (every route) stops DNS rebinding: a page whose name resolves to 127.0.0.1 would otherwise read
 * tokens fetched with the public default credentials; its browser still sends its own `Host`. The
 * `Origin` check (control routes) stops a page that posts straight to the sandbox: browsers send
 * `Origin` with every cross-origin POST, tools and tests send none.
 */
import { HttpServerRequest } from "#edition/internal/seam"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { misaddressed } from "../../core/sandbox/address.js"
import type { OwnAddress } from "../../core/sandbox/address.js"
import { counter } from "../../core/sandbox/answers.js"
import type { App } from "./Control.js"
import { errorAnswers } from "./Http.js"

export { isOwnOrigin, make, type OwnAddress } from "../../core/sandbox/address.js"

/**
 * A request not addressed to the sandbox gets a spec-shaped 421 and reaches no route, counter or
 * fault; one that names its `Host` twice a 400 (Node keeps the first).
 */
export const onlyOwnHost = (app: App, own: OwnAddress): App => {
  const errors = errorAnswers(counter("host"))
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    // the target and `Host` as received: Effect 4's request rewrites an absolute-form target
    const { headers, rawHeaders, url = "" } = NodeHttpServerRequest.toIncomingMessage(request)
    const hostHeaders = rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === "host").length
    const refused = misaddressed(own, url, headers.host, hostHeaders)
    return refused === undefined ? app : Effect.succeed(errors(refused.status, [refused.problem]))
  })
}
