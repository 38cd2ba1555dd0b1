/**
 * Short renderings of offending values for schema failures: formatters print a value whole and
 * recursively (a value nested a few thousand levels deep overflows the stack, and a 10 MB string
 * makes a 10 MB message), so an error shows a preview instead: a few entries, a few levels,
 * masked and capped strings.
 */
import type { Mask } from "./mask.js"
import { cap, keptText } from "./mask.js"

/** Longest string, key or description a preview shows. */
const previewLength = 60
/** How deep a preview looks into arrays and objects, and how many of their entries it shows. */
const previewDepth = 2
const previewEntries = 3

const quote = (s: string, mask: Mask): string => JSON.stringify(keptText(mask, s, previewLength))

/** A short rendering of `value`: a few entries, a few levels, masked strings. */
const render = (value: unknown, mask: Mask, depth: number): string => {
  switch (typeof value) {
    case "string":
      return quote(value, mask)
    case "function":
      return "a function"
    case "object": {
      if (value === null) return "null"
      const isArray = Array.isArray(value)
      const entries: ReadonlyArray<readonly [string, unknown]> = isArray
        ? value.slice(0, previewEntries + 1).map((v) => ["", v] as const)
        : Object.entries(value).slice(0, previewEntries + 1)
      if (entries.length === 0) return isArray ? "[]" : "{}"
      if (depth >= previewDepth) return isArray ? "[…]" : "{…}"
      const shown = entries.slice(0, previewEntries).map(([key, v]) =>
        (isArray ? "" : quote(key, mask) + ":") + render(v, mask, depth + 1)
      )
      const more = entries.length > previewEntries ? ",…" : ""
      return isArray ? `[${shown.join(",")}${more}]` : `{${shown.join(",")}${more}}`
    }
    default: // a number, a boolean, a bigint, a symbol, undefined
      return typeof value === "bigint" ? `${value}n` : String(value)
  }
}

/** The preview of an offending value, at most 60 characters. */
export const preview = (value: unknown, mask: Mask): string => cap(render(value, mask, 0), previewLength)

/** A path key as an error shows it: a string masked and capped. */
export const boundedKey = (key: PropertyKey, mask: Mask): PropertyKey =>
  typeof key === "string" ? keptText(mask, key, previewLength) : key
