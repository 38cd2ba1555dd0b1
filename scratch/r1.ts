import { Schema, ParseResult } from "effect"
import { Design } from "/work/main/src/Designs.ts"
import { describe } from "/work/main/src/internal/schemaIssues.ts"
import { noMask } from "/work/main/src/internal/mask/mask.ts"
const r = Schema.decodeUnknownEither(Design)({ number: "201900001", filingDate: "2019-02-30", owners: [{ name: 5 }] })
if (r._tag === "Left") {
  console.log(describe(r.left, noMask))
  console.log(ParseResult.ArrayFormatter.formatErrorSync(r.left).map(i => `${i.path.join(".")}: ${i.message}`).join("; "))
}
const r2 = Schema.decodeUnknownEither(Design, {errors: "all"})({ number: "201900001", filingDate: "2019-02-30", owners: [{ name: 5 }] })
if (r2._tag === "Left") console.log(ParseResult.ArrayFormatter.formatErrorSync(r2.left).map(i => `${i.path.join(".")}: ${i.message}`).join("; "))
