/** Values JSON writes as they are: what a request the toolkit sends as given may hold. */

/** How deep a request may nest: deeper, writing it would overflow the stack. */
export const maxRequestNesting = 64

/**
 * Where JSON would not write `u` as it is (a function, a symbol, a `bigint`, a number that is not
 * finite, a class, a hole or `undefined` in an array, a cycle, nesting past `limit` levels): the path
 * to the first such value, or `undefined`. An object's field that is `undefined` is left out by
 * JSON, as an absent optional field is, and is fine.
 */
export const unwritableAt = (u: unknown, limit: number = maxRequestNesting): ReadonlyArray<PropertyKey> | undefined => {
  const visit = (
    value: unknown,
    path: ReadonlyArray<PropertyKey>,
    parents: ReadonlyArray<object>
  ): ReadonlyArray<PropertyKey> | undefined => {
    if (value === null || typeof value === "string" || typeof value === "boolean") return undefined
    if (typeof value === "number") return Number.isFinite(value) ? undefined : path
    if (typeof value !== "object" || parents.includes(value) || parents.length >= limit) return path
    const proto: unknown = Object.getPrototypeOf(value)
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return path
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(value)
      ? Array.from(value, (v, i) => [i, v])
      : Object.entries(value).filter(([, v]) => v !== undefined)
    for (const [key, child] of entries) {
      const at: ReadonlyArray<PropertyKey> | undefined = visit(child, [...path, key], [...parents, value])
      if (at !== undefined) return at
    }
    return undefined
  }
  return visit(u, [], [])
}
