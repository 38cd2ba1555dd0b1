/**
 * The sandbox's request journal as plain data: an entry, the redaction that makes one from a
 * request (no client secret, no token, in any form the mask knows), and the ring that keeps the
 * last entries and counts the ones it dropped.
 */
import { masked, maskOf } from "./mask.js"

/**
 * A request the sandbox received, as it keeps it: `Authorization` shows only its scheme, a form's
 * `client_secret` shows `[redacted]`, and every other text is masked of the client secret and of
 * tokens.
 */
export interface JournalEntry<Target extends string = string, Fault = unknown> {
  /** When it arrived, in milliseconds since the epoch on the sandbox's `Clock`. */
  readonly time: number
  readonly method: string
  readonly path: string
  /** The query's parameters (a repeated one keeps its last value). */
  readonly query: { readonly [name: string]: string }
  /** The endpoint it reached; absent when no route has its path. */
  readonly target?: Target | undefined
  /** Header names in lower case. */
  readonly headers: { readonly [name: string]: string }
  /** Parsed JSON, a form's fields, or the text; absent when there is none or it could not be read. */
  readonly body?: unknown
  /** The status answered; absent until then, or when the client went away first. */
  readonly status?: number
  /** The fault that answered, with its place in injection order since the sandbox was built or reset (from 0). */
  readonly fault?: { readonly index: number; readonly fault: Fault }
}

/** An entry as the sandbox fills it in: the status and the fault come after the request. */
export type Writable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * The journal: the requests the sandbox received, oldest first, and how many older ones it dropped
 * to keep at most `journalSize`.
 *
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

/** How deep a JSON value may nest and still be written (and described) without overflowing the stack. */
export const maxNesting = 1000

/** Whether `value` nests at most `maxNesting` levels, looked at with a stack of its own. */
export const nestsWithin = (value: unknown): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, depth] = next
    if (typeof v !== "object" || v === null) continue
    if (depth >= maxNesting) return false
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1])
  }
  return true
}

const jsonOrText = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return nestsWithin(value) ? value : text
  } catch {
    return text
  }
}

/** `fields` as an object, every name and value scrubbed, `client_secret` replaced whatever it holds. */
const formOf = (fields: URLSearchParams, scrub: (text: string) => string) =>
  Object.fromEntries(Array.from(fields, ([k, v]) => [scrub(k), k === "client_secret" ? masked : scrub(v)]))

/**
 * The journal entry of `request`, masked of `secrets`, of the credentials of its `Authorization`
 * and of anything shaped like a token.
 */
export const entryOf = <Target extends string, Fault>(
  secrets: ReadonlyArray<string>,
  { headers, method, url }: Request,
  { body, path, target, time }: Received<Target>
): Writable<JournalEntry<Target, Fault>> => {
  const credentials = (headers["authorization"] ?? "").split(" ").slice(1).join(" ").trim()
  const mask = maskOf([...secrets, credentials])
  const scrub = (text: string) => mask.text(text).replace(jwt, masked)
  const parsed = URL.canParse(url, "http://sandbox.invalid") ? new URL(url, "http://sandbox.invalid") : undefined
  const isForm = (headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")
  return {
    time,
    method,
    path: scrub(path),
    query: parsed === undefined ? {} : formOf(parsed.searchParams, scrub),
    target,
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [
        name,
        !name.endsWith("authorization") ? scrub(value) : value.includes(" ") ? scrub(value.split(" ")[0]!) : masked
      ])
    ),
    ...(body === undefined || body === ""
      ? {}
      : { body: isForm ? formOf(new URLSearchParams(body), scrub) : jsonOrText(scrub(body)) })
  }
}

/** What `expectRequest` says when no request matches `filter`: the filter, and the last request received. */
export const noMatch = (filter: object, last: JournalEntry | undefined): string => {
  const body = JSON.stringify(last?.body ?? null).slice(0, 200)
  const seen = last === undefined ? "none was received" : `the last was ${last.method} ${last.path} ${body}`
  return `no request matches ${JSON.stringify(filter)}: ${seen}`
}

/** A ring of at most `size` items: the last ones pushed, and how many older ones it dropped. */
export interface Ring<A> {
  readonly size: number
  readonly items: Array<A>
  next: number
  dropped: number
}

export const ring = <A>(size: number): Ring<A> => ({ size, items: [], next: 0, dropped: 0 })

export const push = <A>(ring: Ring<A>, item: A): void => {
  if (ring.items.length < ring.size) return void ring.items.push(item)
  ring.items[ring.next] = item
  ring.next = (ring.next + 1) % ring.size
  ring.dropped++
}

/** The items, oldest first. */
export const contents = <A>(
  ring: Ring<A>
): Array<A> => [...ring.items.slice(ring.next), ...ring.items.slice(0, ring.next)]
