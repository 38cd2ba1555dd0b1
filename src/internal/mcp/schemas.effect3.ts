/**
 * The MCP toolkit's schema words, Effect 3's side (`schemas.effect4.ts` has the same exports): a
 * description, a bounded integer, and the JSON Schema of a tool's arguments or answer.
 */
import { JSONSchema, Schema } from "effect"

/** Any schema of a tool's arguments or answer. */
export type AnySchema = Schema.Schema.AnyNoContext

/** `schema`, described for an agent. */
export const describeAs = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  schema.annotations({ description }) as S

/** A whole number from `min` to `max`. */
export const intBetween = (min: number, max: number) =>
  Schema.Int.pipe(Schema.between(min, max)).annotations({ message: () => `expected a whole number from ${min} to ${max}` })

/** The JSON Schema of `schema`, an object. */
export const jsonSchema = (schema: AnySchema): Record<string, unknown> => {
  const { $schema: _, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return rest
}
