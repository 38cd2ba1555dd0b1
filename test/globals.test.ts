/**
 * Importing the package changes no global state: not undici's global dispatcher, not `fetch`, and
 * nothing else an application shares with it. A child process (`node` with `tsx`, on `src/`, on the
 * suite's edition: under Effect 4 with test/support/effect4Imports.mjs) takes
 * a snapshot of the globals, imports the modules of the package's peers that the public modules
 * import (the application's own, loaded by it anyway), takes another, then imports every public
 * module (package.json `exports`) one by one, comparing the globals after each import with those
 * before it. What is compared: every own property name and symbol of `globalThis` with its value's
 * identity, the own properties of every global function and of its prototype (descriptors), of
 * `process`, `process.env`, `process`'s listeners, and the keys of Effect's global value store.
 * Fixture modules that do set globals show that the comparison sees them.
 */
import { edition } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import ts from "typescript"
import { publicModules as allPublicModules } from "./support/publicModules.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, { readonly default: string }>
  readonly peerDependencies: Record<string, string>
}

/** The source file of every public subpath, from package.json `exports` (one for both editions). */
const publicModules = allPublicModules(root).map((file) => join(root, file))

/** The package a bare specifier names (`@effect/platform/HttpClient` → `@effect/platform`). */
const packageOf = (specifier: string): string =>
  specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

const isPeerOrBuiltin = (specifier: string): boolean =>
  specifier.startsWith("node:") || builtinModules.includes(specifier) ||
  Object.hasOwn(packageJson.peerDependencies, packageOf(specifier))

/**
 * The peers' modules (and Node's) that importing `modules` loads: the bare specifiers of the
 * static, value-level imports of every module they reach, that name a peer or a module of Node.
 * Dynamic `import()`s run only when called.
 */
const peerImports = (modules: ReadonlyArray<string>): ReadonlyArray<string> => {
  const bare = new Set<string>()
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, false)
    for (const statement of source.statements) {
      const typeOnly = ts.isImportDeclaration(statement)
        ? statement.importClause?.isTypeOnly === true
        : ts.isExportDeclaration(statement) && statement.isTypeOnly
      if (
        typeOnly || !(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) ||
        statement.moduleSpecifier === undefined || !ts.isStringLiteral(statement.moduleSpecifier)
      ) continue
      const specifier = statement.moduleSpecifier.text
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier.replace(/\.js$/, ".ts")))
      else if (specifier.startsWith("#edition/")) {
        visit(join(root, "src", `${specifier.slice("#edition/".length)}.effect${edition}.ts`))
      } else bare.add(specifier)
    }
  }
  modules.forEach(visit)
  // a package of the package's own `dependencies` is loaded as part of it, so it is not here
  return [...bare].filter(isPeerOrBuiltin).sort()
}

/**
 * The child's program. It prints `{ peers, modules }`: the changes importing the peers made, and,
 * for each module, those its import made; plus the named globals before and after everything.
 */
const probe = `
const spec = JSON.parse(process.env.GLOBALS_PROBE)
const dispatcher = Symbol.for("undici.globalDispatcher.1")
const name = (key) => typeof key === "symbol" ? key.toString() : key
const descriptor = (target, key) => {
  const d = Object.getOwnPropertyDescriptor(target, key)
  return d === undefined ? undefined : [d.value, d.get, d.set, d.writable, d.enumerable, d.configurable]
}
const described = (target) => new Map(Reflect.ownKeys(target).map((key) => [key, descriptor(target, key)]))
const snapshot = () => {
  // descriptors, not values: reading a lazy global of Node (Headers, say) would load what it hides
  const globals = described(globalThis)
  const objects = new Map([["process", described(process)], ["process.env", described(process.env)]])
  for (const [key, d] of globals) {
    const value = d?.[0]
    if (typeof value !== "function") continue
    objects.set(name(key), described(value))
    if (typeof value.prototype === "object" && value.prototype !== null) {
      objects.set(name(key) + ".prototype", described(value.prototype))
    }
  }
  objects.set("Object.prototype", described(Object.prototype))
  const listeners = new Map(process.eventNames().map((event) => [event, process.listeners(event)]))
  const store = globals.get("effect/GlobalValue")?.[0]
  return { globals, objects, listeners, store: store instanceof Map ? new Map(store) : new Map() }
}
const sameList = (a, b) => a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => Object.is(x, b[i]))
// a lazy global of Node that something read is a value now: the one its getter (which caches it) gives
const sameGlobal = (a, b) =>
  sameList(a, b) || (a !== undefined && b !== undefined && typeof a[1] === "function" && b[1] === undefined &&
    Object.is(a[1].call(globalThis), b[0]))
const diffMaps = (before, after, same, label) => {
  const out = []
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    if (!before.has(key)) out.push(label + name(key) + " added")
    else if (!after.has(key)) out.push(label + name(key) + " removed")
    else if (!same(before.get(key), after.get(key))) out.push(label + name(key) + " changed")
  }
  return out
}
const diff = (before, after) => [
  ...diffMaps(before.globals, after.globals, sameGlobal, "globalThis."),
  // the functions and prototypes of both snapshots (a lazy global has none until it is read)
  ...[...before.objects.keys()].filter((object) => after.objects.has(object)).flatMap((object) =>
    diffMaps(before.objects.get(object), after.objects.get(object), sameList, object + ".")),
  ...diffMaps(before.listeners, after.listeners, sameList, "process listeners of "),
  ...diffMaps(before.store, after.store, Object.is, "Effect's global value ")
]
// Node makes some globals (FormData, say) on their first reading; on Node 24 that loads its own fetch,
// which sets undici's global dispatcher. They are all read once here: what Node does is no change.
snapshot()
const nodeDispatcher = globalThis[dispatcher]
const named = () => ({
  dispatcher: globalThis[dispatcher] === nodeDispatcher ? "Node's" : "replaced",
  fetch: descriptor(globalThis, "fetch")
})
const first = named()
let before = snapshot()
for (const specifier of spec.peers) await import(specifier)
let after = snapshot()
const peers = diff(before, after)
const modules = []
for (const url of spec.modules) {
  before = after
  await import(url)
  after = snapshot()
  modules.push({ module: url, changes: diff(before, after) })
}
const last = named()
process.stdout.write(JSON.stringify({
  peers,
  modules,
  dispatcher: [first.dispatcher, last.dispatcher],
  sameFetch: sameGlobal(first.fetch, last.fetch),
  effect: (await import("effect/package.json", { with: { type: "json" } })).default.version
}))
`

interface Report {
  readonly peers: ReadonlyArray<string>
  readonly modules: ReadonlyArray<{ readonly module: string; readonly changes: ReadonlyArray<string> }>
  readonly dispatcher: readonly [string, string]
  readonly sameFetch: boolean
  readonly effect: string
}

const effect4Imports = { 3: [], 4: ["--import", "./test/support/effect4Imports.mjs"] }

/** Runs the probe in a child process over `modules` (paths) after `peers` (specifiers), on the suite's edition. */
const runProbe = (peers: ReadonlyArray<string>, modules: ReadonlyArray<string>): Promise<Report> =>
  new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", ...effect4Imports[edition], "--input-type=module", "-e", probe],
      {
        cwd: root,
        env: {
          ...process.env,
          GLOBALS_PROBE: JSON.stringify({ peers, modules: modules.map((m) => pathToFileURL(m).href) })
        },
        maxBuffer: 16 * 1024 * 1024
      },
      (error, stdout, stderr) =>
        error === null ? resolvePromise(JSON.parse(stdout) as Report) : reject(new Error(`${error.message}\n${stderr}`))
    )
  })

const relativeTo = (url: string) => fileURLToPath(url).slice(root.length + 1)

describe(`importing the package changes no global state (Effect ${edition})`, () => {
  it("importing every public module leaves every global as it was", async () => {
    const peers = peerImports(publicModules)
    expect(peers).toEqual(expect.arrayContaining(["effect", { 3: "@effect/platform", 4: "effect/http" }[edition]]))
    const report = await runProbe(peers, publicModules)
    expect(report.modules.map((m) => relativeTo(m.module))).toEqual(
      publicModules.map((m) => m.slice(root.length + 1))
    )
    expect(report.modules.filter((m) => m.changes.length > 0).map((m) => [relativeTo(m.module), m.changes]))
      .toEqual([])
    // not by the peers' modules either: an application's fetch is its own
    expect(report.dispatcher).toEqual(["Node's", "Node's"])
    expect(report.sameFetch).toBe(true)
    expect(report.effect).toMatch(new RegExp(`^${edition}\\.`))
  }, 120_000)

  it("a module that sets a global is seen, whatever the global", async () => {
    const dir = mkdtempSync(join(tmpdir(), "globals-"))
    try {
      // each fixture, and a change its import must show
      const fixtures: ReadonlyArray<readonly [string, string, string | undefined]> = [
        ["global.mjs", `globalThis.leaked = 1`, "globalThis.leaked added"],
        [
          "dispatcher.mjs",
          `globalThis[Symbol.for("undici.globalDispatcher.1")] = {}`,
          // added, or changed where Node set its own
          "globalThis.Symbol(undici.globalDispatcher.1) "
        ],
        [
          "fetch.mjs",
          `const f = globalThis.fetch; globalThis.fetch = (...args) => f(...args)`,
          "globalThis.fetch changed"
        ],
        [
          "prototype.mjs",
          `Object.defineProperty(Array.prototype, "leaked", { value: 1 })`,
          "Array.prototype.leaked added"
        ],
        ["static.mjs", `Error.stackTraceLimit = 1`, "Error.stackTraceLimit changed"],
        ["listener.mjs", `process.on("leaked", () => {})`, "process listeners of leaked added"],
        ["env.mjs", `process.env.LEAKED = "1"`, "process.env.LEAKED added"],
        [
          "store.mjs",
          `(globalThis["effect/GlobalValue"] ??= new Map()).set("leaked", 1)`,
          "Effect's global value leaked added"
        ],
        ["quiet.mjs", `export const nothing = 1`, undefined]
      ]
      for (const [file, text] of fixtures) writeFileSync(join(dir, file), text)
      const report = await runProbe([], fixtures.map(([file]) => join(dir, file)))
      expect(report.peers).toEqual([])
      expect(report.modules).toHaveLength(fixtures.length)
      fixtures.forEach(([file, , change], i) => {
        const changes = report.modules[i]?.changes ?? []
        if (change === undefined) expect(changes, file).toEqual([])
        else expect(changes.filter((c) => c.startsWith(change)), file).not.toEqual([])
      })
      expect(report.dispatcher).toEqual(["Node's", "replaced"])
      expect(report.sameFetch).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
