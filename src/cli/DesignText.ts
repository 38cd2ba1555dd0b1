/**
 * Designs as the CLI writes them: encoded with the `Designs.Design` schema (dates as ISO strings,
 * unknown fields kept) for JSON and JSONL, and as labelled lines for people.
 */
import { Effect, ParseResult, Schema } from "effect"
import { ApiError, Designs } from "../index.js"

const encode = Schema.encode(Designs.Design)

/** The wire form of a design. A record that cannot be encoded is an unexpected answer of the service. */
export const encodeDesign = (
  design: Designs.Design
): Effect.Effect<typeof Designs.Design.Encoded, ApiError.UnexpectedResponseError> =>
  Effect.mapError(encode(design), (error) =>
    new ApiError.UnexpectedResponseError({
      status: 200,
      excerpt: "",
      issue: `design ${design.number} cannot be written as JSON: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
    }))

const known = new Set([
  "number",
  "title",
  "productNames",
  "status",
  "classifications",
  "owners",
  "designers",
  "filingDate",
  "registrationDate",
  "expiryDate",
  "lastChanged",
  "statementOfNewness"
])

const names = (parties: ReadonlyArray<{ readonly name: string }> | undefined) => parties?.map((p) => p.name).join("; ")

/** An encoded design as labelled lines, the fields it lacks left out, unknown fields as JSON. */
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
    .map(([key, value]): readonly [string, string] => [key, JSON.stringify(value)])
  const present = [...fields, ...extra].filter((f): f is readonly [string, string] => f[1] !== undefined && f[1] !== "")
  const width = Math.max(0, ...present.map(([label]) => label.length))
  return [
    `Design ${design.number}${design.title === undefined ? "" : ` — ${design.title}`}`,
    ...present.map(([label, value]) => `  ${(label + ":").padEnd(width + 1)}  ${value}`)
  ]
}
