/** What a watch is, what a run of it tells, and how it fails (see `DesignWatch`, docs/watch.md). */
import { Schema } from "effect"
import type { DateTime } from "effect"
import type { ValidationError } from "../../ApiError.js"
import type { Criteria, MirrorDatabaseError, SyncError } from "../mirror/model.js"

/**
 * No watch of that name is stored.
 *
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
 * A watch as `add` takes it: criteria as `sync` takes them, and/or design numbers (a portfolio).
 *
 * @since 0.5.0
 * @category models
 */
export interface WatchInput {
  readonly name: string
  readonly criteria?: Criteria | undefined
  readonly numbers?: ReadonlyArray<string> | undefined
  /** Days ahead in which an expiry is told (`expiring`), 0 to 3650; default 90. */
  readonly expiringWithin?: number | undefined
  /** A label or note, for people. */
  readonly note?: string | undefined
}

/**
 * A stored watch.
 *
 * @since 0.5.0
 * @category models
 */
export interface Watch {
  readonly name: string
  readonly criteria: Criteria | undefined
  readonly numbers: ReadonlyArray<string>
  readonly expiringWithin: number
  readonly note: string | undefined
  /** When its last run read the mirror's history up to (ISO timestamp); none before its baseline. */
  readonly cursor: string | undefined
}

/**
 * What a watch reports of a design: `new` (it matches, first seen by the watch), `status`, `owner`,
 * `classification` (old → new), `expiring` (within the horizon, once per term), `no_longer_matching`.
 *
 * @since 0.5.0
 * @category models
 */
export type EventKind = "new" | "status" | "owner" | "classification" | "expiring" | "no_longer_matching"

/**
 * One event of a watch.
 *
 * @since 0.5.0
 * @category models
 */
export interface WatchEvent {
  readonly watch: string
  readonly number: string
  readonly event: EventKind
  /** When the sync that saw it started (ISO timestamp), or the run's time for `new`, `expiring`, `no_longer_matching`. */
  readonly at: string
  /** `{ old, new }` for `status` (a text), `owner` (names), `classification` (codes); `{ expiryDate }` for `expiring`. */
  readonly fields: Readonly<Record<string, unknown>>
  /** The design as the mirror held it when the event was reported. */
  readonly design: {
    readonly title: string | null
    readonly status: string | null
    readonly owners: ReadonlyArray<string>
    readonly classes: ReadonlyArray<string>
  }
}

/**
 * What one run told of one watch: on its first run (`baseline`), how many designs it follows, no event.
 *
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
 * What `run` did: each watch's events, the syncs it ran (one per distinct criteria) and their API requests.
 *
 * @since 0.5.0
 * @category models
 */
export interface RunReport {
  readonly watches: ReadonlyArray<WatchRun>
  readonly syncs: number
  readonly requests: number
}

/**
 * The range `report` reads: events at or after `since`, before `until` (default: all).
 *
 * @since 0.5.0
 * @category options
 */
export interface ReportRange {
  readonly since?: DateTime.DateTime | undefined
  readonly until?: DateTime.DateTime | undefined
}

/**
 * What the reading and writing operations fail with.
 *
 * @since 0.5.0
 * @category errors
 */
export type WatchError = ValidationError | WatchNotFoundError | MirrorDatabaseError

/**
 * What `run` fails with: a watch not found, or a sync's failure.
 *
 * @since 0.5.0
 * @category errors
 */
export type RunError = WatchNotFoundError | SyncError
