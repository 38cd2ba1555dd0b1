/**
 * Cassettes as plain data: requests matched by method, path with canonical query and canonical JSON
 * body, the closest recorded request named on a miss, and the scrubbing that keeps secrets and
 * tokens out of a file (the file itself: `cassetteFile.ts`).
 */
import type { Mask } from "../mask/mask.js"
import { noMask } from "../mask/mask.js"
import { isRecord } from "../wire/answers.js"
import { jsonOf } from "./journal.js"

/** A request as a cassette keeps it: its JSON body, if it had one (a token request's form is not kept). */
export interface RecordedRequest {
  readonly method: string
  /** The path and query, as sent to the sandbox's address. */
  readonly path: string
  readonly body?: unknown
}

/** An answer as a cassette keeps it: a JSON body as JSON, any other as `text`. */
export interface RecordedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body?: unknown
  readonly text?: string
}

export interface Exchange {
  readonly request: RecordedRequest
  readonly response: RecordedResponse
}

export interface Cassette {
  readonly version: 1
  readonly exchanges: ReadonlyArray<Exchange>
}

/** What every token field of a recorded answer holds instead of the token the service issued. */
export const placeholderToken = "cassette-token"

/** A field that holds a token: `access_token`, `refresh_token`, `id_token`, `token`, `idToken`. */
const tokenField = /token$/i

/** Headers of an answer a cassette does not keep: they belong to one transfer, a session or a credential. */
export const droppedHeaders = new Set([
  "authorization",
  "connection",
  "content-encoding",
  "content-length",
  "date",
  "keep-alive",
  "set-cookie",
  "transfer-encoding"
])

/** The headers of an answer a cassette keeps, each value masked (a name holding a secret, in any case, is dropped). */
export const keptHeaders = (headers: Readonly<Record<string, string>>, mask: Mask = noMask): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([k, v]) =>
      droppedHeaders.has(k) || mask.inName(k) || mask.text(k) !== k ? [] : [[k, mask.text(v)]]
    )
  )

/** `value` with every key and string through `hide`. */
const hideJson = (value: unknown, hide: (text: string) => string): unknown =>
  typeof value === "string"
    ? hide(value)
    : Array.isArray(value)
    ? value.map((v) => hideJson(v, hide))
    : isRecord(value)
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [hide(k), hideJson(v, hide)]))
    : value

/** A request as recorded: its body kept only when it is JSON. */
export const requestOf = (method: string, path: string, text: string): RecordedRequest => {
  const body = text === "" ? undefined : jsonOf(text)
  return body === undefined ? { method, path } : { method, path, body }
}

/** `value` with the string of every token field, at any depth, through `token`. */
const withTokens = (value: unknown, token: (text: string) => string): unknown =>
  Array.isArray(value)
    ? value.map((v) => withTokens(v, token))
    : isRecord(value)
    ? Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        const isToken = tokenField.test(k) && typeof v === "string"
        return [k, isToken ? token(v) : withTokens(v, token)]
      })
    )
    : value

/** The tokens the token fields of an answer's JSON text hold (`access_token`, `refresh_token`, `id_token`...). */
export const tokensOf = (text: string): Array<string> => {
  const found: Array<string> = []
  withTokens(jsonOf(text), (token) => {
    found.push(token)
    return token
  })
  return found
}

/** A number's decimal digits and exponent, without the zeros that do not count: equal numbers, equal texts. */
const decimal = (literal: string): string => {
  const [, sign, whole = "", fraction = "", exponent = "0"] =
    /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(literal) ?? []
  const digits = whole + fraction
  const first = digits.search(/[1-9]/)
  return first < 0 ? "0" : `${sign}${digits.slice(first).replace(/0+$/, "")}e${Number(exponent) + whole.length - first}`
}

/** Whether a number of the JSON `text` is one a JavaScript number cannot hold (`1e400`, 23 digits). */
const losesNumbers = (text: string): boolean =>
  Array.from(text.matchAll(/"(?:[^"\\]|\\[^])*"|-?\d[\d.eE+-]*/g), ([token]) => token).some((token) =>
    !token.startsWith("\"") &&
    (!Number.isFinite(Number(token)) || decimal(token) !== decimal(String(Number(token))))
  )

/**
 * An answer as recorded: a JSON body as JSON, every token field's value the placeholder; kept as
 * its text when it is not JSON, or holds a number JSON.parse would change.
 */
export const responseOf = (status: number, headers: Readonly<Record<string, string>>, text: string) => {
  const body = withTokens(jsonOf(text), () => placeholderToken)
  return body === undefined || losesNumbers(text)
    ? { status, headers, ...(text === "" ? {} : { text }) }
    : { status, headers, body }
}

/** `exchange` with every text, key and header masked of the secrets of the run. */
export const scrub = (exchange: Exchange, mask: Mask): Exchange => {
  const { request, response } = exchange
  const hide = mask.text
  return {
    request: {
      ...request,
      path: hide(request.path),
      ...("body" in request ? { body: hideJson(request.body, hide) } : {})
    },
    response: {
      status: response.status,
      headers: keptHeaders(response.headers, mask),
      ...("body" in response ? { body: hideJson(response.body, hide) } : {}),
      ...(response.text === undefined ? {} : { text: hide(response.text) })
    }
  }
}

/** The text of an answer's body, as it is sent. */
export const bodyText = (response: RecordedResponse): string =>
  "body" in response ? JSON.stringify(response.body) : response.text ?? ""

/** JSON with the keys of every object sorted: equal values, equal texts. */
export const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : isRecord(value)
    ? `{${
      Object.keys(value).sort().filter((k) => value[k] !== undefined).map((k) =>
        `${JSON.stringify(k)}:${canonical(value[k])}`
      ).join(",")
    }}`
    : JSON.stringify(value) ?? "null"

/** `value` without the fields named in `ignore`, at any depth. */
const without = (value: unknown, ignore: ReadonlySet<string>): unknown =>
  Array.isArray(value)
    ? value.map((v) => without(v, ignore))
    : isRecord(value)
    ? Object.fromEntries(Object.entries(value).flatMap(([k, v]) => ignore.has(k) ? [] : [[k, without(v, ignore)]]))
    : value

/** `path` with its query's parameters sorted by name (a repeated one's values kept in their order). */
export const canonicalPath = (path: string): string => {
  const at = path.indexOf("?")
  if (at < 0) return path
  const query = new URLSearchParams(path.slice(at + 1))
  query.sort()
  return `${path.slice(0, at)}?${query}`
}

/** What a request is matched by: method, path with canonical query, canonical body without the ignored fields. */
const keyOf = (request: RecordedRequest, ignore: ReadonlySet<string>): string =>
  `${request.method} ${canonicalPath(request.path)} ${canonical(without(request.body, ignore))}`

/** Where two JSON values differ (`rows[0].query.owner`), and the values there; `at` names where they are. */
const differences = (recorded: unknown, sent: unknown, at: string): Array<readonly [string, unknown, unknown]> => {
  if (canonical(recorded) === canonical(sent)) return []
  const child = (k: string | number) => typeof k === "number" ? `${at}[${k}]` : at === "body" ? k : `${at}.${k}`
  if (Array.isArray(recorded) && Array.isArray(sent)) {
    const length = Math.max(recorded.length, sent.length)
    return Array.from({ length }, (_, i) => differences(recorded[i], sent[i], child(i))).flat()
  }
  if (isRecord(recorded) && isRecord(sent)) {
    return [...new Set([...Object.keys(recorded), ...Object.keys(sent)])].sort()
      .flatMap((k) => differences(recorded[k], sent[k], child(k)))
  }
  return [[at, recorded, sent]]
}

/** A value in a few words. */
export const brief = (value: unknown): string => {
  const text = value === undefined ? "nothing" : canonical(value)
  return text.length > 60 ? text.slice(0, 59) + "…" : text
}

/**
 * What sets `sent` apart from `recorded`, the method counting most, then the path, then each field;
 * `text` is the body sent, named when it is not JSON.
 */
const compare = (recorded: RecordedRequest, sent: RecordedRequest, ignore: ReadonlySet<string>, text: string) => {
  const fields = differences(without(recorded.body, ignore), without(sent.body, ignore), "body")
  const samePath = canonicalPath(recorded.path) === canonicalPath(sent.path)
  const told = [
    ...(recorded.method === sent.method ? [] : [`method: recorded ${recorded.method}, sent ${sent.method}`]),
    ...(samePath ? [] : [`path: recorded ${recorded.path}, sent ${sent.path}`]),
    ...fields.map(([at, was, is]) =>
      `${at}: recorded ${brief(was)}, sent ${
        at === "body" && is === undefined && text !== "" ? `${brief(text)}, not JSON` : brief(is)
      }`
    )
  ]
  const score = (recorded.method === sent.method ? 0 : 1000) + (samePath ? 0 : 100)
  return { score: score + fields.length, told }
}

/** Why no recorded exchange answers `sent` (whose body was `text`): the closest recorded request, and how it differs. */
export const missOf = (cassette: Cassette, sent: RecordedRequest, ignore: ReadonlySet<string>, text = ""): string => {
  const head = `the cassette holds no ${sent.method} ${sent.path}${
    "body" in sent || text !== "" ? " with this body" : ""
  }`
  const ranked = cassette.exchanges.map((e, i) => ({ i, ...compare(e.request, sent, ignore, text) }))
    .sort((a, b) => a.score - b.score)
  const best = ranked[0]
  if (best === undefined) return `${head}: it holds no exchange`
  const { method, path } = cassette.exchanges[best.i]!.request
  return `${head}; the closest, exchange ${best.i + 1} (${method} ${path}), differs at ${
    best.told.slice(0, 3).join("; ")
  }`
}

/** Answers requests from a cassette: the nth time a request is sent, the nth matching exchange (then the last). */
export interface Player {
  /** The exchange that answers `sent`, if any. */
  readonly play: (sent: RecordedRequest) => Exchange | undefined
  /** Adds `exchange` (once: one already held is not added again); whether it was added. */
  readonly add: (exchange: Exchange) => boolean
  /** Plays every request from its first exchange again. */
  readonly rewind: () => void
  readonly cassette: () => Cassette
}

export const player = (start: Cassette, ignore: ReadonlySet<string>): Player => {
  const exchanges: Array<Exchange> = []
  const keys: Array<string> = []
  const held = new Set<string>()
  const played = new Map<string, number>()
  const add = (exchange: Exchange) => {
    const text = canonical(exchange)
    if (held.has(text)) return false
    held.add(text)
    exchanges.push(exchange)
    keys.push(keyOf(exchange.request, ignore))
    return true
  }
  start.exchanges.forEach(add)
  return {
    play: (sent) => {
      const key = keyOf(sent, ignore)
      const matching = exchanges.filter((_, i) => keys[i] === key)
      const n = played.get(key) ?? 0
      played.set(key, n + 1)
      return matching[Math.min(n, matching.length - 1)]
    },
    add,
    rewind: () => played.clear(),
    cassette: () => ({ version: 1, exchanges: [...exchanges] })
  }
}

/** Why `path` and `options` of a cassette cannot be used, naming the option, if they cannot. */
export const optionsProblem = (path: unknown, options: unknown): readonly [string, string] | undefined =>
  typeof path !== "string" || path === ""
    ? ["path", "expected the path of a file"]
    : !isRecord(options)
    ? ["options", "expected an object: { mode, ignore }"]
    : !["record", "replay", "auto"].includes(String(options["mode"]))
    ? ["mode", `expected "record", "replay" or "auto", found ${brief(options["mode"])}`]
    : options["ignore"] !== undefined &&
        !(Array.isArray(options["ignore"]) && options["ignore"].every((f) => typeof f === "string"))
    ? ["ignore", "expected a list of field names"]
    : undefined
