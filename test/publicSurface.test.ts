/**
 * The shape of the package as its users and maintainers see it: every export of a public module
 * documented with `@since` and `@category`, every `Service` member with a doc, no public
 * declaration that names an `ioredis` type, and no import cycle anywhere in `src/`.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const src = join(root, "src")

const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, { readonly default: string }>
}

/** The source file of each public subpath, from `package.json` `exports`. */
const publicModules = Object.values(packageJson.exports)
  .map((entry) => entry.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"))
  .filter((file) => !file.endsWith("/index.ts"))

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.ES2022, true)

const jsDocTags = (node: ts.Node): ReadonlyArray<string> => ts.getJSDocTags(node).map((tag) => tag.tagName.text)

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

  it("no public declaration names an ioredis type", () => {
    const named = publicModules.filter((module) =>
      readFileSync(join(root, module.replace(/^src\//, "dist/").replace(/\.ts$/, ".d.ts")), "utf8").match(
        /from "ioredis"|import\("ioredis"\)/
      ) !== null
    )
    expect(named).toEqual([])
  })

  it("nothing in src/ imports in a circle", () => {
    const files = sourceFiles(src)
    const importsOf = new Map<string, ReadonlyArray<string>>()
    for (const file of files) {
      const parsed = parse(relative(root, file))
      importsOf.set(
        file,
        parsed.statements.flatMap((s) =>
          (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier !== undefined &&
            ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text.startsWith(".")
            ? [join(dirname(file), s.moduleSpecifier.text.replace(/\.js$/, ".ts"))]
            : []
        )
      )
    }
    const cycles: Array<string> = []
    const state = new Map<string, "visiting" | "done">()
    const visit = (file: string, path: ReadonlyArray<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "visiting") {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(src, f)).join(" → "))
        return
      }
      state.set(file, "visiting")
      for (const next of importsOf.get(file) ?? []) visit(next, [...path, file])
      state.set(file, "done")
    }
    for (const file of files) visit(file, [])
    expect(files.length).toBeGreaterThan(20)
    expect(cycles).toEqual([])
  })
})
