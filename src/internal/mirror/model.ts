/**
 * What the mirror is told and tells: the criteria it follows, the options of a run, the report of
 * one, the stored state of a criteria, and the ways a run fails.
 */
import { Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import type { UnexpectedResponseError, ValidationError } from "../../ApiError.js"
import type * as Mirror from "../../core/mirror/mirror.js"
import type { AdvancedSearchRequest, QuickSearchRequest } from "../../Designs.js"
import type { AdvancedDesignsError, SearchDesignsError } from "../../DesignSearchClient.js"

/**
 * The mirror's database failed: it could not be reached, opened or written. `detail` says what was
 * tried (in Effect 4 why too: the connection, the credentials, a permission) and the engine's words
 * (never a password: connection URLs are not repeated). `locked`: another sync held the mirror, or
 * another process a SQLite file's lock; the same call can succeed later.
 * @since 0.3.0
 * @category errors
 */
export class MirrorDatabaseError extends Schema.TaggedError<MirrorDatabaseError>()("MirrorDatabaseError", {
  detail: Schema.String,
  locked: Schema.optional(Schema.Boolean)
}) {
  override get message(): string {
    return `the mirror's database failed: ${this.detail}`
  }
}

/**
 * The SQL driver of an engine is not installed (it is an optional peer dependency): `packageName`
 * is the package to install.
 * @since 0.3.0
 * @category errors
 */
export class SqlDriverMissingError extends Schema.TaggedError<SqlDriverMissingError>()("SqlDriverMissingError", {
  packageName: Schema.String
}) {
  override get message(): string {
    const sqlite = this.packageName === "@effect/sql-libsql"
      ? ", which installs beside Effect 3 only: SQLite mirrors need the Effect 3 edition, and an Effect 4 " +
        "application mirrors into PostgreSQL (DesignMirror.layerPostgres)"
      : ""
    return `the SQL driver ${this.packageName} is not installed: npm install ${this.packageName}${sqlite}`
  }
}

/**
 * A run got fewer designs than the service told it of (a page or a search list shorter than its
 * count). What it got is committed, but the watermark stays where it was (`watermark`, null before
 * the first complete run), so that the next run asks again for every change since then: moving it
 * would lose the changes the service left out. `detail` says what was short.
 * @since 0.3.0
 * @category errors
 */
export class IncompleteSyncError extends Schema.TaggedError<IncompleteSyncError>()("IncompleteSyncError", {
  criteriaKey: Schema.String,
  detail: Schema.String,
  /** Designs received in full and committed. */
  fetched: Schema.Number,
  /** The watermark, unchanged. */
  watermark: Schema.NullOr(Schema.String)
}) {
  override get message(): string {
    return `incomplete sync: ${this.detail}; ${this.fetched} designs committed, watermark ${
      this.watermark ?? "not set"
    } unchanged: the next run asks again`
  }
}

type Link = { readonly [K in "message" | "code" | "_tag"]?: unknown } & {
  readonly reason?: { readonly _tag?: unknown }
}

/** An error and its causes, outermost first. */
const causes = (error: unknown): Array<Link> =>
  typeof error === "object" && error !== null ? [error, ...("cause" in error ? causes(error.cause) : [])] : []

/** Whether a SQL failure is SQLite's "database is locked": another connection held the file's lock. */
export const isLocked = (error: unknown): boolean =>
  causes(error).some((e) => typeof e.code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(e.code))

/** What the reason of a `SqlError` (Effect 4's has one) says of why, where the engine's words may not. */
const why: Partial<Record<string, string>> = {
  ConnectionError: "no connection",
  AuthenticationError: "the server refused the credentials",
  AuthorizationError: "not allowed"
}

/** A failure of the SQL client or the migrator, as the mirror tells it: what it was doing, why, the engine's words. */
export const databaseError = (doing: string) => (error: { readonly message: string; readonly cause?: unknown }) => {
  if (isLocked(error)) {
    return new MirrorDatabaseError({ detail: `${doing}: the mirror file is locked by another process`, locked: true })
  }
  const chain = causes(error)
  const tag = chain.find((e) => e._tag === "SqlError")?.reason?._tag
  const reason = typeof tag === "string" ? why[tag] : undefined
  const words = chain.map((e) => e.message).filter((m) => typeof m === "string" && m !== "")
  return new MirrorDatabaseError({
    detail: `${doing}: ${reason === undefined ? "" : `${reason}: `}${words.at(-1) ?? error.message}`
  })
}

/** The sync lock held by another sync. */
export const anotherSync = new MirrorDatabaseError({ detail: "another sync into this mirror is running", locked: true })

/**
 * What `sync` fails with: criteria or options that are not valid (a client `ValidationError`, before
 * anything is written or sent), the searches' and gets' failures, an answer that cannot be stored, a
 * run that could not get every design (`IncompleteSyncError`), or the database's.
 * @since 0.3.0
 * @category errors
 */
export type SyncError =
  | AdvancedDesignsError
  | SearchDesignsError
  | ValidationError
  | UnexpectedResponseError
  | IncompleteSyncError
  | MirrorDatabaseError

/**
 * What a mirror follows: an advanced search (rows of criteria), or a quick search (a query). A
 * `changedSinceDate` in it is ignored: the mirror asks by its own watermark.
 * @since 0.3.0
 * @category models
 */
export type Criteria = AdvancedSearchRequest | QuickSearchRequest

/**
 * What a row of `designs` says of its design: `current` (it matched the criteria when last synced),
 * `no_longer_matching` (the criteria's search no longer lists it), `not_found` (the service answered
 * 404 for it). Rows are marked, never removed: what the register held stays queryable.
 * @since 0.3.0
 * @category models
 */
export type DesignState = Mirror.DesignState

/**
 * What one run of `sync` did.
 * @since 0.3.0
 * @category models
 */
export interface SyncReport {
  /** The stable key of the criteria (`criteria_key` in both tables). */
  readonly criteriaKey: string
  /** Whether the run fetched every matching design (no complete run before it). */
  readonly full: boolean
  /** Whether the run went on from where a stopped run had committed its rows. */
  readonly resumed: boolean
  /** The `changedSinceDate` the run asked with, for a run that was not full. */
  readonly changedSince: string | undefined
  /** The new watermark: the day (UTC) the run started. */
  readonly watermark: string
  /** How many designs the run's search matched (all of them, or those changed since the watermark). */
  readonly searched: number
  /** How many designs match the criteria now, as the listing search counted them. */
  readonly matching: number
  /** Designs received in full. */
  readonly fetched: number
  /** Rows written for the first time. */
  readonly inserted: number
  /** Rows whose record or state changed. */
  readonly updated: number
  /** Designs fetched whose row was already just so. */
  readonly unchanged: number
  /** Current rows marked `no_longer_matching`. */
  readonly noLongerMatching: number
  /** Rows marked `not_found`. */
  readonly notFound: number
  /** API requests the run asked for (retries and token requests not counted). */
  readonly requests: number
}

/**
 * The sync state of one criteria, as stored.
 * @since 0.3.0
 * @category models
 */
export interface SyncState {
  readonly criteriaKey: string
  /** The criteria, as JSON. */
  readonly criteria: string
  /** The day (UTC, `YYYY-MM-DD`) the last complete run started; none before the first. */
  readonly watermark: Option.Option<string>
  /** Whether a run stopped before it finished: the next run goes on from where it was. */
  readonly inProgress: boolean
}

/**
 * Options of `sync`.
 * @since 0.3.0
 * @category options
 */
export interface SyncOptions {
  /** Requests at once: pages, or designs where each is fetched on its own (default 4). */
  readonly concurrency?: number | undefined
  /** Whether to write each change the run sees to `design_changes` (default true). */
  readonly history?: boolean | undefined
  /**
   * Told how many designs the run expects to fetch once its search has answered, then after each
   * committed batch how many it has committed.
   */
  readonly onProgress?:
    | ((progress: { readonly expected: number; readonly committed: number }) => Effect.Effect<void>)
    | undefined
}

/**
 * What a run saw happen to a design (a row of `design_changes`, see docs/mirror.md).
 * @since 0.3.0
 * @category models
 */
export type ChangeKind = Mirror.ChangeKind

/**
 * A change a run saw, as `changes` reads it from `design_changes`.
 * @since 0.3.0
 * @category models
 */
export interface Change {
  readonly number: string
  /** When the run that saw the change started (ISO timestamp). */
  readonly syncedAt: string
  readonly kind: ChangeKind
  /** For `changed`: the top-level fields of the encoded record that differ (`old` or `new` absent where one lacks it); `{}` otherwise. */
  readonly fields: Readonly<Record<string, { readonly old: unknown; readonly new: unknown }>>
}

/**
 * Options of `changes`.
 * @since 0.3.0
 * @category options
 */
export interface ChangesOptions {
  /** Changes seen at or after this instant; default: the start of the latest complete run of any criteria. */
  readonly since?: DateTime.DateTime | undefined
  readonly kind?: ChangeKind | undefined
}
