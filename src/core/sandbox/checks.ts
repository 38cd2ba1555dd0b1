/**
 * What a sandbox is handed, checked as plain values: its options, which each edition's
 * `Sandbox.make` refuses with a `ConfigError` naming the option before it builds anything, and a
 * fault's body and headers, which `injectFault` refuses unless they can be sent as given. A duration
 * is read by each edition's `Duration`, then checked here in milliseconds or seconds.
 */
import { maxNesting as shownNesting, tooDeepAt } from "../wire/answers.js"
import { unwritableAt } from "../wire/json.js"
import { defaults, resultFields } from "./answers.js"
import type { ResultField } from "./answers.js"
import { prng } from "./dataset.js"
import { maxNesting, nestsWithin } from "./journal.js"

/**
 * The most designs a dataset holds: the largest the benchmarks and the CLI build. Each design costs
 * about 2 KB and 50 µs to generate and index: a million would take 2 GB and a minute.
 */
export const maxDesigns = 200_000

/** The longest life of a token: the longest `expires_in` the client accepts, a year. */
export const maxTokenLifetimeSeconds = 365 * 24 * 3600

/** The longest a sandbox waits before an answer, by its `latency` or a fault's `delayMs`: ten minutes. */
export const maxDelayMs = 600_000

/** An option refused: where (`[]` for the options themselves) and why. */
export interface Refusal {
  readonly path: ReadonlyArray<string>
  readonly message: string
}

/** A value checked, or why it is refused. */
export type Checked<A> = { readonly value: A } | { readonly refused: Refusal }

const refuse = (name: string, message: string): { readonly refused: Refusal } => ({
  refused: { path: [name], message }
})

/** A value for a message: text quoted, a number as written, anything else by its kind (no secret shown). */
const shown = (value: unknown): string =>
  typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "bigint"
    ? `${value}n`
    : typeof value === "number" || typeof value === "boolean" || value == null
    ? String(value)
    : Array.isArray(value)
    ? "a list"
    : typeof value === "object"
    ? "an object"
    : `a ${typeof value}`

/** The options that are no durations, with their defaults. */
export interface PlainOptions {
  readonly clientId: string
  readonly clientSecret: string
  readonly designs: number
  readonly seed: number
  readonly resultCap: number
  readonly maxRequestBytes: number
  readonly resultField: ResultField
  readonly journalSize: number
  readonly journalBytes: number
}

/** The options that are no durations, checked in the order the docs list them, with their defaults. */
export const plainOptions = (options: unknown): Checked<PlainOptions> => {
  if (typeof options !== "object" || options === null) {
    return { refused: { path: [], message: "expected an object of options" } }
  }
  const given = options as { readonly [name: string]: unknown }
  const names = [
    "clientId",
    "clientSecret",
    "designs",
    "seed",
    "resultCap",
    "maxRequestBytes",
    "resultField",
    "journalSize",
    "journalBytes"
  ] as const
  // only an option left out (or `undefined`) takes its default: `null` is a value, refused as any other
  const o = Object.fromEntries(
    names.map((name) => [name, given[name] === undefined ? defaults[name] : given[name]])
  ) as {
    readonly [K in keyof PlainOptions]: unknown
  }
  for (const name of ["clientId", "clientSecret"] as const) {
    const credential = o[name]
    if (typeof credential !== "string") return refuse(name, `${name} must be a string, got ${shown(credential)}`)
    // a blank one a client's `DesignSearchConfig` would refuse, naming a variable the user never set
    if (credential.trim() === "") return refuse(name, `${name} must not be empty`)
  }
  for (const name of ["designs", "resultCap", "maxRequestBytes", "journalSize", "journalBytes"] as const) {
    if (!Number.isSafeInteger(o[name]) || (o[name] as number) <= 0) {
      return refuse(name, `${name} must be a positive integer, got ${shown(o[name])}`)
    }
  }
  if ((o.designs as number) > maxDesigns) {
    return refuse("designs", `designs must be at most ${maxDesigns}, got ${shown(o.designs)}`)
  }
  if (!Number.isSafeInteger(o.seed)) return refuse("seed", `seed must be a safe integer, got ${shown(o.seed)}`)
  if (!resultFields.includes(o.resultField as ResultField)) {
    return refuse("resultField", `resultField must be designNumbers or designIds, got ${shown(o.resultField)}`)
  }
  return { value: o as PlainOptions }
}

/** A token lifetime of `seconds`, rounded, as `expires_in`: from one second to `maxTokenLifetimeSeconds`. */
export const tokenLifetime = (seconds: number): Checked<number> => {
  const rounded = Math.round(seconds)
  return rounded < 1
    ? refuse("tokenLifetime", `tokenLifetime must be at least a second, got ${seconds} seconds`)
    : rounded > maxTokenLifetimeSeconds
    ? refuse(
      "tokenLifetime",
      `tokenLifetime must be at most a year (${maxTokenLifetimeSeconds} seconds), the longest expires_in a client accepts`
    )
    : { value: rounded }
}

/**
 * Each answer's latency in milliseconds, drawn from `[min, max]` (in milliseconds) by a source seeded
 * by `seed`: `min` at most `max`, and `max` at most `maxDelayMs`.
 */
export const latency = (min: number, max: number, seed: number): Checked<() => number> => {
  if (max < min) return refuse("latency", "latency's min must be at most its max")
  if (max > maxDelayMs) {
    return refuse("latency", `latency must be at most ${maxDelayMs} ms (10 minutes), as a fault's delayMs`)
  }
  const random = prng(seed)
  return { value: () => min + Math.floor(random() * (max - min + 1)) }
}

/** Header names the transport computes itself, or whose encoding it would apply: a fault may not set them. */
const reservedHeaders: ReadonlySet<string> = new Set([
  "content-length",
  "transfer-encoding",
  "content-encoding",
  "connection",
  "keep-alive",
  "upgrade"
])

/** Why a fault may not set the header `name`, or undefined when it may. */
export const faultHeaderProblem = (name: string): string | undefined =>
  !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
    ? "expected an HTTP header name"
    : reservedHeaders.has(name.toLowerCase())
    ? `${name} is set by the server itself`
    : undefined

/** What JSON would not write as it is, in words. */
const unwritable = (value: unknown): string =>
  typeof value === "number"
    ? String(value)
    : value === undefined
    ? "a hole or undefined in a list"
    : typeof value === "object"
    ? "an instance of a class"
    : `a ${typeof value}`

/**
 * Why a fault with `status` cannot send `body` as given, with the path of the field at fault (below
 * `body`): a 204 or 304 has none; anything but a string is sent as JSON, which must write it as it
 * is (not `{}` for a symbol, nothing for a function, no failure for a `bigint`) within `maxNesting`
 * levels (a cycle never ends).
 */
export const faultBodyProblems = (
  status: number,
  body: unknown
): ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> => {
  if (body === undefined) return []
  if (status === 204 || status === 304) return [{ path: ["body"], message: `a ${status} answer has no body` }]
  if (!nestsWithin(body)) {
    return [{
      path: ["body"],
      message: `a body nests at most ${maxNesting} levels as JSON; send a deeper one as a string`
    }]
  }
  const at = unwritableAt(body, maxNesting)
  if (at === undefined) return []
  const value = at.reduce<unknown>((v, key) => (v as { readonly [key: PropertyKey]: unknown })[key], body)
  return [{ path: ["body", ...at], message: `JSON does not write ${unwritable(value)} as it is: send it as a string` }]
}

/**
 * Where a fault, a journal filter or a list of numbers (`input`) nests deeper than an error may
 * show (`shownNesting`, the answers' limit; a fault's `body`, named in `deepFields`, the journal's):
 * the field, and why in one line naming it. Checked before a schema reads the value: its error would
 * hold it, and Effect's formatters would recurse into it until the stack overflows.
 */
export const nestingRefusal = (input: unknown, deepFields: ReadonlyArray<string> = []): Refusal | undefined => {
  for (const [field, value] of typeof input === "object" && input !== null ? Object.entries(input) : []) {
    const limit = deepFields.includes(field) ? maxNesting : shownNesting
    const at = tooDeepAt(value, limit)
    if (at === undefined) continue
    const name = Array.isArray(value) ? field : `${field}.${at}`
    const hint = deepFields.includes(field) ? "; send a deeper one as a string" : ""
    return { path: [field], message: `${name} nests deeper than ${limit} levels${hint}` }
  }
  return undefined
}
