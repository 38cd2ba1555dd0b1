/** The MCP toolkit's schema words, Effect 4's side: the same exports as `schemas.effect3.ts`. */
import { Schema } from "effect"

/** Any schema of a tool's arguments or answer. */
export type AnySchema = Schema.Codec<unknown, unknown, never, never>

/** `schema`, described for an agent. */
export const describeAs = <S extends Schema.Top>(schema: S, description: string) =>
  schema.annotate({ description }) as S

/** A whole number from `min` to `max`. */
export const intBetween = (min: number, max: number) =>
  Schema.Int.check(
    Schema.isBetween({ minimum: min, maximum: max }, { message: `expected a whole number from ${min} to ${max}` })
  )

/** The JSON Schema of `schema`, an object. */
export const jsonSchema = (schema: AnySchema): Record<string, unknown> => {
  const { definitions, schema: root } = Schema.toJsonSchemaDocument(schema)
  return Object.keys(definitions).length === 0 ? { ...root } : { ...root, $defs: definitions }
}
