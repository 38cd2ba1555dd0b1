/** Values JSON writes as they are: what a request the toolkit sends as given may hold. */

/**
 * Where JSON would not write `u` as it is (a function, a symbol, a `bigint`, a number that is not
 * finite, a class, a hole, a cycle): the path to the first such value, or `undefined`.
 */
export const unwritableAt = (u: unknown, parents: Array<unknown> = []): Array<PropertyKey> | undefined => {
  if (u === null || typeof u === "string" || typeof u === "boolean") return undefined
  if (typeof u === "number") return Number.isFinite(u) ? undefined : []
  if (typeof u !== "object" || parents.includes(u)) return []
  const proto: unknown = Object.getPrototypeOf(u)
  if (!Array.isArray(u) && proto !== Object.prototype && proto !== null) return []
  parents.push(u)
  const entries: Array<[PropertyKey, unknown]> = Array.isArray(u) ? Array.from(u, (v, i) => [i, v]) : Object.entries(u)
  for (const [key, value] of entries) {
    const at = unwritableAt(value, parents)
    if (at !== undefined) return [key, ...at]
  }
  parents.pop()
  return undefined
}
