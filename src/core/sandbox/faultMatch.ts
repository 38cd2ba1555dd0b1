/**
 * Whether a request is one a fault (or a query of the journal) names: by target, path, design
 * number, page number and fields of its body; and which queued fault answers a request.
 */

/** What a fault or a journal query may name beside its target; every field named must hold. */
export interface Match {
  /** The request's path: as sent, for a fault; as the journal shows it, for a journal query. */
  readonly path?: string | undefined
  /** The design number a design request asks for (`fieldTargets`). */
  readonly designNumber?: string | undefined
  /** The `pageNumber` of a paged search's body (the first page is 0; `fieldTargets`). */
  readonly pageNumber?: number | undefined
  /** Fields of the body, by a path such as `rows[0].query.owner`, each with the value it must have. */
  readonly body?: { readonly [path: string]: string | number | boolean | null } | undefined
}

/**
 * Which requests of the journal to read: those to `target` (absent or `"any"`, all) that the fields
 * of a fault's `match` name.
 * @since 0.3.0
 * @category models
 */
export interface RequestFilter<Target extends string = string> extends Match {
  readonly target?: Target | "any" | undefined
}

/**
 * A request as matching sees it: its target (absent when it has no route), path and parsed body;
 * raw for a fault (`seenOf`), a masked journal entry for a journal query.
 */
export interface Seen {
  readonly target?: string | undefined
  readonly path: string
  readonly body?: unknown
}

/** A field path: names (any text but `.`, `[`, `]`) joined by dots, each followed by array indexes. */
export const fieldPath = /^[^.[\]]+(?:\[\d+\])*(?:\.[^.[\]]+(?:\[\d+\])*)*$/

/** Why `key` is no field path, or undefined when it is one. */
export const fieldPathProblem = (key: string): string | undefined =>
  fieldPath.test(key) ? undefined : `expected a field path such as rows[0].query.owner, not ${JSON.stringify(key)}`

/**
 * The targets whose requests can hold each field of a match (besides `any`, where the field alone
 * names them): a design number only a design request, a page number only a paged search, a body
 * every request but a design's (a GET).
 */
export const fieldTargets = {
  designNumber: ["design"],
  pageNumber: ["page"],
  body: ["token", "search", "advanced", "page"]
} as const

/** The fields of `match` that no request to `target` can hold, each with its path (below `at`) and why. */
export const misplaced = (target: string | undefined, match: Match, at: ReadonlyArray<string> = []) =>
  (["designNumber", "pageNumber", "body"] as const).flatMap((field) => {
    const targets: ReadonlyArray<string> = fieldTargets[field]
    return match[field] === undefined || target === undefined || target === "any" || targets.includes(target)
      ? []
      : [{
        path: [...at, field],
        message: `no ${target} request has a ${field}: it applies to target ${targets.join(", ")} or any`
      }]
  })

/** The value at `path` (`rows[0].query.owner`) in `value`: own fields and array items only, else undefined. */
export const fieldAt = (value: unknown, path: string): unknown =>
  (path.match(/[^.[\]]+|\[\d+\]/g) ?? []).reduce<unknown>((v, step) => {
    if (step.startsWith("[")) return Array.isArray(v) ? v[Number(step.slice(1, -1))] : undefined
    return typeof v === "object" && v !== null && !Array.isArray(v) && Object.hasOwn(v, step)
      ? (v as Record<string, unknown>)[step]
      : undefined
  }, value)

/** The design number of a design request: the last segment of its path, decoded. */
const designNumberOf = (path: string): string => {
  const last = path.slice(path.lastIndexOf("/") + 1)
  try {
    return decodeURIComponent(last)
  } catch {
    return last
  }
}

/** Whether `request` is one `filter` names. */
export const applies = (filter: RequestFilter, request: Seen): boolean =>
  (filter.target === undefined || filter.target === "any" || filter.target === request.target) &&
  (filter.path === undefined || filter.path === request.path) &&
  (filter.designNumber === undefined ||
    (request.target === "design" && designNumberOf(request.path) === filter.designNumber)) &&
  (filter.pageNumber === undefined ||
    (request.target === "page" && fieldAt(request.body, "pageNumber") === filter.pageNumber)) &&
  Object.entries(filter.body ?? {}).every(([path, value]) => fieldAt(request.body, path) === value)

/** A fault waiting: its place in injection order, matching requests it still lets through, uses left. */
interface Queued<F> {
  readonly index: number
  readonly fault: F
  letThrough: number
  remaining: number
}

/** What a queue needs of a fault. */
interface Queueable {
  readonly target: string
  readonly match?: Match | undefined
  readonly after?: number | undefined
  readonly times?: number | undefined
  readonly count: number
}

/** Faults in the order they were injected; a fault leaves once its uses are spent. */
export interface FaultQueue<F> {
  readonly waiting: Array<Queued<F>>
  /** Faults injected so far. */
  injected: number
}

export const faultQueue = <F>(): FaultQueue<F> => ({ waiting: [], injected: 0 })

/** Queues `fault`: it lets `after` matching requests through, then answers `times` (or `count`). */
export const enqueue = <F extends Queueable>(queue: FaultQueue<F>, fault: F): void =>
  void queue.waiting.push({
    index: queue.injected++,
    fault,
    letThrough: fault.after ?? 0,
    remaining: fault.times ?? fault.count
  })

/**
 * The fault that answers `request`: the first, in injection order, that applies to it and has let
 * its `after` requests through. Each earlier one that applies and still lets requests through counts
 * this one. Takes one use of the answering fault, and drops it once spent.
 */
export const take = <F extends Queueable>(queue: FaultQueue<F>, request: Seen): Queued<F> | undefined => {
  for (const [i, queued] of queue.waiting.entries()) {
    // a path with no route (a sibling API's) is answered only by a fault that names that path
    if (request.target === undefined && queued.fault.match?.path === undefined) continue
    if (!applies({ ...queued.fault.match, target: queued.fault.target }, request)) continue
    if (queued.letThrough > 0) {
      queued.letThrough--
      continue
    }
    if (--queued.remaining === 0) queue.waiting.splice(i, 1)
    return queued
  }
  return undefined
}
