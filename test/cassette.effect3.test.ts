/** The CLI's cassettes (Effect 3 only, as the CLI is): `design-search record` and `sandbox --cassette`. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Sandbox } from "../src/index.js"
import { envFor, run, start } from "./support/cli.effect3.js"
import { tempFile } from "./support/rawSandbox.js"

describe("design-search record and sandbox --cassette", () => {
  it.scopedLive("sandbox prints the variables quoted for a shell", () =>
    Effect.gen(function*() {
      const secret = `Sek+ret/=% 'x' $HOME;`
      const sandbox = yield* start(["sandbox", "--port", "0", "--designs", "10", "--client-secret", secret])
      yield* sandbox.waitForOutput(({ stdout }) => stdout.includes("IPAUSTRALIA_BASE_URL="))
      const script = `${sandbox.output().stdout}\nprintf %s "$IPAUSTRALIA_CLIENT_SECRET"`
      expect(execFileSync("sh", ["-c", script], { encoding: "utf8" })).toBe(secret)
      yield* sandbox.kill("SIGTERM")
    }))

  it.scopedLive("sandbox refuses a credential a shell would not read back as given: 2, naming the option", () =>
    Effect.gen(function*() {
      const refused = [["--client-secret", "tab\tx"], ["--client-id", "\u0001ctl"], [
        "--client-secret",
        "a\u2028b"
      ]] as const
      for (const [option, value] of refused) {
        const outcome = yield* run(["sandbox", "--port", "0", option, value])
        expect(outcome.code).toBe(2)
        expect(outcome.stderr).toContain(`\`${option}\` takes a text, not empty, with no control character`)
        expect(outcome.stdout).toBe("")
      }
    }))

  // Six runs of the CLI, each a Node process of its own: slow on a busy machine.
  it.scopedLive(
    "a search and an export recorded from a served sandbox replay byte for byte once it is stopped",
    () =>
      Effect.gen(function*() {
        const file = yield* tempFile
        const out = path.join(path.dirname(file), "chairs.jsonl")
        const recorded = yield* Effect.scoped(Effect.gen(function*() {
          const served = yield* Sandbox.serve({ port: 0, clientSecret: "cli-cassette-secret-77" })
          const search = yield* run(["record", "--cassette", file, "--", "search", "chair"], envFor(served))
          const exported = yield* run(
            ["record", "--cassette", file, "--", "export", "chair", "--out", out],
            envFor(served)
          )
          expect([search.code, exported.code], search.stderr + exported.stderr).toEqual([0, 0])
          return { search, exported }
        }))
        expect(fs.readFileSync(file, "utf8")).not.toContain("cli-cassette-secret-77")
        const exportedFile = fs.readFileSync(out)
        fs.rmSync(out)

        const sandbox = yield* start(["sandbox", "--port", "0", "--cassette", file])
        yield* sandbox.waitForOutput(({ stderr }) => stderr.includes("Ctrl-C stops it"))
        const env = Object.fromEntries(
          sandbox.output().stdout.split("\n").flatMap((line) => {
            const m = /^export (IPAUSTRALIA_[A-Z_]+)=(.*)$/.exec(line)
            return m === null ? [] : [[m[1]!, m[2]!]]
          })
        )
        expect(sandbox.output().stderr).toContain(`sandbox: cassette ${file} on http://127.0.0.1:`)
        const search = yield* run(["search", "chair"], env)
        expect(search).toEqual(recorded.search)
        const exported = yield* run(["export", "chair", "--out", out], env)
        const timeless = (text: string) => text.replace(/ in \d+\.\d+s/, "")
        expect({ ...exported, stderr: timeless(exported.stderr) }).toEqual({
          ...recorded.exported,
          stderr: timeless(recorded.exported.stderr)
        })
        expect(exported.stderr).toMatch(/^exported 4 designs/)
        expect(fs.readFileSync(out)).toEqual(exportedFile)
        const missed = yield* run(["search", "table"], env)
        expect(missed.code).toBe(1)
        expect(missed.stderr).toContain(`differs at query: recorded "chair", sent "table"`)
        yield* sandbox.kill("SIGTERM")
        expect((yield* sandbox.exit()).code).toBe(0)
      }),
    90_000
  )
})
