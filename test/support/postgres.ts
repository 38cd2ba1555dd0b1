/**
 * A throwaway PostgreSQL server for the mirror's tests: `initdb` into a temporary folder, `postgres`
 * on a free loopback port (its socket in that folder), stopped and removed when the scope closes.
 * PostgreSQL refuses to run as root: as root, both run as the `postgres` user (the Debian package
 * makes it), owner of the folder.
 * Waits are on the server's own log line, bounded. `database` makes a fresh empty database. The
 * server's output goes to its log file (`serverLog`), which every error names.
 */
import { layerScoped, Service, timeoutFail } from "#edition/internal/seam"
import { Data, Duration, Effect } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { listening } from "./loopback.js"
import { serverLog } from "./serverLog.js"

export class PostgresTestError extends Data.TaggedError("PostgresTestError")<{ readonly message: string }> {}

export interface PostgresServer {
  readonly port: number
  /** A URL to a new empty database on the server, named `name`. */
  readonly database: (name: string) => Effect.Effect<string, PostgresTestError>
}

/** The running server of a test file, provided by `layer`. */
export class Postgres extends Service<Postgres, PostgresServer>()("test/Postgres") {}

const within = Duration.seconds(30)
const root = "/usr/lib/postgresql"

/** The bin folder of the newest PostgreSQL installed. */
const binDir = Effect.suspend(() => {
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
    : []
  return versions.length === 0
    ? Effect.fail(new PostgresTestError({ message: "PostgreSQL is not installed: run ./scripts/ensure-postgres.sh" }))
    : Effect.succeed(join(root, versions[0]!, "bin"))
})

const asRoot = process.getuid?.() === 0

/** What `promise` settles to; its rejection (a `PostgresTestError`), or `late()` once `within` has passed. */
const awaited = <A>(promise: () => Promise<A>, late: () => string) =>
  Effect.tryPromise({ try: promise, catch: (e) => e as PostgresTestError }).pipe(
    timeoutFail({ duration: within, onTimeout: () => new PostgresTestError({ message: late() }) })
  )

/** `command args`, as the `postgres` user when run as root: its signals reach the command itself. */
const spawnAs = (command: string, args: ReadonlyArray<string>) =>
  spawn(command, [...args], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(asRoot ? { ...readOwner(), env: { ...process.env, HOME: tmpdir() } } : {})
  })

/** Runs a command to its end; fails with its output if it exits with another code than 0. */
const run = (command: string, args: ReadonlyArray<string>) =>
  awaited(() =>
    new Promise<void>((resolve, reject) => {
      const child = spawnAs(command, args)
      let output = ""
      child.stdout.setEncoding("utf8").on("data", (c: string) => void (output += c))
      child.stderr.setEncoding("utf8").on("data", (c: string) => void (output += c))
      child.once("error", (e) => reject(new PostgresTestError({ message: `${command}: ${e.message}` })))
      child.once(
        "exit",
        (code) =>
          code === 0 ? resolve() : reject(new PostgresTestError({ message: `${command} exited ${code}: ${output}` }))
      )
    }), () => `${command} hung`)

const terminate = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Effect.void
    : Effect.ignore(awaited(() =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        // fast shutdown: the tests' connections are closed, the server stops at once
        child.kill("SIGINT")
      }), () => "postgres did not stop"))

/** A running server, stopped and its folder removed when the scope closes. */
export const postgresServer: Effect.Effect<PostgresServer, PostgresTestError, Scope.Scope> = Effect.gen(function*() {
  const bin = yield* binDir
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const path = mkdtempSync(join(tmpdir(), "pg-test-"))
      if (asRoot) {
        const owner = readOwner()
        chownSync(path, owner.uid, owner.gid)
      }
      chmodSync(path, 0o700)
      return path
    }),
    (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
  )
  const data = join(dir, "data")
  yield* run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  const port = yield* Effect.scoped(listening(createServer()))
  const network = ["-h", "127.0.0.1", "-p", String(port), "-c", "max_connections=50"]
  const child = spawnAs(join(bin, "postgres"), ["-D", data, "-k", dir, "-F", ...network])
  yield* Effect.addFinalizer(() => terminate(child))
  const log = serverLog(`postgres-${port}`)
  yield* awaited(() =>
    new Promise<void>((resolve, reject) => {
      const fail = (message: string) => reject(new PostgresTestError({ message }))
      child.once("error", (e) => fail(`postgres could not start: ${e.message}`))
      child.once("exit", (code) => fail(log.explain(`postgres exited with ${code}`)))
      let output = ""
      const listen = (chunk: string) => {
        log.write(chunk)
        output += chunk
        if (output.includes("database system is ready to accept connections")) resolve()
      }
      child.stdout.setEncoding("utf8").on("data", listen)
      child.stderr.setEncoding("utf8").on("data", listen)
    }), () => log.explain("postgres not ready"))
  const psql = join(bin, "psql")
  return {
    port,
    database: (name: string) =>
      Effect.as(
        run(psql, ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q", "-c", `CREATE DATABASE "${name}"`]),
        `postgres://postgres@127.0.0.1:${port}/${name}`
      )
  }
})

/** The uid and gid of the `postgres` user (the Debian package makes it), from /etc/passwd. */
const readOwner = (): { readonly uid: number; readonly gid: number } => {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"))
  const [, , uid, gid] = line?.split(":") ?? []
  return { uid: Number(uid ?? 0), gid: Number(gid ?? 0) }
}

/** The server of a test file. */
export const layer = layerScoped(Postgres, postgresServer)
