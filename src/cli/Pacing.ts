/**
 * How fast the bulk commands call the API, and how many calls they made. `--rate N` (requests a
 * minute, `0` for no pace) wins; without it a command paces at the service's published cap when
 * it talks to the service's own hosts (`test`, `production`), and not at all against the sandbox or
 * URLs the user set. A 429 backs the pace off either way. Every API request, retries included,
 * takes a slot of the budget, which is where they are counted.
 */
import { Duration, Effect, Option } from "effect"
import type { ConfigError } from "effect"
import * as RequestBudget from "../RequestBudget.js"
import { atServiceHosts } from "./Environment.js"
import type { Environment } from "./Environment.js"

/**
 * The budget of a bulk command: `rate` if given, else the published cap at the service's hosts;
 * and the count of API requests it let through so far.
 */
export const budgetFor = (
  rate: Option.Option<number>,
  env: Option.Option<Environment>
): Effect.Effect<
  { readonly budget: RequestBudget.Service; readonly requests: () => number },
  ConfigError.ConfigError
> =>
  Effect.gen(function*() {
    const perMinute = Option.isSome(rate)
      ? rate.value
      : (yield* atServiceHosts(env))
      ? RequestBudget.publishedRequestsPerMinute
      : 0
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
