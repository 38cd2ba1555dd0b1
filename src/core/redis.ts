/**
 * What a fleet keeps in Redis, as plain data: the key of each of a client's values, and the Lua
 * scripts that change them at once. Both editions send these over their own connection.
 */
import { createHash } from "node:crypto"

/** Which client a fleet shares a token and a budget for: never the secret. */
export interface ClientIdentity {
  readonly tokenUrl: string
  readonly clientId: string
}

/**
 * The key of `name` for `client` under `prefix`: a digest of token URL and client id in braces, so
 * that all of a client's keys share one Redis Cluster slot and a script may touch several.
 */
export const keyOf = (prefix: string, client: ClientIdentity, name: string): string =>
  `${prefix}:{${
    createHash("sha256").update(`${client.tokenUrl}\n${client.clientId}`).digest("hex").slice(0, 32)
  }}:${name}`

/** Extends the back-off `KEYS[1]` to `ARGV[1]` milliseconds unless it already lasts longer. */
export const extendBackOff =
  `if redis.call("PTTL", KEYS[1]) < tonumber(ARGV[1]) then redis.call("SET", KEYS[1], "1", "PX", ARGV[1]) end`

/** Runs `then` only while `KEYS[1]` holds `ARGV[1]`. */
const whileHolding = (then: string) =>
  `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call(${then}) end return 0`

/** Deletes `KEYS[1]` (a lock, a token) only while it holds `ARGV[1]`. */
export const compareAndDelete = whileHolding(`"DEL", KEYS[1]`)

/** Extends `KEYS[1]` (a lock) to `ARGV[2]` milliseconds only while it holds `ARGV[1]`. */
export const compareAndExpire = whileHolding(`"PEXPIRE", KEYS[1], ARGV[2]`)

/** Marks a refused token (`KEYS[2]`, for `ARGV[2]` ms) and deletes it from `KEYS[1]` if stored, at once. */
export const refuseToken = `redis.call("SET", KEYS[2], "1", "PX", ARGV[2])\n${compareAndDelete}`

/** The stored token, unless marked refused (`ARGV[1]` and the SHA-1 of its string): then it goes. */
export const loadUnrefusedToken = `local stored = redis.call("GET", KEYS[1])
if not stored then return false end
local ok, value = pcall(cjson.decode, stored)
if ok and type(value) == "table" and type(value.token) == "string"
  and redis.call("EXISTS", ARGV[1] .. redis.sha1hex(value.token)) == 1 then
  redis.call("DEL", KEYS[1])
  return false
end
return stored`

/**
 * The names of a client's keys (`keyOf`): its token, the lock of its fetch, the prefix of the
 * marks of refused tokens, its pace and its back-off. Every process of a fleet must agree on them.
 */
export const keyNames = { token: "token", lock: "lock", refused: "refused:", pace: "pace", backOff: "backoff" } as const

/** The key marking `token` refused, below the `refused` key: the SHA-1 of the token, as `loadUnrefusedToken` computes it. */
export const refusedMark = (refusedPrefix: string, token: string): string =>
  refusedPrefix + createHash("sha1").update(token).digest("hex")
