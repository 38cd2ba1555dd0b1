/** Designs as the CLI writes them: in their wire form for JSON and JSONL, as labelled lines for people. */
import { Schema } from "effect"
import { Designs } from "../index.js"
import { field } from "./Output.js"

/** A design in its wire form. */
export const encoded = Schema.encodeSync(Designs.Design)

/**
 * A design as one line of JSON, for `--json` and export files. The client refuses an answer nested
 * past 64 levels, so every design it hands over can be written.
 */
export const designJson = (design: Designs.Design): string => JSON.stringify(encoded(design))

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
    .map(([key, value]): readonly [string, string] => [
      key,
      JSON.stringify(value)
    ])
  const present = [...fields, ...extra].filter((f): f is readonly [string, string] => f[1] !== undefined && f[1] !== "")
  const width = Math.max(0, ...present.map(([label]) => field(label).length))
  return [
    `Design ${field(design.number)}${design.title === undefined ? "" : ` — ${field(design.title)}`}`,
    ...present.map(([label, value]) => `  ${(field(label) + ":").padEnd(width + 1)}  ${field(value)}`)
  ]
}
