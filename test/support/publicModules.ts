/**
 * The source file of every public subpath of the package, from package.json `exports`: both editions
 * are built from the same source, so `./X` and `./effect4/X` name one file; a pattern (`./X/*`) stands
 * for every module of its folder, a subpath mapped to `null` for none.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"

export const publicModules = (root: string): ReadonlyArray<string> => {
  const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    readonly exports: Record<string, { readonly default: string } | null>
  }
  const files = Object.values(packageJson.exports).flatMap((entry) => {
    if (entry === null) return []
    const file = entry.default.replace(/^\.\/dist\/(effect4\/)?/, "src/").replace(/\.js$/, ".ts")
    if (!file.includes("*")) return [file]
    const folder = dirname(file)
    return readdirSync(join(root, folder)).filter((name) => name.endsWith(".ts")).map((name) => `${folder}/${name}`)
  })
  return [...new Set(files)]
}
