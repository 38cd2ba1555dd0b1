/**
 * Schema failures told in bounded text, in the Effect 3 edition's words: one `path: problem` per offending
 * value, shown as a short masked preview, the whole capped; each edition reads them (`schemaIssues.effect3.ts`).
 */
import { isUndefinedBranch, told } from "#edition/internal/schemaIssues"
import { reportInput } from "#edition/internal/seam"
import type { SchemaError } from "#edition/internal/seam"
import type { Mask } from "../core/mask/mask.js"
import { cap } from "../core/mask/mask.js"

/** How a request is decoded for these texts: every problem, each with the offending value. */
export const parseOptions = { errors: "all", ...reportInput } as const

/** Longest description of a failure. */
export const maxDescriptionLength = 1000

/** What did not fit, bounded in length; an optional field's `undefined` member is left out while another is told. */
export const describe = (error: SchemaError, mask: Mask): string => {
  const all = told(error, mask)
  const kept = all.filter((i) => !isUndefinedBranch(i))
  return cap(
    (kept.length > 0 ? kept : all).map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ` : "") + i.message)
      .join("; "),
    maxDescriptionLength
  )
}
