/**
 * How fast the bulk commands call the API (`--rate`, else the published cap at the service's own
 * hosts, else no pace), and how many calls they made: every request, retries included, takes a
 * slot of the budget, where it is counted.
 */
import { Duration, Effect, Option } from "effect"
import * as RequestBudget from "../RequestBudget.js"
import { target } from "./Environment.js"
import type { Environment } from "./Environment.js"

/** The budget of a bulk command, and the count of the requests it let through so far. */
export const budgetFor = (rate: Option.Option<number>, env: Option.Option<Environment>) =>
  Effect.gen(function*() {
    const perMinute = Option.isSome(rate)
      ? rate.value
      : yield* Effect.map(target(env), (to) =>
        // The published cap holds at the service's own hosts.
        to._tag === "service" && !to.ownUrls ? RequestBudget.publishedRequestsPerMinute : 0)
    const inner = yield* RequestBudget.make(perMinute === 0 ? {} : { requestsPerSecond: perMinute / 60 })
    let requests = 0
    const budget: RequestBudget.Service = {
      forClient: (client) => {
        const of = inner.forClient(client)
        // The wait for the slot is taken here, and the request counted once it is over: a request
        // interrupted while it waits is never sent.
        return {
          reserve: Effect.map(RequestBudget.take(of), () => {
            requests++
            return Duration.zero
          }),
          backOff: of.backOff
        }
      }
    }
    return { budget, requests: () => requests }
  })
