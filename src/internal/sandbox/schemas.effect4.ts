/** What the schemas of faults and journal queries (`State.ts`) take from Effect 4's Schema, in Effect 3's words. */
import { Array as Arr, Effect, Predicate, Schema, SchemaGetter, SchemaIssue, SchemaParser } from "effect"

type Problem = { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }

/** A refusal said in one line, `message`; under the field `path` names, if any (a 422's pointer). */
export const refused = (message: string, path: ReadonlyArray<string> = []) => {
  const issue = new SchemaIssue.InvalidValue({ message })
  return new Schema.SchemaError(path.length === 0 ? issue : new SchemaIssue.Pointer(path, issue))
}

/** What a caller passed that could not even be read. */
export const unreadable = () => refused("a getter or a Proxy trap threw")

/** A record whose keys `problem` checks before its values, each refused with its own message (`State.ts` says why). */
export const checkedRecord = <S extends Schema.Constraint>(value: S, problem: (key: string) => string | undefined) => {
  const record = Schema.Record(Schema.String, value)
  return Schema.declareConstructor<typeof record.Type, typeof record.Encoded>()(
    [record],
    ([codec]) => (input, ast, options) => {
      const issues = Object.keys(Predicate.isObject(input) ? input : {}).flatMap((key) => {
        const message = key === "__proto__" ? "__proto__ is no name a record can keep" : problem(key)
        return message === undefined ? [] : [new SchemaIssue.Pointer([key], new SchemaIssue.InvalidValue({ message }))]
      })
      return Arr.isArrayNonEmpty(issues)
        ? Effect.fail(new SchemaIssue.Composite(ast, issues, input))
        : SchemaParser.decodeUnknownEffect(codec)(input, options)
    }
  )
}

/** Text that `pattern` matches, else refused with `message`. */
export const matching = (pattern: RegExp, message: string) =>
  Schema.String.check(Schema.isPattern(pattern, { message }))
export const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number" }))
/** Integers from `minimum` to `maximum`. */
export const between = (minimum: number, maximum: number) =>
  Schema.Int.check(Schema.isBetween({ minimum, maximum }, { expected: `a number between ${minimum} and ${maximum}` }))
/** `self`, refused with the `problems` of its value when there are any. */
export const refined = <S extends Schema.Top>(self: S, problems: (value: S["Type"]) => ReadonlyArray<Problem>) =>
  self.check(
    Schema.makeFilter((value: S["Type"]) => problems(value).map(({ message, path }) => ({ path, issue: message })))
  )

/** Text read by `read`, or refused with the message it fails with. */
const fromText = <S extends Schema.Constraint>(to: S, read: (text: string) => Effect.Effect<unknown, string>) =>
  Schema.String.pipe(Schema.decodeTo(to, {
    decode: SchemaGetter.transformEffect((text: string) =>
      Effect.mapError(read(text), (message) => new SchemaIssue.InvalidValue({ message }, text))
    ),
    encode: SchemaGetter.transform((value) => JSON.stringify(value))
  }))

/** A number in text, as the Effect 3 edition reads and refuses it. */
const readNumber = (text: string) => {
  const n = text.trim() === "" ? Number.NaN : Number(text)
  return Number.isNaN(n) && text !== "NaN"
    ? Effect.fail(`Unable to decode ${JSON.stringify(text)} into a number`)
    : Effect.succeed(n)
}

/** JSON text, refused with what the parser says of it. */
const readJson = (text: string) =>
  Effect.try({ try: (): unknown => JSON.parse(text), catch: (e) => e instanceof Error ? e.message : String(e) })

/** A number, or JSON, in text. */
export const numberText = <S extends Schema.Constraint>(to: S) => fromText(to, readNumber)
export const jsonText = <S extends Schema.Constraint>(to: S) => fromText(to, readJson)
/** An optional field, decoded as `value` when absent. */
export const withDefault = <S extends Schema.Constraint>(schema: S, value: S["Encoded"]) =>
  Schema.withDecodingDefault<S>(Effect.succeed(value))(schema)
/** A list of at most `maximum` strings. */
export const strings = (maximum: number) => Schema.Array(Schema.String).check(Schema.isMaxLength(maximum))
