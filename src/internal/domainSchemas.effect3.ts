/**
 * The schemas Schema 3 writes its own way: the parts of the domain schemas `Designs` and
 * `AccessToken` compose and document, and the constructors the shared tree builds its schemas with.
 * `domainSchemas.effect4.ts` has the same exports.
 */
import { DateTime, Either, Encoding, ParseResult, Schema } from "effect"
import { calendarDateCheck, wireDate, wireDateText } from "../core/wire/calendarDate.js"
import { unwritableAt } from "../core/wire/json.js"

const designNumberPattern = /^[A-Za-z0-9]{1,12}$/

export const DesignNumber = Schema.String.pipe(
  Schema.pattern(designNumberPattern, { message: () => "expected a design number: 1 to 12 letters or digits" }),
  Schema.brand("DesignNumber")
)

export const IsoDate = Schema.String.pipe(
  Schema.filter(calendarDateCheck),
  Schema.annotations({ identifier: "IsoDate" })
)

export const WireDate = Schema.transformOrFail(Schema.String, Schema.DateTimeUtcFromSelf, {
  decode: (s, _, ast) => {
    const millis = wireDate(s)
    return millis === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, s, "expected an ISO 8601 date"))
      : ParseResult.succeed(DateTime.unsafeMake(millis))
  },
  encode: (d) => ParseResult.succeed(wireDateText(DateTime.toEpochMillis(d)))
})

/** `self`, refusing a value `predicate` answers with a text, told with that text. */
export const refine = <S extends Schema.Schema.Any>(self: S, predicate: (a: Schema.Schema.Type<S>) => true | string) =>
  Schema.filter<S>(predicate)(self)

export const writable = <A, I>(schema: Schema.Schema<A, I>) =>
  schema.pipe(Schema.filter((request) => {
    const path = unwritableAt(request)
    return path === undefined || { path, message: "expected a value JSON can write as it is" }
  }))

export const Query = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0 || "expected a non-empty query"),
  Schema.maxLength(1000, { message: () => "expected a query of at most 1000 characters" })
)

export const rowsOf = <S extends Schema.Schema.Any>(row: S) =>
  Schema.Array(row).pipe(
    Schema.minItems<Schema.Array$<S>>(1, { message: () => "expected at least one row" }),
    Schema.maxItems<Schema.filter<Schema.Array$<S>>>(100, { message: () => "expected at most 100 rows" })
  )

/** `pageNumber` from 0 and `pageSize` from 1 to `max`, each with its own message. */
export const pageFields = (max: number) => ({
  pageNumber: Schema.NonNegativeInt.annotations({ message: () => "expected a page number: an integer from 0" }),
  pageSize: Schema.Int.pipe(Schema.between(1, max)).annotations({
    message: () => `expected a page size: an integer from 1 to ${max}`
  })
})

export const Count = Schema.NonNegativeInt

/** Design numbers, the whole register maybe: a valid list is kept in one pass, an invalid one read item by item. */
export const DesignNumbers = Schema.declare([Schema.Array(DesignNumber)], {
  decode: (list) => (u, options) =>
    Array.isArray(u) && u.every((n) => typeof n === "string" && designNumberPattern.test(n))
      ? ParseResult.succeed(u as ReadonlyArray<typeof DesignNumber.Type>)
      : ParseResult.decodeUnknown(list)(u, options),
  encode: (list) => ParseResult.encodeUnknown(list)
})

const maxExpiresIn = 365 * 24 * 3600 // a year: timers and dates stay in range

export const ExpiresIn = Schema.Union(
  Schema.Int.pipe(Schema.between(1, maxExpiresIn)),
  Schema.compose(
    Schema.String.pipe(Schema.pattern(/^[0-9]{1,10}$/, { message: () => "expected a string of digits" })),
    Schema.NumberFromString
  ).pipe(Schema.between(1, maxExpiresIn))
)

/** RFC 6750's `b64token` in at most 8 KiB, told in one text for any value (no token is echoed). */
export const AccessTokenValue = Schema.String.pipe(
  Schema.filter((s) => s.length <= 8192 && /^[A-Za-z0-9\-._~+/]+=*$/.test(s), {
    message: () => ({
      message: "expected a non-empty b64token (RFC 6750 section 2.1) of at most 8192 characters",
      override: true
    })
  })
)

export const TokenType = Schema.String.pipe(
  Schema.filter((type) => type.toLowerCase() === "bearer", { message: () => "expected Bearer" })
)

export const TokenResponse = Schema.Struct({
  access_token: AccessTokenValue,
  expires_in: ExpiresIn,
  token_type: TokenType
}).annotations({ message: () => "expected a JSON object with access_token, expires_in and token_type" })

export const Stored = Schema.Struct({
  token: Schema.Redacted(AccessTokenValue),
  tokenType: TokenType,
  issuedAt: Schema.DateTimeUtcFromNumber,
  expiresAt: Schema.DateTimeUtcFromNumber
})

/** The text of base64url `data`, if it is some. */
export const base64UrlText = (data: string) => Either.getRight(Encoding.decodeBase64UrlString(data))

// ---- the constructors the shared tree builds its schemas with

/** A union of literal values: `Schema.Literal(...values)`, `Schema.Literals([...])` in Effect 4. */
export const literals = <L extends readonly [string, ...Array<string>]>(...values: L) => Schema.Literal(...values)
/** A union of schemas: `Schema.Union(...members)`, `Schema.Union([...])` in Effect 4. */
export const union = <M extends readonly [Schema.Schema.All, Schema.Schema.All, ...Array<Schema.Schema.All>]>(
  ...members: M
): Schema.Union<M> => Schema.Union(...members)
/** A record of string keys: `Schema.Record({ key, value })`, `Schema.Record(key, value)` in Effect 4. */
export const record = <V extends Schema.Schema.All>(value: V) => Schema.Record({ key: Schema.String, value })
/** A struct that keeps the fields it carries beyond those named, as sent. */
export const openStruct = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
/** A `Duration` value as a schema: `Schema.DurationFromSelf`, `Schema.Duration` in Effect 4. */
export const DurationSchema = Schema.DurationFromSelf
/** `schema` as JSON text: `Schema.parseJson(schema)`, `Schema.fromJsonString` in Effect 4. */
export const fromJsonString = <S extends Schema.Schema.Any>(schema: S) => Schema.parseJson(schema)

/** A schema that decodes without services: what an application gives for the data of any API's answer. */
export type Decoding<A, I> = Schema.Schema<A, I, never>
