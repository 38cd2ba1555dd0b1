/**
 * `node test/support/withoutOptionalPeers.mjs EDITION` (test/optionalPeers.test.ts; for 4 after
 * `--import ./effect4/register.mjs`): the edition's build (`dist/`, `dist/effect4/`) as an application
 * sees it without its optional peers. A resolve hook answers `ioredis` and `@effect/platform-node` as
 * Node answers a package that is not installed; then every module of the edition is imported, a fleet
 * layer built and a sandbox served, and what came of it printed as one JSON object on stdout.
 */
import { readFileSync } from "node:fs"
import { register } from "node:module"
import process from "node:process"
import { URL } from "node:url"

const hidden = ["ioredis", "@effect/platform-node"]

const hook = `
const hidden = ${JSON.stringify(hidden)}
export async function resolve(specifier, context, next) {
  if (hidden.some((name) => specifier === name || specifier.startsWith(name + "/"))) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL)
    error.code = "ERR_MODULE_NOT_FOUND"
    throw error
  }
  return next(specifier, context)
}
`
register(`data:text/javascript,${encodeURIComponent(hook)}`)

const root = new URL("../../", import.meta.url)
const effect4 = process.argv[2] === "4"
const { Cause, Effect, Exit, Layer } = await import(
  effect4 ? new URL("effect4/node_modules/effect/dist/index.js", root).href : "effect"
)
const { exports } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"))
const imported = []
const failedImports = []
// the edition's modules (the other's load only with its own effect)
for (const [, entry] of Object.entries(exports).filter(([subpath]) => subpath.startsWith("./effect4") === effect4)) {
  try {
    await import(new URL(entry.default, root).href)
    imported.push(entry.default)
  } catch (error) {
    failedImports.push(`${entry.default}: ${error}`)
  }
}

const { Fleet, Sandbox } = await import(new URL(effect4 ? "dist/effect4/index.js" : "dist/index.js", root).href)

/** How building `effect` ended: its failure's tag and text, or a defect. */
const outcome = (effect) =>
  Effect.runPromiseExit(Effect.scoped(effect)).then((exit) => {
    if (Exit.isSuccess(exit)) return { _tag: "Success" }
    const failure = (Cause.failureOption ?? Cause.findErrorOption)(exit.cause)
    return failure._tag === "Some"
      ? { _tag: "Failure", errorTag: failure.value._tag, text: String(failure.value) }
      : { _tag: "Defect", text: Cause.pretty(exit.cause) }
  })

const fleet = await outcome(Layer.build(Fleet.layer()))
const serve = await outcome(Sandbox.serve({ port: 0 }))
process.stdout.write(JSON.stringify({ imported, failedImports, fleet, serve }) + "\n")
