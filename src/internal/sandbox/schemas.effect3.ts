/** What the schemas of faults and journal queries (`State.ts`) take from Effect 3's Schema, as it writes it. */
import { Array as Arr, ParseResult, Predicate, Schema } from "effect"

type Problem = { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }

/** A refusal said in one line, `message`; under the field `path` names, if any (a 422's pointer). */
export const refused = (message: string, path: ReadonlyArray<string> = []) => {
  const issue = new ParseResult.Type(Schema.Unknown.ast, undefined, message)
  return new ParseResult.ParseError({
    issue: Arr.isNonEmptyReadonlyArray(path) ? new ParseResult.Pointer(path, undefined, issue) : issue
  })
}

/** What a caller passed that could not even be read. */
export const unreadable = () => refused("a getter or a Proxy trap threw")

/** A record whose keys `problem` checks, each refused with its own message (`State.ts` says why). */
export const checkedRecord = <A, I>(value: Schema.Schema<A, I>, problem: (key: string) => string | undefined) =>
  Schema.declare([Schema.Record({ key: Schema.String, value })], {
    decode: (record) => (input, options, ast) => {
      const issues = Object.keys(Predicate.isRecord(input) ? input : {}).flatMap((key) => {
        const message = key === "__proto__" ? "__proto__ is no name a record can keep" : problem(key)
        return message === undefined
          ? []
          : [new ParseResult.Pointer(key, input, new ParseResult.Type(ast, key, message))]
      })
      return Arr.isNonEmptyArray(issues)
        ? ParseResult.fail(new ParseResult.Composite(ast, input, issues))
        : ParseResult.decodeUnknown(record)(input, options)
    },
    encode: (record) => (input, options) => ParseResult.encodeUnknown(record)(input, options)
  })

/** Text that `pattern` matches, else refused with `message`. */
export const matching = (pattern: RegExp, message: string) =>
  Schema.String.pipe(Schema.pattern(pattern, { message: () => message }))
export const NonNegativeInt = Schema.NonNegativeInt
/** Integers from `minimum` to `maximum`. */
export const between = (minimum: number, maximum: number) => Schema.Int.pipe(Schema.between(minimum, maximum))
/** `self`, refused with the `problems` of its value when there are any. */
export const refined = <S extends Schema.Schema.Any>(self: S, problems: (value: S["Type"]) => ReadonlyArray<Problem>) =>
  Schema.filter<S>(problems)(self)
/** A number, or JSON, in text. */
export const numberText = <A>(to: Schema.Schema<A, number>) => Schema.compose(Schema.NumberFromString, to)
export const jsonText = <A, I>(to: Schema.Schema<A, I>) => Schema.parseJson(to)
/** An optional field, decoded as `value` when absent. */
export const withDefault = <S extends Schema.Schema.Any>(schema: S, value: Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { default: () => value })
/** A list of at most `maximum` strings. */
export const strings = (maximum: number) => Schema.Array(Schema.String).pipe(Schema.maxItems(maximum))
