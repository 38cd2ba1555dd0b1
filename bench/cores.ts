/**
 * CPU pinning for the timed benchmarks. On a small machine the client under test and the server it
 * talks to share the cores, so a client's throughput would partly be whatever its server leaves it:
 * a client that spends more CPU per request also slows its server down, and one that spends less
 * lends it a core. The throughput and export benchmarks therefore run the measuring process on one
 * core and their server process on another (`taskset`, util-linux), for every contender alike, so
 * each figure is one client on one core against a server on its own core.
 *
 * Without `taskset` or with fewer than two cores nothing is pinned and the results say so.
 */
import { execFileSync } from "node:child_process"
import { cpus } from "node:os"

/** How the timed benchmarks were placed on the cores, for results.json and the table. */
export interface Pinning {
  readonly pinned: boolean
  /** The core of the measuring (client) process, and of the server processes. */
  readonly clientCpu: number | null
  readonly serverCpu: number | null
  readonly note: string
}

const clientCpu = 0
const serverCpu = 1

const taskset = (args: ReadonlyArray<string>): string | undefined => {
  try {
    return execFileSync("taskset", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
  } catch {
    return undefined
  }
}

const available: boolean = cpus().length >= 2 && taskset(["-c", "-p", String(process.pid)]) !== undefined

export const pinning: Pinning = available
  ? {
    pinned: true,
    clientCpu,
    serverCpu,
    note: `measuring process on CPU ${clientCpu}, server process on CPU ${serverCpu} (taskset), for every contender`
  }
  : {
    pinned: false,
    clientCpu: null,
    serverCpu: null,
    note: "not pinned (taskset missing or fewer than 2 cores): client and server share the cores"
  }

/** Pins every thread of process `pid` to `cpu`; a no-op when pinning is not available. */
const pin = (pid: number, cpu: number): void => {
  if (available) taskset(["-a", "-p", "-c", String(cpu), String(pid)])
}

/** Pins a server process (a child of this one) to the server core. */
export const pinServer = (pid: number | undefined): void => {
  if (pid !== undefined) pin(pid, serverCpu)
}

/** Runs `f` with this process pinned to the client core, then gives it back every core it had. */
export const asClient = async <A>(f: () => Promise<A>): Promise<A> => {
  const before = available ? taskset(["-c", "-p", String(process.pid)])?.split(":").pop()?.trim() : undefined
  pin(process.pid, clientCpu)
  try {
    return await f()
  } finally {
    if (before !== undefined && before !== "") taskset(["-a", "-p", "-c", before, String(process.pid)])
  }
}
