/**
 * Cassettes as plain data: the file format (version 1, docs/cassettes.md), requests matched by
 * method, path and canonical JSON body, the closest recorded request named on a miss, and the
 * scrubbing that keeps secrets and tokens out of a file.
 */

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

/** The access token every recorded token answer carries instead of the one the service issued. */
export const placeholderToken = "cassette-token"

/** Headers of an answer a cassette does not keep: they belong to one transfer, or to a session. */
const droppedHeaders = new Set([
  "authorization",
  "connection",
  "content-encoding",
  "content-length",
  "date",
  "keep-alive",
  "set-cookie",
  "transfer-encoding"
])

/** The headers of an answer a cassette keeps, each through `hide`. */
export const keptHeaders = (
  headers: Readonly<Record<string, string>>,
  hide: (text: string) => string = (s) => s
): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).flatMap(([k, v]) => droppedHeaders.has(k) ? [] : [[k, hide(v)]]))

/** `text` read as JSON, or `undefined` when it is not. */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

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
  const body = text === "" ? undefined : parseJson(text)
  return body === undefined ? { method, path } : { method, path, body }
}

/** The `access_token` a token answer's text holds, if it holds one. */
export const accessTokenOf = (text: string): string | undefined => {
  const body = parseJson(text)
  return isRecord(body) && typeof body["access_token"] === "string" ? body["access_token"] : undefined
}

/** An answer as recorded: a JSON body as JSON (a token answer's `access_token` the placeholder). */
export const responseOf = (status: number, headers: Readonly<Record<string, string>>, text: string) => {
  const body = parseJson(text)
  const kept = isRecord(body) && typeof body["access_token"] === "string"
    ? { ...body, access_token: placeholderToken }
    : body
  return kept === undefined ? { status, headers, ...(text === "" ? {} : { text }) } : { status, headers, body: kept }
}

/** `exchange` with every text, key and header through `hide` (the mask of the secrets of the run). */
export const scrub = (exchange: Exchange, hide: (text: string) => string): Exchange => {
  const { request, response } = exchange
  return {
    request: {
      ...request,
      path: hide(request.path),
      ...("body" in request ? { body: hideJson(request.body, hide) } : {})
    },
    response: {
      status: response.status,
      headers: keptHeaders(response.headers, hide),
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

/** What a request is matched by: method, path, canonical body without the ignored fields. */
const keyOf = (request: RecordedRequest, ignore: ReadonlySet<string>): string =>
  `${request.method} ${request.path} ${canonical(without(request.body, ignore))}`

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
const brief = (value: unknown): string => {
  const text = value === undefined ? "nothing" : canonical(value)
  return text.length > 60 ? text.slice(0, 59) + "…" : text
}

/** What sets `sent` apart from `recorded`, the method counting most, then the path, then each field. */
const compare = (recorded: RecordedRequest, sent: RecordedRequest, ignore: ReadonlySet<string>) => {
  const fields = differences(without(recorded.body, ignore), without(sent.body, ignore), "body")
  const told = [
    ...(recorded.method === sent.method ? [] : [`method: recorded ${recorded.method}, sent ${sent.method}`]),
    ...(recorded.path === sent.path ? [] : [`path: recorded ${recorded.path}, sent ${sent.path}`]),
    ...fields.map(([at, was, is]) => `${at}: recorded ${brief(was)}, sent ${brief(is)}`)
  ]
  const score = (recorded.method === sent.method ? 0 : 1000) + (recorded.path === sent.path ? 0 : 100)
  return { score: score + fields.length, told }
}

/** Why no recorded exchange answers `sent`: the closest recorded request, and how it differs. */
export const missOf = (cassette: Cassette, sent: RecordedRequest, ignore: ReadonlySet<string>): string => {
  const head = `the cassette holds no ${sent.method} ${sent.path}${"body" in sent ? " with this body" : ""}`
  const ranked = cassette.exchanges.map((e, i) => ({ i, ...compare(e.request, sent, ignore) }))
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

const end = "\n  ]\n}\n"
const entry = (exchange: Exchange) => JSON.stringify(exchange, null, 2).replace(/^/gm, "    ")

/** A cassette's file: pretty-printed, one exchange per entry. */
export const write = (cassette: Cassette): string =>
  `{\n  "version": 1,\n  "exchanges": [\n${cassette.exchanges.map(entry).join(",\n")}${end}`

/** How a file `write` wrote comes to hold `exchange` too: the characters to cut at its end, and the text to add. */
export const appended = (exchange: Exchange) => ({ cut: end.length, text: `,\n${entry(exchange)}${end}` })

/** Whether a recorded response can be sent: a status from 200 to 599, text headers, no body on a 204 or 304. */
const answerable = (r: Record<string, unknown>): boolean =>
  Number.isInteger(r["status"]) && Number(r["status"]) >= 200 && Number(r["status"]) <= 599 &&
  isRecord(r["headers"]) && Object.values(r["headers"]).every((h) => typeof h === "string") &&
  (r["text"] === undefined || typeof r["text"] === "string") &&
  ((r["status"] !== 204 && r["status"] !== 304) || (r["body"] === undefined && !r["text"]))

/** The cassette a file holds, or why it holds none. */
export const read = (text: string): Cassette | string => {
  const value = parseJson(text)
  if (!isRecord(value) || value["version"] !== 1 || !Array.isArray(value["exchanges"])) {
    return "expected a cassette: {\"version\": 1, \"exchanges\": [...]}"
  }
  const bad = value["exchanges"].findIndex((e: unknown) =>
    !isRecord(e) || !isRecord(e["request"]) || typeof e["request"]["method"] !== "string" ||
    typeof e["request"]["path"] !== "string" || !isRecord(e["response"]) ||
    !answerable(e["response"])
  )
  return bad < 0 ? value as unknown as Cassette : `exchange ${bad + 1} is not a request and its response`
}
