/**
 * `design-search sandbox`: serves the simulated service on loopback until SIGINT or SIGTERM, and
 * prints the `export IPAUSTRALIA_...` lines that point a client (this CLI, or an application) at it.
 * The credentials printed are the sandbox's own, chosen on the command line, not real ones.
 */
import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { defaults, resultFields } from "../../sandbox/Defaults.js"
import { listenDefaults } from "../../sandbox/Listen.js"
import { signalMeansSuccess } from "../Interruption.js"
import * as Output from "../Output.js"
import { int, intInRange } from "../SearchOptions.js"

/** Quotes a value for a POSIX shell when it needs it. */
const shellQuote = (value: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'"'"'`)}'`

const defaultDesigns = 5_000
const defaultSeed = 1
const defaultTokenLifetime = 3600

/** @since 0.1.0 */
export const sandbox = Command.make("sandbox", {
  port: intInRange("port", 0, 65535).pipe(
    Options.withDescription(`TCP port, 0 picks a free one (default ${listenDefaults.port})`),
    Options.withDefault(listenDefaults.port)
  ),
  host: Options.text("host").pipe(
    Options.withDescription(`loopback address to listen on (default ${listenDefaults.host})`),
    Options.withDefault(listenDefaults.host)
  ),
  designs: intInRange("designs", 1, 200_000).pipe(
    Options.withDescription(`how many designs the dataset holds (default ${defaultDesigns})`),
    Options.withDefault(defaultDesigns)
  ),
  seed: int("seed").pipe(
    Options.withDescription(`seed of the dataset: the same seed, the same designs (default ${defaultSeed})`),
    Options.withDefault(defaultSeed)
  ),
  clientId: Options.text("client-id").pipe(
    Options.withDescription(`the client id the sandbox accepts (default ${defaults.clientId})`),
    Options.withDefault(defaults.clientId)
  ),
  clientSecret: Options.text("client-secret").pipe(
    Options.withDescription(`the client secret the sandbox accepts (default ${defaults.clientSecret})`),
    Options.withDefault(defaults.clientSecret)
  ),
  tokenLifetime: intInRange("token-lifetime", 1, 31_536_000).pipe(
    Options.withDescription(`expires_in of issued tokens, in seconds (default ${defaultTokenLifetime})`),
    Options.withDefault(defaultTokenLifetime)
  ),
  resultField: Options.choice("result-field", resultFields).pipe(
    Options.withDescription(
      `the field of a search result that lists the design numbers (default ${defaults.resultField})`
    ),
    Options.withDefault(defaults.resultField)
  )
}, (args) =>
  Effect.gen(function*() {
    // loaded when it is served: the help and the other commands never load the sandbox's server
    const Sandbox = yield* Effect.promise(() => import("../../Sandbox.js"))
    const served = yield* Sandbox.serve({
      port: args.port,
      host: args.host,
      designs: args.designs,
      seed: args.seed,
      clientId: args.clientId,
      clientSecret: args.clientSecret,
      tokenLifetime: `${args.tokenLifetime} seconds`,
      resultField: args.resultField
    })
    yield* signalMeansSuccess
    yield* Output.stdout([
      `export IPAUSTRALIA_CLIENT_ID=${shellQuote(served.sandbox.clientId)}`,
      `export IPAUSTRALIA_CLIENT_SECRET=${shellQuote(served.sandbox.clientSecret)}`,
      `export IPAUSTRALIA_AUTH_URL=${served.url}`,
      `export IPAUSTRALIA_BASE_URL=${served.baseUrl}`
    ].join("\n"))
    yield* Output.stderr(
      `sandbox: ${served.sandbox.designCount} designs on ${served.url} (control routes under ${served.url}/__sandbox); ` +
        "Ctrl-C stops it"
    )
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.onInterrupt(() => Output.stderr("sandbox: stopped")))).pipe(
    Command.withDescription("Serve the simulated service on loopback and print the variables that point a client at it")
  )
