/**
 * Where a test server's output goes: one file per server, in one folder of the temporary directory,
 * so a passing run prints none of it. Every error about a server names its file and quotes its last
 * lines; the line naming the file is printed, and vitest shows it with the output of a failing test
 * (`silent: "passed-only"`). A file is emptied when a new server takes its port.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The folder of the test servers' logs. */
export const serverLogDir = join(tmpdir(), "effect-design-search-test-logs")

export interface ServerLog {
  readonly path: string
  /** Appends a chunk of the server's output to its file. */
  readonly write: (chunk: string) => void
  /** `text`, then the file's name and the last lines written to it. */
  readonly explain: (text: string) => string
}

/** A new, empty log for the server `name` (as `redis-41234`). */
export const serverLog = (name: string): ServerLog => {
  mkdirSync(serverLogDir, { recursive: true })
  const path = join(serverLogDir, `${name}.log`)
  writeFileSync(path, "")
  console.log(`${name} logs to ${path}`)
  let tail = ""
  return {
    path,
    write: (chunk) => {
      appendFileSync(path, chunk)
      tail = (tail + chunk).slice(-1500)
    },
    explain: (text) => `${text}; its log is ${path}, which ends:\n${tail}`
  }
}
