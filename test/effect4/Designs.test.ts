/**
 * The Effect 4 edition's `Designs`: its schemas describe exactly the wire shapes of `src/core/wire.ts`
 * (checked when the tests typecheck), a design of the sandbox's dataset is written back as it is,
 * and dates, listings and requests are read as in the Effect 3 edition.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Result, Schema } from "effect"
import { generateDesigns } from "../../src/core/dataset.js"
import type * as Wire from "../../src/core/wire.js"
import * as Designs from "../../src/effect4/Designs.js"

type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** Whether `A` and `B` are one type: identical (`readonly` too), and each assignable to the other (`?: T | undefined`). */
type Same<A, B> = [A, B] extends [B, A] ? Identical<A, B> : false

const decodeWireDate = Schema.decodeUnknownResult(Designs.WireDate)
const decodeIsoDate = Schema.decodeUnknownResult(Designs.IsoDate)
const millis = (s: string) =>
  Result.match(decodeWireDate(s), { onFailure: () => undefined, onSuccess: DateTime.toEpochMillis })

describe("Designs (Effect 4)", () => {
  it("its schemas describe the wire shapes, and a design of the dataset is written back as it is", () => {
    const same: ReadonlyArray<true> = [
      true satisfies Same<Designs.QuickSearchRequest, Wire.QuickSearchRequest>,
      true satisfies Same<typeof Designs.Sort.Type, Wire.Sort>,
      true satisfies Same<typeof Designs.DateRange.Type, Wire.DateRange>,
      true satisfies Same<Designs.Criteria, Wire.Criteria>,
      true satisfies Same<Designs.Row, Wire.Row>,
      true satisfies Same<Designs.AdvancedSearchRequest, Wire.AdvancedSearchRequest>,
      true satisfies Same<Designs.PageRequest, Wire.PageRequest>,
      true satisfies Same<typeof Designs.Design.Encoded, Wire.Design>
    ]
    assert.notInclude(same, false)
    const rewrite = Schema.encodeSync(Schema.fromJsonString(Designs.Design))
    for (const design of generateDesigns(300, 7)) {
      assert.strictEqual(rewrite(Schema.decodeUnknownSync(Designs.Design)(design)), JSON.stringify(design))
    }
  })

  it("reads calendar dates to midnight UTC and timestamps; refuses dates that do not exist", () => {
    assert.strictEqual(millis("2024-02-29"), Date.UTC(2024, 1, 29))
    assert.strictEqual(millis("2023-01-05T10:20:30Z"), Date.UTC(2023, 0, 5, 10, 20, 30))
    for (const bad of ["2023-02-29", "2023-13-01", "2023-1-01", "2023/01/01", "2023-01-01 ", "٢٠٢٣-01-01"]) {
      assert.isUndefined(millis(bad), bad)
      assert.isTrue(Result.isFailure(decodeIsoDate(bad)), bad)
    }
    assert.isTrue(Result.isSuccess(decodeIsoDate("2024-02-29")))
  })

  it("a design keeps unknown fields and is encoded as sent: calendar dates as YYYY-MM-DD, instants as timestamps", () => {
    const sent = { number: "201915000", filingDate: "2024-02-29", lastChanged: "2024-03-01T10:00:00.000Z", x: [1] }
    const design = Schema.decodeUnknownSync(Designs.Design)(sent)
    assert.deepStrictEqual(design["x"], [1])
    assert.deepStrictEqual(Schema.encodeSync(Designs.Design)(design), sent)
    const sparse: Array<string> = ["a"]
    sparse[2] = "c"
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Designs.Design)({ number: "1", productNames: sparse })))
  })
})
