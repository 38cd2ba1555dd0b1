/**
 * The optional peer dependencies, `ioredis` (a fleet) and `@effect/platform-node` (a served sandbox):
 * a feature built without its package fails with a `ConfigError` naming the package and the line
 * that installs it, never a defect; the seam `FailingImports` stands in for the missing package in
 * this process, and the suite's edition's build of the library is run once in a child process whose
 * resolver knows neither package, where every exported module must still import.
 */
import type { ConfigErrorType } from "#edition/internal/seam"
import { configErrorPath, edition, failureOption, hasDie, isConfigError } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Fleet, FleetRedis, Sandbox } from "../src/index.js"
import { FailingImports } from "../src/internal/optionalPeer.js"

/** As Node fails an `import()` of a package that is not installed. */
const notInstalled = (name: string) => () =>
  Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: "ERR_MODULE_NOT_FOUND" }))

const without = (...names: ReadonlyArray<string>) =>
  Effect.provideService(FailingImports, new Map(names.map((name) => [name, notInstalled(name)])))

/** The `ConfigError` an exit failed with: a failure, neither a defect nor an interruption. */
const configErrorOf = (exit: Exit.Exit<unknown, unknown>): ConfigErrorType => {
  expect(Exit.isFailure(exit)).toBe(true)
  if (Exit.isSuccess(exit)) throw new Error("succeeded")
  expect(hasDie(exit.cause)).toBe(false)
  const failure = failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(Cause.pretty(exit.cause))
  if (!isConfigError(failure.value)) throw new Error(`not a ConfigError: ${String(failure.value)}`)
  return failure.value
}

// the suite's edition's build (as package.json `exports` names it), and how its served sandbox is installed
const built = { 3: "./dist/", 4: "./dist/effect4/" }[edition]
const installNode = `npm install @effect/platform-node@${{ 3: "^0.108", 4: "^4.1" }[edition]}`

describe("optional peer dependencies", () => {
  it.effect("FleetRedis.layer without ioredis: missing data (at ioredis), saying how to install it", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(FleetRedis.layer())).pipe(without("ioredis"))
      const error = configErrorOf(exit)
      const message = "FleetRedis.layer (and Fleet.layer) needs the optional package ioredis, which could not be " +
        "loaded; install it: npm install ioredis (ERR_MODULE_NOT_FOUND)"
      // Effect 3's MissingData names the path; Effect 4's error of a missing setting, a SourceError, keeps none
      if (edition === 3) expect(error).toMatchObject({ _op: "MissingData", message })
      else expect(error).toMatchObject({ cause: { _tag: "SourceError", message } })
      expect(configErrorPath(error)).toEqual({ 3: ["ioredis"], 4: [] }[edition])
    }).pipe(Effect.scoped))

  it.effect("Fleet.layer without ioredis fails the same way, after its own options are checked", () =>
    Effect.gen(function*() {
      const missing = configErrorOf(yield* Effect.exit(Layer.build(Fleet.layer())).pipe(without("ioredis")))
      expect(String(missing)).toContain("npm install ioredis")
      // a bad option is still told first, without any import
      const bad = configErrorOf(
        yield* Effect.exit(Layer.build(Fleet.layer({ url: "http://x" }))).pipe(without("ioredis"))
      )
      expect(String(bad)).toContain("url must be a redis:// or rediss:// URL")
    }).pipe(Effect.scoped))

  it.effect("Sandbox.serve without @effect/platform-node: missing data naming it; Sandbox.layer needs none", () =>
    Effect.gen(function*() {
      const error = configErrorOf(yield* Effect.exit(Sandbox.serve({ port: 0 })).pipe(without("@effect/platform-node")))
      expect(String(error)).toContain(
        "Sandbox.serve needs the optional package @effect/platform-node, which could not be loaded; " +
          `install it: ${installNode}`
      )
      const layer = yield* Effect.exit(Layer.build(Sandbox.layer())).pipe(without("@effect/platform-node", "ioredis"))
      expect(Exit.isSuccess(layer)).toBe(true)
    }).pipe(Effect.scoped))

  it(`the built library (${built}), where neither package resolves: every exported module imports, both features fail typed`, () => {
    const script = fileURLToPath(new URL("./support/withoutOptionalPeers.mjs", import.meta.url))
    // Effect 4's build resolves effect from effect4/'s install
    const imports = { 3: [], 4: ["--import", fileURLToPath(new URL("../effect4/register.mjs", import.meta.url))] }
    const run = spawnSync(process.execPath, [...imports[edition], script, String(edition)], {
      encoding: "utf8",
      timeout: 20_000
    })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const result = JSON.parse(run.stdout) as {
      readonly imported: ReadonlyArray<string>
      readonly failedImports: ReadonlyArray<string>
      readonly fleet: { readonly _tag: string; readonly errorTag?: string; readonly text: string }
      readonly serve: { readonly _tag: string; readonly errorTag?: string; readonly text: string }
    }
    expect(result.failedImports).toEqual([])
    expect(result.imported).toContain(`${built}index.js`)
    expect(result.imported).toContain(`${built}Fleet.js`)
    expect(result.fleet).toMatchObject({ _tag: "Failure", errorTag: "ConfigError" })
    expect(result.fleet.text).toContain("needs the optional package ioredis")
    expect(result.fleet.text).toContain("npm install ioredis")
    expect(result.serve).toMatchObject({ _tag: "Failure", errorTag: "ConfigError" })
    expect(result.serve.text).toContain(installNode)
  })
})
