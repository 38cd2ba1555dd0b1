/**
 * `design-search sandbox`: serves the simulated service on loopback until a signal, and prints the
 * `export IPAUSTRALIA_...` lines that point a client at it.
 */
import { Effect, Option } from "effect"
import * as Sandbox from "../../Sandbox.js"
import type { SandboxInput } from "../Inputs.js"
import * as Output from "../Output.js"

/** A value as a POSIX shell reads it: in single quotes unless it holds only characters no shell treats apart. */
const shellQuote = (value: string): string =>
  /^[A-Za-z0-9_:./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'"'"'`)}'`

export const handle = (args: SandboxInput) =>
  Effect.gen(function*() {
    const cassette = Option.getOrUndefined(args.cassette)
    const served = yield* Sandbox.serve({ ...args, cassette, tokenLifetime: `${args.tokenLifetime} seconds` })
    yield* Output.stdout([
      `export IPAUSTRALIA_CLIENT_ID=${shellQuote(served.sandbox.clientId)}`,
      `export IPAUSTRALIA_CLIENT_SECRET=${shellQuote(served.sandbox.clientSecret)}`,
      `export IPAUSTRALIA_AUTH_URL=${shellQuote(served.url)}`,
      `export IPAUSTRALIA_BASE_URL=${shellQuote(served.baseUrl)}`
    ].join("\n"))
    const what = cassette === undefined ? Output.counted(served.sandbox.designCount, "design") : `cassette ${cassette}`
    yield* Output.stderr(
      `sandbox: ${what} on ${served.url} (control routes under ${served.url}/__sandbox); Ctrl-C stops it`
    )
    const { classes, owners, products } = Sandbox.samples
    if (cassette === undefined) {
      yield* Output.stderr(
        `sandbox: try search ${products[0]}, search --owner "${owners[0]}" or search --class ${classes[0]}`
      )
    }
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.onInterrupt(() => Output.stderr("sandbox: stopped")))
