/**
 * `src/core/`, the plain data and functions every edition shares: nothing in it imports `effect`,
 * `@effect/*`, a Node module but `node:crypto`, or a module of `src/` outside it (type-only and
 * dynamic imports count); `Designs`' schemas describe exactly its wire shapes (checked when the
 * tests typecheck); and the sandbox's dataset is what `Designs.Design` writes back of it.
 */

import { fromJsonString } from "#edition/internal/domainSchemas"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { createHmac } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import type * as ApiError from "../src/ApiError.js"
import * as Mirror from "../src/core/mirror/mirror.js"
import { generateDesigns } from "../src/core/sandbox/dataset.js"
import * as Jwt from "../src/core/wire/jwt.js"
import type * as Wire from "../src/core/wire/wire.js"
import * as Designs from "../src/Designs.js"

const core = resolve(dirname(fileURLToPath(import.meta.url)), "../src/core")

/** What a core module at `file` may not import: everything but `node:crypto` and the modules beside it. */
const refusedImports = (file: string, text: string): ReadonlyArray<string> =>
  ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((specifier) =>
    specifier.startsWith(".")
      ? relative(core, join(dirname(file), specifier)).startsWith("..")
      : specifier !== "node:crypto"
  )

type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** Whether `A` and `B` are one type: identical (`readonly` too), and each assignable to the other (`?: T | undefined`). */
type Same<A, B> = [A, B] extends [B, A] ? Identical<A, B> : false

describe("src/core", () => {
  it("imports nothing but node:crypto and its own modules", () => {
    const files = readdirSync(core, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(5)
    const refused = files.flatMap((f) =>
      refusedImports(join(core, f), readFileSync(join(core, f), "utf8")).map((s) => `${f}: ${s}`)
    )
    expect(refused).toEqual([])
  })

  it("an import of Effect, of a Node module or of src/ outside core is found, however it is written", () => {
    const text = [
      `import type { Effect } from "effect"`,
      `export * from "../Designs.js"`,
      `const fs = () => import("node:fs")`,
      `type C = typeof import("@effect/platform")`,
      `import { x } from "./sub/x.js"`,
      `import { createHmac } from "node:crypto"`
    ].join("\n")
    expect(refusedImports(join(core, "a.ts"), text)).toEqual([
      "effect",
      "../Designs.js",
      "node:fs",
      "@effect/platform"
    ])
  })

  it("Designs' schemas describe its wire shapes, and a design of the dataset is written back as it is", () => {
    const same: ReadonlyArray<true> = [
      true satisfies Same<Designs.QuickSearchRequest, Wire.QuickSearchRequest>,
      true satisfies Same<typeof Designs.Sort.Type, Wire.Sort>,
      true satisfies Same<typeof Designs.DateRange.Type, Wire.DateRange>,
      true satisfies Same<Designs.Criteria, Wire.Criteria>,
      true satisfies Same<Designs.Row, Wire.Row>,
      true satisfies Same<Designs.AdvancedSearchRequest, Wire.AdvancedSearchRequest>,
      true satisfies Same<Designs.PageRequest, Wire.PageRequest>,
      true satisfies Same<typeof Designs.Design.Encoded, Wire.Design>,
      true satisfies Same<ApiError.ErrorSource, Wire.ErrorSource>,
      true satisfies Same<ApiError.ErrorObject, Wire.ErrorObject>,
      true satisfies Same<ApiError.Message, Wire.Message>
    ]
    expect(same).not.toContain(false)
    const rewrite = Schema.encodeSync(fromJsonString(Designs.Design))
    for (const design of generateDesigns(300, 7)) {
      expect(rewrite(Schema.decodeUnknownSync(Designs.Design)(design))).toBe(JSON.stringify(design))
    }
  })
})

describe("core/jwt", () => {
  const key = new Uint8Array(32).fill(7)
  const token = Jwt.issue(key, { clientId: "c", issuer: "https://i", jti: "t-1", lifetime: 60, now: 1000 })
  const [header, , signature] = token.split(".")

  it("reads back the expiry and id of a token it signed, and refuses any other", () => {
    expect(Jwt.verify(key, token)).toEqual({ exp: 1060, jti: "t-1" })
    expect(Jwt.verify(new Uint8Array(32), token)).toBe("invalid signature")
    expect(Jwt.verify(key, `${token}.x`)).toBe("malformed token")
    expect(Jwt.verify(key, `${header}.${Buffer.from("{}").toString("base64url")}.${signature}`)).toBe(
      "invalid signature"
    )
  })

  it("refuses a token signed with its key whose claims are not JSON or lack a numeric exp and a jti", () => {
    const signed = (claims: string) => {
      const body = `${header}.${Buffer.from(claims).toString("base64url")}`
      return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`
    }
    for (const claims of ["not json", "null", `{"exp":"1","jti":"a"}`, `{"exp":1}`, `[1]`]) {
      expect(Jwt.verify(key, signed(claims))).toBe("invalid claims")
    }
    expect(Jwt.verify(key, signed(`{"exp":1,"jti":"a","x":2}`))).toEqual({ exp: 1, jti: "a" })
  })
})

describe("core/mirror", () => {
  it("a record's differences: values equal in any key order are not told; a changed, added or removed one is", () => {
    const old = { number: "1", owners: [{ name: "A", country: "AU" }], title: "Chair", extra: { a: 1, b: [1, 2] } }
    const now = { extra: { b: [1, 2], a: 1 }, title: "Chair", owners: [{ country: "AU", name: "A" }], number: "1" }
    expect(Mirror.differences(old, now)).toEqual({})
    expect(Mirror.differences(old, { ...now, title: "Table", status: "FILED", extra: { a: 1, b: [2, 1] } })).toEqual({
      title: { old: "Chair", new: "Table" },
      status: { old: undefined, new: "FILED" },
      extra: { old: { a: 1, b: [1, 2] }, new: { a: 1, b: [2, 1] } }
    })
    expect(Object.keys(Mirror.differences({ x: [] }, { x: {} }))).toEqual(["x"])
    expect(Object.keys(Mirror.differences({ x: { a: undefined } }, { x: {} }))).toEqual(["x"])
    expect(Object.keys(Mirror.differences({ x: { a: 1 } }, { x: { b: 1 } }))).toEqual(["x"])
  })
})
