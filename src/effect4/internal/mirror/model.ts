/**
 * What the mirror is told and tells: the criteria it follows, the options of a run, the report of
 * one, the stored state of a criteria, and the ways a run fails (see the Effect 3 edition's model).
 */
import { Schema } from "effect"
import type { DateTime, Effect, Option } from "effect"
import { SqlError } from "effect/sql"
import type * as Mirror from "../../../core/mirror.js"
import type { UnexpectedResponseError, ValidationError } from "../../ApiError.js"
import type { AdvancedSearchRequest, QuickSearchRequest } from "../../Designs.js"
import type { AdvancedDesignsError, SearchDesignsError } from "../../DesignSearchClient.js"

/**
 * The mirror's database failed: it could not be reached, or refused the connection, or could not
 * be written. `detail` says what was tried, why (the connection, the credentials, a permission) and
 * the engine's words (never a password: connection URLs are not repeated). `locked`: another sync
 * held the mirror; the same call can succeed later.
 *
 * @since 0.4.0
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
 *
 * @since 0.4.0
 * @category errors
 */
export class SqlDriverMissingError extends Schema.TaggedError<SqlDriverMissingError>()("SqlDriverMissingError", {
  packageName: Schema.String
}) {
  override get message(): string {
    return `the SQL driver ${this.packageName} is not installed: npm install ${this.packageName}`
  }
}

/**
 * A run got fewer designs than the service told it of (a page or a search list shorter than its
 * count). What it got is committed, but the watermark stays where it was (`watermark`, null before
 * the first complete run), so that the next run asks again for every change since then. `detail`
 * says what was short.
 *
 * @since 0.4.0
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

/** An error and its causes, outermost first. */
const causes = (error: unknown): Array<{ readonly message?: unknown }> =>
  typeof error === "object" && error !== null ? [error, ...("cause" in error ? causes(error.cause) : [])] : []

/** What a failure's `SqlError` reason says of why, where the engine's words may not. */
const why: Partial<Record<SqlError.SqlErrorReason["_tag"], string>> = {
  ConnectionError: "no connection",
  AuthenticationError: "the server refused the credentials",
  AuthorizationError: "not allowed"
}

/**
 * A failure of the SQL client or the migrator, as the mirror reports it: what it was doing, why
 * (the reason of the `SqlError` within), and the engine's own words.
 */
export const databaseError = (doing: string) => (error: { readonly message: string; readonly cause?: unknown }) => {
  const chain = causes(error)
  const sqlError = chain.find(SqlError.isSqlError)
  const reason = sqlError === undefined ? undefined : why[sqlError.reason._tag]
  const words = chain.map((e) => e.message).filter((m) => typeof m === "string" && m !== "")
  return new MirrorDatabaseError({
    detail: `${doing}: ${reason === undefined ? "" : `${reason}: `}${words.at(-1) ?? error.message}`
  })
}

/**
 * What `sync` fails with: criteria or options that are not valid (a client `ValidationError`, before
 * anything is written or sent), the searches' and gets' failures, an answer that cannot be stored, a
 * run that could not get every design (`IncompleteSyncError`), or the database's.
 *
 * @since 0.4.0
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
 *
 * @since 0.4.0
 * @category models
 */
export type Criteria = AdvancedSearchRequest | QuickSearchRequest

/**
 * What a row of `designs` says of its design: `current`, `no_longer_matching` or `not_found`. Rows
 * are marked, never removed.
 *
 * @since 0.4.0
 * @category models
 */
export type DesignState = Mirror.DesignState

/**
 * What one run of `sync` did.
 *
 * @since 0.4.0
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
 *
 * @since 0.4.0
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
 *
 * @since 0.4.0
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
 *
 * @since 0.4.0
 * @category models
 */
export type ChangeKind = Mirror.ChangeKind

/**
 * A change a run saw, as `changes` reads it from `design_changes`.
 *
 * @since 0.4.0
 * @category models
 */
export interface Change {
  readonly number: string
  /** When the run that saw the change started (ISO timestamp). */
  readonly syncedAt: string
  readonly kind: ChangeKind
  /** For `changed`: the top-level fields of the encoded record that differ; `{}` otherwise. */
  readonly fields: Readonly<Record<string, { readonly old: unknown; readonly new: unknown }>>
}

/**
 * Options of `changes`.
 *
 * @since 0.4.0
 * @category options
 */
export interface ChangesOptions {
  /** Changes seen at or after this instant; default: the start of the latest complete run of any criteria. */
  readonly since?: DateTime.DateTime | undefined
  readonly kind?: ChangeKind | undefined
}
