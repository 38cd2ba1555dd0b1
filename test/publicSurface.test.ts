/**
 * The shape of the package as its users and maintainers see it: every export of a public module
 * documented with `@since` (no later than the package's version) and `@category`, every `Service`
 * member with a doc, no public declaration (of the suite's edition's build) that names an `ioredis`
 * type, and no import circle anywhere in `src/`, counting type-only imports and dynamic `import()`s.
 */
import { edition } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { publicModules as allPublicModules } from "./support/publicModules.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const src = join(root, "src")

const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly version: string
  readonly exports: Record<string, { readonly default: string }>
}

/** The source file of each public subpath, from `package.json` `exports`. */
const publicModules = allPublicModules(root).filter((file) => !file.endsWith("/index.ts"))

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.ES2022, true)

const jsDocTags = (node: ts.Node): ReadonlyArray<string> => ts.getJSDocTags(node).map((tag) => tag.tagName.text)

/** The versions the `@since` tags of `node` name. */
const sinceVersions = (node: ts.Node): ReadonlyArray<string> =>
  ts.getJSDocTags(node).flatMap((tag) =>
    tag.tagName.text === "since" ? [ts.getTextOfJSDocComment(tag.comment)?.trim() ?? ""] : []
  )

/** Whether the version `a` (`major.minor.patch`) comes after `b`. */
const isLater = (a: string, b: string): boolean => {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number))
  for (let i = 0; i < 3; i++) {
    const d = (x?.[i] ?? 0) - (y?.[i] ?? 0)
    if (d !== 0) return d > 0
  }
  return false
}

/**
 * The relative modules `file` imports, as `.ts` paths: static imports and re-exports (type-only
 * ones too), dynamic `import()`s and `import("…")` types.
 */
const relativeImports = (file: string): ReadonlyArray<string> => {
  const parsed = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
  const specifiers: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text)
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined && ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text)
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
    ) {
      specifiers.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(parsed)
  return specifiers
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => join(dirname(file), specifier.replace(/\.js$/, ".ts")))
}

/** Every circle of imports among `files`, each written `a.ts → b.ts → a.ts`, relative to `dir`. */
const importCircles = (files: ReadonlyArray<string>, dir: string): ReadonlyArray<string> => {
  const importsOf = new Map(files.map((file) => [file, relativeImports(file)]))
  const circles: Array<string> = []
  const state = new Map<string, "visiting" | "done">()
  const visit = (file: string, path: ReadonlyArray<string>) => {
    if (state.get(file) === "done") return
    if (state.get(file) === "visiting") {
      circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(dir, f)).join(" → "))
      return
    }
    state.set(file, "visiting")
    for (const next of importsOf.get(file) ?? []) visit(next, [...path, file])
    state.set(file, "done")
  }
  for (const file of files) visit(file, [])
  return circles
}

const hasDoc = (node: ts.Node): boolean =>
  ts.getJSDocCommentsAndTags(node).some((doc) => ts.isJSDoc(doc) && (doc.comment ?? "") !== "")

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

/** The exported declarations of a module with their names; re-export specifiers carry their own docs. */
const exportedDeclarations = (
  file: ts.SourceFile
): ReadonlyArray<{ readonly name: string; readonly node: ts.Node }> => {
  const out: Array<{ name: string; node: ts.Node }> = []
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const d of statement.declarationList.declarations) out.push({ name: d.name.getText(file), node: statement })
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement)) && isExported(statement) && statement.name !== undefined
    ) {
      out.push({ name: statement.name.text, node: statement })
    } else if (
      ts.isExportDeclaration(statement) && statement.exportClause !== undefined &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) out.push({ name: element.name.text, node: element })
    }
  }
  return out
}

/** Tags of a re-exported name: its specifier's own, or those of its declaration in the module it comes from. */
const tagsOf = (
  file: ts.SourceFile,
  entry: { readonly name: string; readonly node: ts.Node }
): ReadonlyArray<string> => {
  const own = jsDocTags(entry.node)
  if (own.length > 0 || !ts.isExportSpecifier(entry.node)) return own
  const declaration = entry.node.parent.parent
  if (!ts.isExportDeclaration(declaration) || declaration.moduleSpecifier === undefined) return own
  const target = join(
    dirname(file.fileName),
    (declaration.moduleSpecifier as ts.StringLiteral).text.replace(/\.js$/, ".ts")
  )
  const original = (entry.node.propertyName ?? entry.node.name).text
  const found = exportedDeclarations(parse(relative(root, target))).find((e) => e.name === original)
  return found === undefined ? own : jsDocTags(found.node)
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

describe("the public surface", () => {
  it("every export of a public module has @since and @category", () => {
    const missing: Array<string> = []
    for (const module of publicModules) {
      const file = parse(module)
      for (const entry of exportedDeclarations(file)) {
        const tags = tagsOf(file, entry)
        for (const tag of ["since", "category"]) {
          if (!tags.includes(tag)) missing.push(`${module} ${entry.name}: no @${tag}`)
        }
      }
    }
    expect(missing).toEqual([])
  })

  it(`no @since in src/ names a version after the package's (${packageJson.version})`, () => {
    const later: Array<string> = []
    let seen = 0
    for (const path of sourceFiles(src)) {
      const file = parse(relative(root, path))
      const visit = (node: ts.Node): void => {
        for (const version of sinceVersions(node)) {
          seen++
          if (!/^\d+\.\d+\.\d+$/.test(version) || isLater(version, packageJson.version)) {
            later.push(
              `${relative(root, path)}:${
                file.getLineAndCharacterOfPosition(node.getStart()).line + 1
              } @since ${version}`
            )
          }
        }
        ts.forEachChild(node, visit)
      }
      visit(file)
    }
    expect(seen).toBeGreaterThan(100)
    expect(later).toEqual([])
  })

  it("a version is later by its major, then minor, then patch", () => {
    expect([isLater("0.3.1", "0.3.0"), isLater("0.10.0", "0.3.0"), isLater("1.0.0", "0.9.9")]).toEqual([
      true,
      true,
      true
    ])
    expect([isLater("0.3.0", "0.3.0"), isLater("0.2.9", "0.3.0"), isLater("0.1.0", "0.3.0")]).toEqual([
      false,
      false,
      false
    ])
  })

  it("every member of a Service interface says what it does", () => {
    const undocumented: Array<string> = []
    for (const module of publicModules) {
      const file = parse(module)
      for (const statement of file.statements) {
        if (!ts.isInterfaceDeclaration(statement) || !isExported(statement)) continue
        if (statement.name.text !== "Service") continue
        for (const member of statement.members) {
          if (!hasDoc(member)) undocumented.push(`${module} Service.${member.name?.getText(file) ?? "?"}`)
        }
      }
    }
    expect(publicModules.length).toBeGreaterThan(10)
    expect(undocumented).toEqual([])
  })

  it(`no public declaration of the Effect ${edition} build names an ioredis type`, () => {
    const built = { 3: "dist/", 4: "dist/effect4/" }[edition]
    const named = publicModules.filter((module) =>
      readFileSync(join(root, module.replace(/^src\//, built).replace(/\.ts$/, ".d.ts")), "utf8").match(
        /from "ioredis"|import\("ioredis"\)/
      ) !== null
    )
    expect(named).toEqual([])
  })

  it("nothing in src/ imports in a circle", () => {
    const files = sourceFiles(src)
    expect(files.length).toBeGreaterThan(20)
    expect(importCircles(files, src)).toEqual([])
  })

  it("a circle closed by a type-only import, a dynamic import() or an import type is found", () => {
    const dir = mkdtempSync(join(tmpdir(), "circles-"))
    try {
      const files = {
        "a.ts": `import type { B } from "./b.js"\nexport type A = B`,
        "b.ts": `export const b = () => import("./c.js")\nexport type B = number`,
        "c.ts": `export type C = typeof import("./a.js")`,
        "d.ts": `export { b } from "./b.js"`
      }
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
      expect(importCircles(Object.keys(files).map((name) => join(dir, name)), dir)).toEqual([
        "a.ts → b.ts → c.ts → a.ts"
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
