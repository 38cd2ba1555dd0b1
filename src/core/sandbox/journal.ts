/**
 * The sandbox's request journal as plain data: an entry, the redaction that makes one from a
 * request (no client secret, no token, in any form the mask knows), and the ring that keeps the
 * last entries and counts the ones it dropped.
 */
import { masked, maskOf } from "../mask/mask.js"
import { tooDeepAt } from "../wire/answers.js"
import type { Seen } from "./faultMatch.js"

/**
 * A request the sandbox received, as it keeps it (`entryOf`): `Authorization` shows only its scheme,
 * a value named as a credential shows `[redacted]`, and every other text is masked of the client
 * secret and of the request's own credentials (each from `minCredentialLength` characters) and of tokens.
 */
export interface JournalEntry<Target extends string = string, Fault = unknown> {
  /** When it arrived, in milliseconds since the epoch on the sandbox's `Clock`. */
  readonly time: number
  readonly method: string
  readonly path: string
  /** The query's parameters (a repeated one keeps every value, joined by ", "). */
  readonly query: { readonly [name: string]: string }
  /** The endpoint it reached; absent when no route has its path. */
  readonly target?: Target | undefined
  /** Header names in lower case. */
  readonly headers: { readonly [name: string]: string }
  /** Parsed JSON, a form's fields, or the text (`[redacted]` if it names a credential); absent when none, unread or refused. */
  readonly body?: unknown
  /**
   * For a request refused before it authenticated (`entryOf`'s `refused`), in place of `body`: the
   * first `previewLength` characters of what `body` would be, as JSON text unless it is text.
   */
  readonly bodyPreview?: string
  /** For a request refused before it authenticated, the size of its body in bytes. */
  readonly bodyBytes?: number
  /** The status answered; absent until then, when the client went away first, or when a `reset` fault dropped the connection. */
  readonly status?: number
  /** The fault that answered, with its place in injection order since the sandbox was built or reset (from 0). */
  readonly fault?: { readonly index: number; readonly fault: Fault }
}

/** An entry as the sandbox fills it in: the status and the fault come after the request. */
export type Writable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * The journal: the requests the sandbox received, oldest first, and how many older ones it dropped
 * to keep at most `journalSize` of them and `journalBytes` in all.
 * @since 0.3.0
 * @category models
 */
export interface Journal<Entry = JournalEntry> {
  readonly entries: ReadonlyArray<Entry>
  readonly dropped: number
}

/** A request as it arrived. */
export interface Request {
  readonly method: string
  readonly url: string
  readonly headers: { readonly [name: string]: string }
}

/** What the sandbox knows of a request beside what it sent. */
export interface Received<Target extends string> {
  readonly time: number
  readonly path: string
  readonly target: Target | undefined
  readonly body: string | undefined
}

/** An access token as the sandbox issues one: a JWT, whose header is base64 of `{"`. */
const jwt = /eyJ[\w-]*\.[\w-]+\.[\w-]*/g

/**
 * The fewest characters of a secret (the sandbox's client secret, a request's own `Authorization`
 * credentials) looked for in the rest of a request: a shorter one cannot be told from ordinary text
 * (with a secret `test`, "chair test" would go). Shorter, it is hidden only where it is a credential.
 */
export const minCredentialLength = 8

/**
 * A name that says its value is a credential, in any case: a header, query parameter, form field or
 * JSON field (at any depth) so named keeps `[redacted]` for its value, whatever the sandbox knows.
 */
export const credentialName = /secret|passw(?:or)?d|token|assertion|credential|api[-_]?key|cookie|authorization/i

/** How deep a JSON value may nest and still be written (and described) without overflowing the stack. */
export const maxNesting = 1000

/** Whether `value` nests at most `maxNesting` levels, looked at with a stack of its own. */
export const nestsWithin = (value: unknown): boolean => tooDeepAt(value, maxNesting) === undefined

/** `value` with the value of every field named as a credential replaced. Recursive: it nests within `maxNesting`. */
const redacted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(redacted)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, credentialName.test(k) ? masked : redacted(v)]))
    : value

/** `fields` as an object, every name and value scrubbed, a credential's value replaced whatever it holds. */
/**
 * Named values as one record, a name that repeats (as sent, or once masked: two names that each hold
 * a secret are both `[redacted]`) keeping every value, joined by ", " as HTTP joins a repeated header.
 */
const joined = (pairs: Iterable<readonly [string, string]>): Record<string, string> => {
  const values = new Map<string, string>()
  for (const [name, value] of pairs) values.set(name, values.has(name) ? `${values.get(name)}, ${value}` : value)
  return Object.fromEntries(values)
}

const formOf = (fields: URLSearchParams, scrub: (text: string) => string) =>
  joined(Array.from(fields, ([k, v]) => [scrub(k), credentialName.test(k) ? masked : scrub(v)] as const))

/** The credentials of an `Authorization` value (all of it when it has no scheme), and what `Basic` ones encode. */
const credentialsOf = (authorization: string): ReadonlyArray<string> => {
  const [scheme = "", ...rest] = authorization.trim().split(/\s+/)
  const credentials = rest.length === 0 ? scheme : rest.join(" ")
  let decoded = ""
  try {
    const bytes = scheme.toLowerCase() === "basic" ? Uint8Array.from(atob(credentials), (c) => c.charCodeAt(0)) : []
    decoded = new TextDecoder().decode(new Uint8Array(bytes))
  } catch {
    // not base64: the credentials as sent only
  }
  return [credentials, decoded, decoded.slice(decoded.indexOf(":") + 1)]
}

/** Whether `body` is a form: sent as one, or without `Content-Type` when it parses as one (`name=value` joined by `&`). */
const isForm = (headers: Request["headers"], body: string): boolean => {
  const type = (headers["content-type"] ?? "").trim().toLowerCase()
  return type === ""
    ? /^[^&=\s]+=[^&\s]*(?:&[^&=\s]+=[^&\s]*)*$/.test(body)
    : type.startsWith("application/x-www-form-urlencoded")
}

/** `text` read as JSON, or `undefined` when it is not or nests deeper than `maxNesting` (too deep to compare). */
export const jsonOf = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return nestsWithin(value) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * `request` as it arrived, as faults match it: its raw path and body (a form's fields, parsed JSON,
 * or the text), nothing masked. Never stored.
 */
export const seenOf = <Target extends string>(
  { headers }: Request,
  { body, path, target }: Received<Target>
): Seen => ({
  target,
  path,
  body: body === undefined || body === ""
    ? undefined
    : isForm(headers, body)
    ? Object.fromEntries(new URLSearchParams(body))
    : jsonOf(body) ?? body
})

/** How many characters of a refused request's body its entry keeps (`bodyPreview`). */
const previewLength = 256

/**
 * The journal entry of `request`: masked of `secrets` and of the credentials of its `Authorization`
 * (each of at least `minCredentialLength` characters) and of anything shaped like a token; every
 * value named as a credential (`credentialName`) redacted, and JSON text that names one, whole.
 * Of a request `refused` before it authenticated, the masked body's first characters and its size.
 */
export const entryOf = <Target extends string, Fault>(
  secrets: ReadonlyArray<string>,
  { headers, method, url }: Request,
  { body, path, target, time }: Received<Target>,
  refused = false
): Writable<JournalEntry<Target, Fault>> => {
  const mask = maskOf(
    [...secrets, ...credentialsOf(headers["authorization"] ?? "")].filter((s) => s.length >= minCredentialLength)
  )
  const scrub = (text: string) => mask.text(text).replace(jwt, masked)
  const parsed = URL.canParse(url, "http://sandbox.invalid") ? new URL(url, "http://sandbox.invalid") : undefined
  /** JSON with its credentials' fields redacted; else the text, whole `[redacted]` if it names a credential. */
  const jsonOrText = (text: string): unknown => {
    const value = jsonOf(text)
    return value !== undefined ? redacted(value) : credentialName.test(text) ? masked : text
  }
  /** `Authorization` (or `Proxy-Authorization`) as its scheme, a credential's value `[redacted]`. */
  const headerValue = (name: string, value: string) => {
    const [scheme = "", ...credentials] = value.trim().split(/\s+/)
    if (name.endsWith("authorization")) return credentials.length > 0 ? scrub(scheme) : masked
    return credentialName.test(name) ? masked : scrub(value)
  }
  return {
    time,
    method,
    path: scrub(path),
    query: parsed === undefined ? {} : formOf(parsed.searchParams, scrub),
    target,
    headers: joined(
      Object.entries(headers).map(([name, value]) =>
        [mask.inName(name) ? masked : scrub(name), headerValue(name, value)] as const
      )
    ),
    ...(body === undefined || body === "" ? {} : bodyOf(
      isForm(headers, body) ? formOf(new URLSearchParams(body), scrub) : jsonOrText(scrub(body)),
      refused && Buffer.byteLength(body)
    ))
  }
}

/**
 * A masked body as an entry keeps it: whole, or a preview and the size in `bytes` of a refused
 * request's. The preview is copied out of the text (`Array.from`): V8 keeps a slice as a window on it.
 */
const bodyOf = (body: unknown, bytes: number | false) => {
  if (bytes === false) return { body }
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return { bodyPreview: Array.from(text.slice(0, previewLength)).join(""), bodyBytes: bytes }
}

/** What `expectRequest` says when no request matches `filter`: the filter, and the last request received. */
export const noMatch = (filter: object, last: JournalEntry | undefined): string => {
  const body = JSON.stringify(last?.body ?? null).slice(0, 200)
  const seen = last === undefined ? "none was received" : `the last was ${last.method} ${last.path} ${body}`
  return `no request matches ${JSON.stringify(filter).slice(0, 500)}: ${seen}`
}

/**
 * The last items pushed: at most `size` of them and `bytes` of their weights in all, and how many
 * it dropped: older ones, and any heavier alone, which is not kept.
 */
export interface Ring<A> {
  readonly size: number
  readonly bytes: number
  readonly items: Array<{ readonly item: A; readonly weight: number }>
  weight: number
  dropped: number
}

export const ring = <A>(size: number, bytes: number): Ring<A> => ({ size, bytes, items: [], weight: 0, dropped: 0 })

export const push = <A>(ring: Ring<A>, item: A, weight: number): void => {
  if (weight > ring.bytes) return void ring.dropped++
  ring.items.push({ item, weight })
  ring.weight += weight
  while (ring.items.length > ring.size || ring.weight > ring.bytes) {
    ring.weight -= ring.items.shift()?.weight ?? 0
    ring.dropped++
  }
}

/** The items, oldest first. */
export const contents = <A>(ring: Ring<A>): Array<A> => ring.items.map(({ item }) => item)
