/**
 * Each suite runs on its own edition's effect (3.22, 4.1) and copies of the seams (a subpath the
 * Effect 4 install does not export would quietly resolve from the root's effect 3). The two builds
 * (`dist/` for Effect 3, `dist/effect4/` for Effect 4): every import the emitted files make, in code
 * and in declarations, names a package of its own edition, a module of its own build, or Node; and
 * each `#edition/*` import names a file of its own edition. Needs `npm run build` (`npm test` does).
 */
import { edition as libraryEdition } from "#edition/internal/seam"
import { edition as suite } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect"
import effectPackage from "effect/package.json" with { type: "json" }
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")

/** The package names and subpaths each edition's `effect` exports (its package.json `exports`). */
const subpaths = (packageDir: string): ReadonlySet<string> =>
  new Set(Object.keys(JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).exports as object))

const editions = {
  3: {
    dir: dist,
    effectDir: join(root, "node_modules/effect"),
    effect: subpaths(join(root, "node_modules/effect")),
    packages: [
      "@effect/platform",
      "@effect/platform-node",
      "@effect/sql",
      "@effect/sql-libsql",
      "@effect/sql-pg",
      "@effect/experimental",
      "@effect/ai",
      "@effect/rpc",
      "ioredis"
    ],
    own: ".effect3.js"
  },
  4: {
    dir: join(dist, "effect4"),
    effectDir: join(root, "effect4/node_modules/effect"),
    effect: subpaths(join(root, "effect4/node_modules/effect")),
    packages: ["@effect/platform-node", "@effect/sql-pg", "ioredis"],
    own: ".effect4.js"
  }
} as const

const files = (dir: string, skip?: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return path === skip || entry.name === "cli" ? [] : files(path, skip)
    return /\.(js|d\.ts)$/.test(entry.name) ? [path] : []
  })

const specifiers = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)["']([^"']+)["']/g)].map((m) => m[1] ?? "")

describe("the two editions", () => {
  it(`the Effect ${suite} suite runs on effect ${{ 3: "3.22", 4: "4.1" }[suite]}, with the library's own seam`, () => {
    expect(effectPackage.version).toMatch({ 3: /^3\.22\./, 4: /^4\.1\./ }[suite])
    expect(["Either", "Result"].filter((name) => name in Effect)).toEqual({ 3: ["Either"], 4: ["Result"] }[suite])
    expect(libraryEdition).toBe(suite)
  })

  for (const [name, edition] of Object.entries(editions)) {
    it(`dist${name === "4" ? "/effect4" : ""} imports only Effect ${name}'s packages and its own modules`, () => {
      expect(existsSync(edition.dir), "run npm run build first").toBe(true)
      const emitted = files(edition.dir, name === "3" ? join(dist, "effect4") : undefined)
      expect(emitted.length).toBeGreaterThan(50)
      const wrong: Array<string> = []
      for (const file of emitted) {
        for (const specifier of specifiers(readFileSync(file, "utf8"))) {
          const at = `${relative(root, file)}: ${specifier}`
          if (specifier.startsWith(".")) {
            const target = resolve(dirname(file), specifier.replace(/\.js$/, file.endsWith(".d.ts") ? ".d.ts" : ".js"))
            if (!target.startsWith(edition.dir) || (name === "3" && target.startsWith(join(dist, "effect4")))) {
              wrong.push(`${at} (outside its build)`)
            }
            if (/\.effect[34]\.js$/.test(specifier) && !specifier.endsWith(edition.own)) {
              wrong.push(`${at} (other edition)`)
            }
          } else if (specifier.startsWith("#edition/")) {
            const target = join(edition.dir, specifier.slice("#edition/".length) + edition.own)
            if (!existsSync(target)) wrong.push(`${at} (no ${relative(root, target)})`)
          } else if (specifier.startsWith("node:")) {
            continue
          } else if (specifier === "effect" || specifier.startsWith("effect/")) {
            const subpath = specifier === "effect" ? "." : `./${specifier.slice("effect/".length)}`
            const pattern = edition.effect.has("./*") &&
              existsSync(join(edition.effectDir, `dist/${subpath.slice(2)}.js`))
            if (!edition.effect.has(subpath) && !pattern) wrong.push(`${at} (not in effect ${name})`)
            if (
              name === "3" && /^effect\/(http|sql|ai|persistence|testing|encoding|reactivity)(\/|$)/.test(specifier)
            ) {
              wrong.push(`${at} (an Effect 4 module)`)
            }
          } else {
            const packageName = specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")
            if (!(edition.packages as ReadonlyArray<string>).includes(packageName)) {
              wrong.push(`${at} (not Effect ${name}'s)`)
            }
          }
        }
      }
      expect(wrong).toEqual([])
    })
  }
})
