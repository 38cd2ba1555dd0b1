/** What a watch is, what a run of it tells, and how it fails (see `DesignWatch`, docs/watch.md). */
import { Schema } from "effect"
import type { DateTime } from "effect"
import type { Criteria } from "../mirror/model.js"

/**
 * No watch of that name is stored.
 * @since 0.5.0
 * @category errors
 */
export class WatchNotFoundError extends Schema.TaggedError<WatchNotFoundError>()("WatchNotFoundError", {
  name: Schema.String
}) {
  override get message(): string {
    return `no watch named ${JSON.stringify(this.name)}`
  }
}

/**
 * A watch as `add` takes it: criteria as `sync` takes them and/or design numbers (a portfolio), the days ahead
 * in which an expiry is told (0 to 3650, default 90), a note for people.
 * @since 0.5.0
 * @category models
 */
export interface WatchInput {
  readonly name: string
  readonly criteria?: Criteria | undefined
  readonly numbers?: ReadonlyArray<string> | undefined
  readonly expiringWithin?: number | undefined
  readonly note?: string | undefined
}

/**
 * A stored watch; `cursor`, the instant its last run read the history up to (none before its baseline).
 * @since 0.5.0
 * @category models
 */
export interface Watch {
  readonly name: string
  readonly criteria: Criteria | undefined
  readonly numbers: ReadonlyArray<string>
  readonly expiringWithin: number
  readonly note: string | undefined
  readonly cursor: string | undefined
}

/**
 * What a watch tells of a design: `new` (it matches, first seen by the watch), `status`, `owner`, `classification`
 * (old → new), `expiring` (within the horizon, once per term), `no_longer_matching`.
 * @since 0.5.0
 * @category models
 */
export type EventKind = "new" | "status" | "owner" | "classification" | "expiring" | "no_longer_matching"

/**
 * One event of a watch: `at`, when the sync that saw it started (the run's time for `new`, `expiring`,
 * `no_longer_matching`); `fields`, `{ old, new }` (a status, owners' names, class codes) or `{ expiryDate }`;
 * `design`, the design as the mirror held it then.
 * @since 0.5.0
 * @category models
 */
export interface WatchEvent {
  readonly watch: string
  readonly number: string
  readonly event: EventKind
  readonly at: string
  readonly fields: Readonly<Record<string, unknown>>
  readonly design: Readonly<
    Record<"title" | "status", string | null> & Record<"owners" | "classes", ReadonlyArray<string>>
  >
}

/**
 * What a run told of one watch; on its first run (`baseline`), how many designs it follows, and no event.
 * @since 0.5.0
 * @category models
 */
export interface WatchRun {
  readonly watch: string
  readonly baseline: boolean
  readonly following: number
  readonly events: ReadonlyArray<WatchEvent>
}

/**
 * What `run` did: each watch's events, the syncs it ran (one per distinct criteria), their API requests.
 * @since 0.5.0
 * @category models
 */
export interface RunReport {
  readonly watches: ReadonlyArray<WatchRun>
  readonly syncs: number
  readonly requests: number
}

/**
 * The events `report` reads: at or after `since`, before `until` (default: all).
 * @since 0.5.0
 * @category options
 */
export interface ReportRange {
  readonly since?: DateTime.DateTime | undefined
  readonly until?: DateTime.DateTime | undefined
}
