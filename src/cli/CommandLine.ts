/**
 * The CLI's commands as data: each declares its argument and options (name, value, description,
 * default, whether repeatable) and examples, and its handler's input type is derived from that
 * declaration. `node:util`'s `parseArgs` splits the command line; this module checks it against
 * the declaration and words every usage error the same way: one line, the closest known name, the
 * command's own help. Loaded at every start: no client, no Effect runtime beyond `Either`.
 */
import { Either, Option } from "effect"
import { parseArgs } from "node:util"

/** How an option's text becomes its value, and what it takes, for help and for a refused value. */
export interface Parser<A> {
  readonly takes: string
  readonly parse: (text: string) => Option.Option<A>
  /** Why a text it does not take is refused, where that says more than what it takes (`2024-02-30 is no such day`). */
  readonly why?: (text: string) => string | undefined
}

/** An option or the command's argument: what it is in help, and its value from what was given. */
export interface Field<A> {
  readonly _tag: "option" | "argument"
  /** `limit` for `--limit`; the placeholder (`QUERY`) for an argument. */
  readonly name: string
  /** The value's placeholder in help (`N`); none for a flag. */
  readonly placeholder: string | undefined
  readonly description: string
  readonly byDefault: string | undefined
  readonly required: boolean
  readonly repeatable: boolean
  /** The value of the texts given (none for an absent option), or why one of them is refused. */
  readonly decode: (given: ReadonlyArray<string>) => Either.Either<A, string>
}

/** The fields of a command, by the key of its handler's input. */
export type Fields = Readonly<Record<string, Field<unknown>>>

/** The input a command's handler takes: each field's value under its key. */
export type Input<F extends Fields> = { readonly [K in keyof F]: F[K] extends Field<infer A> ? A : never }

/** A command: its name, one-line summary, fields and examples (command lines after `design-search`). */
export interface Command<F extends Fields> {
  readonly name: string
  readonly summary: string
  readonly fields: F
  readonly examples: ReadonlyArray<string>
  /** Lines of help told before the examples, where a command has more to say. */
  readonly notes?: ReadonlyArray<string> | undefined
  /** What is wrong with a decoded input as a whole (one usage error), checked before the command runs. */
  refuse?(input: NoInfer<Input<F>>): Option.Option<string>
}

export const text: Parser<string> = { takes: "a text", parse: Option.some }

export const nonEmpty: Parser<string> = {
  takes: "a text that is not empty",
  parse: Option.liftPredicate((s) => s !== "")
}

/** An integer, from `min` to `max` when they are given. */
export const integer = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Parser<number> => ({
  takes: min === Number.MIN_SAFE_INTEGER ? "an integer" : `an integer from ${min} to ${max}`,
  parse: (s) => {
    const n = Number(s)
    return /^\s*-?\d+\s*$/.test(s) && Number.isSafeInteger(n) && n >= min && n <= max ? Option.some(n) : Option.none()
  }
})

export const oneOf = <const A extends string>(values: ReadonlyArray<A>): Parser<A> => ({
  takes: `one of ${values.join(", ")}`,
  parse: (s) => Option.fromNullable(values.find((value) => value === s))
})

/** Each text through `parser`, or the refusal of the first it does not take. */
const decodeAll = <A>(name: string, parser: Parser<A>, given: ReadonlyArray<string>) =>
  Either.all(
    given.map((s) =>
      Either.fromOption(parser.parse(s), () => {
        const why = parser.why?.(s)
        return why === undefined ? `\`--${name}\` takes ${parser.takes}; got \`${s}\`` : `\`--${name}\`: ${why}`
      })
    )
  )

const field = <A>(
  name: string,
  placeholder: string | undefined,
  description: string,
  decode: Field<A>["decode"],
  repeatable = false
): Field<A> => ({
  _tag: "option",
  name,
  placeholder,
  description,
  byDefault: undefined,
  required: false,
  repeatable,
  decode
})

export const flag = (name: string, description: string): Field<boolean> =>
  field(name, undefined, description, (given) => Either.right(given.length > 0))

/** `--name VALUE`, none when absent; the last value given when it is given more than once. */
export const optional = <A>(
  name: string,
  parser: Parser<A>,
  placeholder: string,
  description: string
): Field<Option.Option<A>> =>
  field(
    name,
    placeholder,
    description,
    (given) => Either.map(decodeAll(name, parser, given.slice(-1)), ([value]) => Option.fromNullable(value))
  )

/** `--name VALUE`, `byDefault` when absent (and shown in help). */
export const withDefault = <A extends string | number>(
  name: string,
  parser: Parser<A>,
  placeholder: string,
  description: string,
  byDefault: A
): Field<A> => {
  const { decode, ...shape } = optional(name, parser, placeholder, description)
  return {
    ...shape,
    byDefault: String(byDefault),
    decode: (given) => Either.map(decode(given), Option.getOrElse(() => byDefault))
  }
}

/** `field`, which the command needs: absent, `label` is needed. */
const needed = <A>({ decode, ...shape }: Field<Option.Option<A>>, label: string): Field<A> => ({
  ...shape,
  required: true,
  decode: (given) => Either.flatMap(decode(given), Either.fromOption(() => `\`${label}\` is needed`))
})

/** `--name VALUE`, which the command needs. */
export const required = <A>(name: string, parser: Parser<A>, placeholder: string, description: string): Field<A> =>
  needed(optional(name, parser, placeholder, description), `--${name} ${placeholder}`)

/** `--name VALUE`, as often as wanted: every value given, in order. */
export const repeatable = <A>(
  name: string,
  parser: Parser<A>,
  placeholder: string,
  description: string
): Field<ReadonlyArray<A>> => field(name, placeholder, description, (given) => decodeAll(name, parser, given), true)

/** An argument of the command, its text read by `parser`: none when absent. */
export const argumentOf = <A>(
  placeholder: string,
  parser: Parser<A>,
  description: string
): Field<Option.Option<A>> => ({
  ...optional(placeholder, parser, placeholder, description),
  _tag: "argument"
})

/** The command's argument (`QUERY`), optional: none when absent. */
export const argument = (placeholder: string, description: string) => argumentOf(placeholder, text, description)

/** An argument the command needs, read by `parser`; a command may have several, in order. */
export const requiredArgumentOf = <A>(placeholder: string, parser: Parser<A>, description: string): Field<A> =>
  needed(argumentOf(placeholder, parser, description), placeholder)

/** The command's argument (`DESIGN_NUMBER`), which it needs. */
export const requiredArgument = (placeholder: string, description: string): Field<string> =>
  requiredArgumentOf(placeholder, text, description)

/** The Levenshtein distance of two words. */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** The known word closest to `word`, if one is close enough to be what was meant. */
export const closest = (word: string, known: ReadonlyArray<string>): Option.Option<string> => {
  const [best] = known.map((k) => ({ k, d: distance(word.toLowerCase(), k.toLowerCase()) })).sort((a, b) => a.d - b.d)
  return best !== undefined && best.d <= Math.max(2, Math.floor(word.length / 3)) ? Option.some(best.k) : Option.none()
}

/** The command line as `parseArgs` splits it: options (a flag's value is undefined), and positionals. */
export interface Split {
  readonly options: ReadonlyArray<
    {
      /** As written: `--limit`, `-h`, or a group of short options (`-chair`), one unknown option. */
      readonly raw: string
      readonly value: string | undefined
      readonly inline: boolean
      /** Whether it comes before every positional, the command's name among them. */
      readonly leading: boolean
    }
  >
  /** The positionals before `--`, then those after it. */
  readonly positionals: ReadonlyArray<string>
  /** Whether `--help` or `-h` is before `--`, even where an option would take it as its value. */
  readonly help: boolean
  /** Whether `--version` is given before `--`. */
  readonly version: boolean
}

/**
 * `args` split by `parseArgs`, which knows from `valued` which options take a value. Not strict:
 * `--sort -number` is the value `-number` (strict mode refuses it), and `check` words the rest.
 */
export const split = (args: ReadonlyArray<string>, valued: ReadonlySet<string>): Split => {
  const options = Object.fromEntries([...valued].map((name) => [name, { type: "string", multiple: true } as const]))
  const { tokens } = parseArgs({
    args: [...args],
    options: { ...options, help: { type: "boolean", short: "h" }, version: { type: "boolean" } },
    strict: false,
    allowPositionals: true,
    tokens: true
  })
  const end = args.includes("--") ? args.indexOf("--") : args.length
  const given: Array<Split["options"][number]> = []
  const positionals: Array<string> = []
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value)
    if (token.kind !== "option") continue
    const arg = args[token.index] ?? ""
    const leading = positionals.length === 0
    // A group of short options (`-chair`) is one unknown option, never `-h` among others.
    if (!/^-[^-]./.test(arg)) {
      given.push({ raw: token.rawName, value: token.value, inline: token.inlineValue === true, leading })
    } else if (given.at(-1)?.raw !== arg) given.push({ raw: arg, value: undefined, inline: false, leading })
  }
  return {
    options: given,
    positionals,
    help: args.slice(0, end).some((arg) => arg === "--help" || arg === "-h"),
    version: given.some((o) => o.raw === "--version" && o.value === undefined)
  }
}

/** The options of `command`, as written (`--limit`). */
const optionNames = <F extends Fields>(command: Command<F>): Array<string> =>
  Object.values(command.fields).flatMap((f) => (f._tag === "option" ? [`--${f.name}`] : []))

/** Whether `command` takes a query: words, which may begin with - or go together. */
const takesQuery = <F extends Fields>(command: Command<F>): boolean =>
  Object.values(command.fields).some((f) => f._tag === "argument" && f.name === "QUERY")

/** `; did you mean \`x\`?` for the known word closest to `raw`, if one is close enough. */
export const didYouMean = (raw: string, known: ReadonlyArray<string>) =>
  Option.map(closest(raw, known), (n) => `; did you mean \`${n}\`?`)

/** Why `raw` is no option of `command`: it is another command's, or the closest of its own is suggested. */
const unknownOption = <F extends Fields>(
  raw: string,
  command: Command<F>,
  all: ReadonlyArray<Command<Fields>>
): string => {
  const owners = all.filter((c) => c.name !== command.name && optionNames(c).includes(raw)).map((c) => c.name)
  if (owners.length > 0) {
    const whose = owners.length === 1 ? owners[0] : `${owners.slice(0, -1).join(", ")} and ${owners.at(-1)}`
    return `\`${raw}\` is an option of ${whose}, not of ${command.name}`
  }
  const hint = Option.getOrElse(
    didYouMean(raw, [...optionNames(command), "--help"]),
    () => (takesQuery(command) ? " (a query that begins with - goes after --)" : "")
  )
  return `unknown option \`${raw}\` for ${command.name}${hint}`
}

/** The first option before the command's name that no command has, with the closest of every command's. */
export const strayOption = (line: Split, all: ReadonlyArray<Command<Fields>>): Option.Option<string> => {
  const known = [...new Set([...all.flatMap(optionNames), "--help", "--version"])]
  return Option.map(
    Option.fromNullable(
      line.options.find((o) => o.leading && o.raw !== "-h" && !known.includes(o.raw))
    ),
    ({ raw }) => `unknown option \`${raw}\`${Option.getOrElse(didYouMean(raw, known), () => "")}`
  )
}

/**
 * The input of `command` from a split command line (its own name taken out), or the usage error's
 * detail; `all` are every command, to name the one an option belongs to.
 */
export const check = <F extends Fields>(
  command: Command<F>,
  line: Split,
  all: ReadonlyArray<Command<Fields>> = []
): Either.Either<Input<F>, string> => {
  const fields = Object.entries(command.fields)
  const byName = new Map(fields.filter(([, f]) => f._tag === "option").map(([key, f]) => [`--${f.name}`, { key, f }]))
  const given = new Map<string, Array<string>>()
  for (const { inline, raw, value } of line.options) {
    const known = byName.get(raw)
    if (known === undefined) return Either.left(unknownOption(raw, command, all))
    if (known.f.placeholder === undefined && value !== undefined) {
      return Either.left(`\`${raw}\` takes no value; got \`${value}\``)
    }
    if (known.f.placeholder !== undefined && (value === undefined || (!inline && value.startsWith("--")))) {
      const not = value === undefined ? "" : `, not the option \`${value}\``
      return Either.left(`\`${raw}\` needs a value${not} (write ${raw}=VALUE for a value that begins with --)`)
    }
    given.set(known.key, [...(given.get(known.key) ?? []), value ?? ""])
  }
  const argumentKeys = fields.filter(([, f]) => f._tag === "argument").map(([key]) => key)
  const extra = line.positionals[argumentKeys.length]
  if (extra !== undefined) {
    const takes = fields.flatMap(([, f]) => (f._tag === "argument" ? [f.name] : []))
    const together = takesQuery(command) ? " (quote words that go together)" : ""
    return Either.left(
      `unexpected argument \`${extra}\`: ${command.name} takes ${
        takes.length === 0 ? "no argument" : takes.length === 1 ? `one ${takes[0]}${together}` : takes.join(" ")
      }`
    )
  }
  argumentKeys.forEach((key, i) => given.set(key, line.positionals.slice(i, i + 1)))
  return Either.all(
    fields.map(([key, f]) => Either.map(f.decode(given.get(key) ?? []), (value) => [key, value] as const))
  ).pipe(
    Either.map((entries) => Object.fromEntries(entries) as Input<F>),
    Either.flatMap((input) => Either.flip(Either.fromOption(command.refuse?.(input) ?? Option.none(), () => input)))
  )
}
