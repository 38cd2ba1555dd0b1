/**
 * How the launcher (`launch.ts`) shapes a run before the program is compiled: whether the command is
 * a long one, and the V8 flags it sets for it. Plain functions of the command line, Node's own
 * arguments and V8's version, with no Effect: the launcher runs before the program is loaded.
 */

/** Commands that run for seconds or more: their start is small beside their run. */
const longCommands: ReadonlySet<string> = new Set(["export", "sync", "sandbox"])

/** The options before a command that take a value: the CLI's own `--env`, and `@effect/cli`'s. */
const optionsWithValue: ReadonlySet<string> = new Set(["--env", "--log-level", "--completions"])

/**
 * The command `args` name: the first word that is no option nor an option's value, looking past a
 * `--` before it as the command line does. Only the speed of a run hangs on it.
 */
export const commandOf = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (optionsWithValue.has(arg)) i++
    else if (!arg.startsWith("-")) return arg
  }
  return undefined
}

/** Whether `args` run a long command (`export`, `sync`, `sandbox`). */
export const isLong = (args: ReadonlyArray<string>): boolean => longCommands.has(commandOf(args) ?? "")

/**
 * V8 optimizes a function once it has run some bytecode (its interrupt budget, 66 KB in Node 20's
 * V8), compiling it on a thread of its own that shares the process's cores. A short command
 * (`--help`, `get`) never earns the optimizing compile of Effect's run loop back, and its exit waits
 * for any compile under way (about 20 ms after `--help`): a budget of 528 KB optimizes nothing in
 * `--help`.
 */
const shortCommandFlags = { "--interrupt-budget": 4 * 132 * 1024 }

/**
 * A long command (an export) spends its first seconds on V8 optimizing, in a fresh process, the
 * hundreds of functions every design passes through: on one core, that compile work is what its
 * first thousands of designs wait for (README, "Where the CPU goes"). A quarter of the budget
 * optimizes them sooner, and a quarter of the bytecode inlined into one optimized function keeps
 * each compile short; measured on Node 20's V8 (11.x), whose flags these are, and kept to it.
 */
const longCommandFlags = { "--interrupt-budget": 16 * 1024 + 512, "--max-inlined-bytecode-size-cumulative": 230 }

/** A V8 flag's name as V8 reads it: `-a-b`, `--a_b` and `--a-b=1` all name `--a-b`. */
const flagName = (arg: string): string => `--${arg.split("=")[0]!.replace(/^--?/, "").replaceAll("_", "-")}`

/**
 * The V8 flags the launcher sets for a run of a long command or a short one (`isLong`), each as
 * `--name=value`, leaving out any that Node was given itself (`nodeArgs`: its own arguments and
 * those of `NODE_OPTIONS`), whose value wins. Long commands get theirs on V8 11 (Node 20) only.
 */
export const v8FlagsFor = (
  long: boolean,
  nodeArgs: ReadonlyArray<string>,
  v8Version: string
): ReadonlyArray<string> => {
  const flags = !long ? shortCommandFlags : v8Version.startsWith("11.") ? longCommandFlags : {}
  const given = new Set(nodeArgs.filter((arg) => arg.startsWith("-")).map(flagName))
  return Object.entries(flags).filter(([flag]) => !given.has(flag)).map(([flag, value]) => `${flag}=${value}`)
}

/** The arguments `NODE_OPTIONS` gives Node, split at whitespace (enough to tell the flags it names). */
export const nodeOptionsArgs = (nodeOptions: string | undefined): ReadonlyArray<string> =>
  nodeOptions === undefined ? [] : nodeOptions.split(/\s+/).filter((arg) => arg !== "")
