/**
 * What a fleet keeps in Redis, as plain data: the key of each of a client's values, and the Lua
 * scripts that change them at once. Both editions send these over their own connection.
 */
import { createHash } from "node:crypto"

/** Whether a URL's user or password decodes (ioredis decodes them, and throws on a bad `%` escape). */
const decodes = (part: string) => {
  try {
    return decodeURIComponent(part) !== undefined
  } catch {
    return false
  }
}

/**
 * A fleet's Redis URL as ioredis is to read it (its scheme lower-cased: ioredis turns TLS on for
 * `rediss://` alone), or what is wrong with it, never quoting it (it may hold a password). It
 * carries host, port, user, password and database only: ioredis would apply a query's options over
 * the fleet's own, and read any other path as a database index it cannot select.
 */
export const checkUrl = (url: string): { readonly href: string } | { readonly problem: string } => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed?.protocol !== "redis:" && parsed?.protocol !== "rediss:") {
    return { problem: "url must be a redis:// or rediss:// URL" }
  }
  if (!decodes(parsed.username) || !decodes(parsed.password)) {
    return { problem: "url's user or password has a malformed percent escape (write % as %25)" }
  }
  return parsed.search === "" && parsed.hash === "" && /^(\/\d*)?$/.test(parsed.pathname)
    ? { href: parsed.href }
    : { problem: "url carries host, port, user, password and database (/N) only: no query, no other path" }
}

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
