/**
 * Commands' handlers, loaded when their command runs. The command line (`Cli.ts`, `Root.ts`,
 * `commands/` and the options they share) is loaded at every start and imports, of the library,
 * only types and its lightest modules; a handler (`handlers/`) imports the client, the schemas, the
 * mirror. So `--help`, bad usage and each command load only what they use (see "CLI start" under
 * "Performance" in the README).
 */
import { Effect } from "effect"

/** A module of `handlers/`: what a command does with its parsed arguments `A`. */
export interface Module<A, E, R> {
  readonly handle: (args: A) => Effect.Effect<void, E, R>
}

/** The handler of a command, loaded by `load` when the command runs. */
export const lazily = <A, E, R>(load: () => Promise<Module<A, E, R>>) => (args: A): Effect.Effect<void, E, R> =>
  Effect.flatMap(Effect.promise(load), (module) => module.handle(args))
