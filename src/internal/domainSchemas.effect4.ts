/**
 * The schemas Schema 4 writes its own way: the parts of the domain schemas `Designs` and
 * `AccessToken` compose and document, and the constructors the shared tree builds its schemas with.
 * `domainSchemas.effect3.ts` has the same exports.
 */
import { DateTime, Effect, Result, Schema, SchemaGetter, SchemaIssue } from "effect"
import { Base64Url } from "effect/encoding"
import { calendarDateCheck, wireDate, wireDateText } from "../core/wire/calendarDate.js"
import { unwritableAt } from "../core/wire/json.js"

export const DesignNumber = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9]{1,12}$/, { message: "expected a design number: 1 to 12 letters or digits" })
).pipe(Schema.brand("DesignNumber"))

export const IsoDate = Schema.String.check(
  Schema.makeFilter(calendarDateCheck)
).annotate({ identifier: "IsoDate" })

export const WireDate = Schema.String.pipe(Schema.decodeTo(Schema.DateTimeUtc, {
  decode: SchemaGetter.transformEffect((s: string, options) => {
    const millis = wireDate(s)
    return millis === undefined
      ? Effect.fail(new SchemaIssue.InvalidValue({ message: "expected an ISO 8601 date" }, s, options))
      : Effect.succeed(DateTime.makeUnsafe(millis))
  }),
  encode: SchemaGetter.transform((d: DateTime.Utc) => wireDateText(DateTime.toEpochMillis(d)))
}))

/** `self`, refusing a value `predicate` answers with a text, told with that text. */
export const refine = <S extends Schema.Top>(self: S, predicate: (a: S["Type"]) => true | string): S["Rebuild"] =>
  self.check(Schema.makeFilter(predicate))

export const writable = <S extends Schema.Top>(schema: S) =>
  schema.check(Schema.makeFilter((request: S["Type"]) => {
    const path = unwritableAt(request)
    return path === undefined || { path, issue: "expected a value JSON can write as it is" }
  }))

export const Query = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "expected a non-empty query"),
  Schema.isMaxLength(1000, { message: "expected a query of at most 1000 characters" })
)

/** 1 to 100 of `row`. */
export const rowsOf = <S extends Schema.Top>(row: S) =>
  Schema.Array(row).check(
    Schema.isMinLength(1, { message: "expected at least one row" }),
    Schema.isMaxLength(100, { message: "expected at most 100 rows" })
  )

/** `pageNumber` from 0 and `pageSize` from 1 to `max`, worded as in Effect 3 (own text for a fraction). */
export const pageFields = (max: number) => ({
  pageNumber: Schema.Number.check(
    Schema.isGreaterThanOrEqualTo(0),
    Schema.isInt({ message: "expected a page number: an integer from 0" })
  ),
  pageSize: Schema.Int.check(
    Schema.isBetween({ minimum: 1, maximum: max }, { message: `expected a page size: an integer from 1 to ${max}` })
  )
})

export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const DesignNumbers = Schema.Array(DesignNumber)

const maxExpiresIn = 365 * 24 * 3600 // a year: timers and dates stay in range

export const ExpiresIn = Schema.Union([
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxExpiresIn })),
  Schema.String.check(Schema.isPattern(/^[0-9]{1,10}$/, { message: "expected a string of digits" })).pipe(
    Schema.decodeTo(Schema.NumberFromString),
    Schema.check(Schema.isBetween({ minimum: 1, maximum: maxExpiresIn }))
  )
])

/** RFC 6750's `b64token` in at most 8 KiB, told in one text for any value (no token is echoed). */
export const AccessTokenValue = Schema.String.check(
  Schema.makeFilter((s) => s.length <= 8192 && /^[A-Za-z0-9\-._~+/]+=*$/.test(s), {
    message: "expected a non-empty b64token (RFC 6750 section 2.1) of at most 8192 characters"
  })
)

export const TokenType = Schema.String.check(
  Schema.makeFilter((type) => type.toLowerCase() === "bearer", { message: "expected Bearer" })
)

export const TokenResponse = Schema.Struct({
  access_token: AccessTokenValue,
  expires_in: ExpiresIn,
  token_type: TokenType
}).annotate({ message: "expected a JSON object with access_token, expires_in and token_type" })

export const Stored = Schema.Struct({
  token: Schema.RedactedFromValue(AccessTokenValue),
  tokenType: TokenType,
  issuedAt: Schema.DateTimeUtcFromMillis,
  expiresAt: Schema.DateTimeUtcFromMillis
})

/** The text of base64url `data`, if it is some. */
export const base64UrlText = (data: string) => Result.getSuccess(Base64Url.decodeString(data))

// ---- the constructors the shared tree builds its schemas with

/** A union of literal values. */
export const literals = <const L extends ReadonlyArray<string>>(...values: L) => Schema.Literals(values)
/** A union of schemas. */
export const union = <const M extends ReadonlyArray<Schema.Top>>(...members: M) => Schema.Union(members)
/** A record of string keys. */
export const record = <V extends Schema.Top>(value: V) => Schema.Record(Schema.String, value)
/** A struct that keeps the fields it carries beyond those named, as sent. */
export const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Schema.Record(Schema.String, Schema.Unknown)])
/** A `Duration` value as a schema. */
export const DurationSchema = Schema.Duration
/** `schema` as JSON text. */
export const fromJsonString = Schema.fromJsonString

/** A schema that decodes without services: what an application gives for the data of any API's answer. */
export type Decoding<A, I> = Schema.Codec<A, I, never, unknown>
