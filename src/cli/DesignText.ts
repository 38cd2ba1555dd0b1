/**
 * Designs as the CLI writes them: in their wire form (`Schema.encode(Designs.Design)`: dates as ISO
 * strings, unknown fields kept) for JSON and JSONL, and as labelled lines for people.
 */
import { Either, Schema } from "effect"
import { ApiError, Designs } from "../index.js"
import { field } from "./Output.js"

const encodeDesign = Schema.encodeEither(Designs.Design)

/**
 * A design in its wire form, or, should the schema refuse what it decoded, an unexpected answer of
 * the service.
 */
export const encoded = (
  design: Designs.Design
): Either.Either<typeof Designs.Design.Encoded, ApiError.UnexpectedResponseError> =>
  Either.mapLeft(encodeDesign(design), (error) => unwritable(design, error.message))

const unwritable = (design: Designs.Design, why: string) =>
  new ApiError.UnexpectedResponseError({
    status: 200,
    excerpt: "",
    issue: `design ${design.number} cannot be written as JSON: ${why}`
  })

/**
 * `JSON.stringify`, or `Left` for a value nested too deep for the stack: a record keeps the
 * service's unknown fields as sent, however deep.
 */
const stringify = (value: unknown): Either.Either<string, string> =>
  Either.try({ try: () => JSON.stringify(value), catch: () => "it is nested too deeply" })

/**
 * A design as one line of JSON (its wire form), for `--json` and export files. A record too deep to
 * write is an unexpected answer of the service.
 */
export const designJson = (design: Designs.Design): Either.Either<string, ApiError.UnexpectedResponseError> =>
  Either.flatMap(encoded(design), (wire) => Either.mapLeft(stringify(wire), (why) => unwritable(design, why)))

/** The fields the schema names; the labelled lines show any other as JSON. */
const known: ReadonlySet<string> = new Set(Object.keys(Designs.Design.fields))

const names = (parties: ReadonlyArray<{ readonly name: string }> | undefined) => parties?.map((p) => p.name).join("; ")

/**
 * An encoded design as labelled lines, the fields it lacks left out, unknown fields as JSON. Every
 * value (and an unknown field's name) is escaped where it is placed, so none can break its line.
 */
export const designLines = (design: typeof Designs.Design.Encoded): ReadonlyArray<string> => {
  const fields: Array<readonly [string, string | undefined]> = [
    ["Status", design.status],
    ["Products", design.productNames?.join("; ")],
    [
      "Classes",
      design.classifications?.map((c) => (c.title === undefined ? c.code : `${c.code} ${c.title}`)).join("; ")
    ],
    ["Owners", names(design.owners)],
    ["Designers", names(design.designers)],
    ["Filed", design.filingDate],
    ["Registered", design.registrationDate],
    ["Expires", design.expiryDate],
    ["Last changed", design.lastChanged],
    ["Newness", design.statementOfNewness]
  ]
  const extra = Object.entries(design)
    .filter(([key]) => !known.has(key))
    .map(([key, value]): readonly [string, string] => [key, Either.getOrElse(stringify(value), (why) => `(${why})`)])
  const present = [...fields, ...extra].filter((f): f is readonly [string, string] => f[1] !== undefined && f[1] !== "")
  const width = Math.max(0, ...present.map(([label]) => field(label).length))
  return [
    `Design ${field(design.number)}${design.title === undefined ? "" : ` — ${field(design.title)}`}`,
    ...present.map(([label, value]) => `  ${(field(label) + ":").padEnd(width + 1)}  ${field(value)}`)
  ]
}
