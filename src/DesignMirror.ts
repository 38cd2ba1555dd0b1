/**
 * A mirror of the register in SQL: `sync(criteria)` keeps a table `designs` current with every
 * design matching the criteria, at the lowest cost in requests. The first run fetches them all (a
 * page of 100 a request where the paged search is allowed, else a search and a get each); later
 * runs ask only for designs changed since the day the last complete run started
 * (`changedSinceDate`, the service's only way to follow changes), plus one search that lists the
 * designs still matching. Written against `@effect/sql`'s `SqlClient`: SQLite through
 * `@effect/sql-libsql` (`layerSqlite`) and PostgreSQL through `@effect/sql-pg` (`layerPostgres`),
 * each driver loaded only when its layer is built. `@effect/sql` (with `@effect/experimental`) is an
 * optional peer dependency, needed only here: import this module by its own path
 * (`effect-design-search/DesignMirror`); the package's index does not load it.
 *
 * @since 0.3.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Chunk, Clock, Context, DateTime, Effect, Either, Layer, Option, Redacted, Schema, Stream } from "effect"
import type { ParseError } from "effect/ParseResult"
import { createHash } from "node:crypto"
import { UnexpectedResponseError, ValidationError } from "./ApiError.js"
import type { NotFoundError } from "./ApiError.js"
import type { DesignNumber, QuickSearchRequest } from "./Designs.js"
import { AdvancedSearchRequest, Design, maxPageSize, QuickSearchRequest as QuickSearchRequestSchema } from "./Designs.js"

const decodeQuickSearchRequest = Schema.decodeUnknownEither(QuickSearchRequestSchema, { errors: "all", onExcessProperty: "error" })
import { DesignSearchClient } from "./DesignSearchClient.js"
import type { AdvancedDesignsError, SearchDesignsError } from "./DesignSearchClient.js"
import * as Tables from "./internal/mirrorTables.js"
import type { DesignRow, RowState, SyncRow } from "./internal/mirrorTables.js"
import { fewerThanCounted } from "./internal/client/paged.js"
import { parameterError, pointerErrors } from "./internal/validation.js"

/**
 * The mirror's database failed: it could not be reached, opened or written. `detail` says what was
 * tried and the engine's words (never a password: connection URLs are not repeated).
 *
 * @since 0.3.0
 * @category errors
 */
export class MirrorDatabaseError extends Schema.TaggedError<MirrorDatabaseError>()("MirrorDatabaseError", {
  detail: Schema.String
}) {
  override get message(): string {
    return `the mirror's database failed: ${this.detail}`
  }
}

/**
 * The SQL driver of an engine is not installed (it is an optional peer dependency): `packageName`
 * is the package to install.
 *
 * @since 0.3.0
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
 * the first complete run), so that the next run asks again for every change since then: moving it
 * would lose the changes the service left out. `detail` says what was short.
 *
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

/**
 * What `sync` fails with: criteria or options that are not valid (a client `ValidationError`, before
 * anything is written or sent), the searches' and gets' failures, an answer that cannot be stored, a
 * run that could not get every design (`IncompleteSyncError`), or the database's.
 *
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
 *
 * @since 0.3.0
 * @category models
 */
export type Criteria = AdvancedSearchRequest | QuickSearchRequest

/**
 * What a row of `designs` says of its design: `current` (it matched the criteria when last synced),
 * `no_longer_matching` (the criteria's search no longer lists it), `not_found` (the service answered
 * 404 for it). Rows are marked, never removed: what the register held stays queryable.
 *
 * @since 0.3.0
 * @category models
 */
export type DesignState = RowState

/**
 * What one run of `sync` did.
 *
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
 *
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
 *
 * @since 0.3.0
 * @category options
 */
export interface SyncOptions {
  /** Requests at once: pages, or designs where each is fetched on its own (default 4). */
  readonly concurrency?: number | undefined
  /**
   * Told how many designs the run expects to fetch once its search has answered, then after each
   * committed transaction how many it has committed.
   */
  readonly onProgress?:
    | ((progress: { readonly expected: number; readonly committed: number }) => Effect.Effect<void>)
    | undefined
}

/**
 * The mirror's operations.
 *
 * @since 0.3.0
 * @category models
 */
export interface Service {
  /**
   * Brings the rows of `criteria` up to date (see the module's doc) and reports what it did. Rows
   * are committed a transaction of at most `batchSize` designs at a time, with the run's progress;
   * the watermark moves only once every row is committed, so a run that fails or is interrupted
   * loses nothing, and the next one goes on from where it stopped; a run that got fewer designs
   * than it was told of keeps the watermark and fails with `IncompleteSyncError`. Criteria and
   * options are checked first (a client `ValidationError`). Fails with `SyncError`.
   */
  readonly sync: (criteria: Criteria, options?: SyncOptions) => Effect.Effect<SyncReport, SyncError>
  /** The stored sync state of `criteria`, if it was ever synced. Fails with `MirrorDatabaseError`. */
  readonly state: (criteria: Criteria) => Effect.Effect<Option.Option<SyncState>, MirrorDatabaseError>
}

/**
 * The mirror: provide it with `layer`, over a `SqlClient` (`layerSqlite`, `layerPostgres`, or the
 * application's own) and a `DesignSearchClient`.
 *
 * @since 0.3.0
 * @category tags
 */
export class DesignMirror extends Context.Tag("effect-design-search/DesignMirror")<DesignMirror, Service>() {}

/**
 * Options of `make` and `layer`.
 *
 * @since 0.3.0
 * @category options
 */
export interface Options {
  /** Designs per transaction, 1 to 1,000 (default 100, a page): a stopped run loses at most these. */
  readonly batchSize?: number | undefined
}

const databaseError = (doing: string) => (error: { readonly message: string; readonly cause?: unknown }) => {
  const cause = error.cause instanceof Error && error.cause.message !== "" ? `: ${error.cause.message}` : ""
  return new MirrorDatabaseError({ detail: `${doing}: ${error.message}${cause}` })
}

/** A search the mirror follows, checked, without its `changedSinceDate`: plain data, read once. */
type Search =
  | { readonly _tag: "quick"; readonly request: QuickSearchRequest }
  | { readonly _tag: "advanced"; readonly request: AdvancedSearchRequest }

/** Objects with their keys in order, so that equal criteria are written alike. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])])
    )
    : value

const clientValidation = (errors: ValidationError["errors"]) =>
  new ValidationError({ errors, messages: [], excerpt: "", origin: "client" })

const decodeAdvanced = Schema.decodeUnknownEither(AdvancedSearchRequest, { errors: "all" })

/** The criteria, checked against their request schema; reads each field of what the caller gave. */
const decodeCriteria = (criteria: unknown): Either.Either<Search, ValidationError> => {
  if (typeof criteria !== "object" || criteria === null || Array.isArray(criteria)) {
    return Either.left(clientValidation([
      parameterError("criteria", "expected an advanced search (rows) or a quick search (query)")
    ]))
  }
  const decoded: Either.Either<Search, ParseError> = "rows" in criteria
    ? Either.map(decodeAdvanced(criteria), (request) => ({ _tag: "advanced", request }))
    : Either.map(decodeQuickSearchRequest(criteria), (request) => ({ _tag: "quick", request }))
  return Either.mapLeft(decoded, (error) => clientValidation(pointerErrors(error)))
}

/**
 * The criteria, checked, as the JSON stored (without `changedSinceDate`, keys in order) and as the
 * search the run sends, parsed back from that JSON: the caller's object is read once, here, and a
 * throw while reading it (a getter, a Proxy) or a value JSON cannot write is a client
 * `ValidationError`, before anything is written or sent.
 */
const readCriteria = (
  criteria: unknown
): Either.Either<{ readonly json: string; readonly search: Search }, ValidationError> => {
  const unreadable = clientValidation([parameterError("criteria", "could not be read: reading it threw")])
  const unwritable = clientValidation([parameterError("criteria", "the criteria cannot be written as JSON")])
  try {
    const decoded = decodeCriteria(criteria)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { _tag } = decoded.right
    const { changedSinceDate: _, ...rest } = decoded.right.request
    let writable = true
    const json = JSON.stringify({ kind: _tag, search: canonical(rest) }, (_key, value: unknown) => {
      if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") writable = false
      return value
    })
    if (!writable) return Either.left(unwritable)
    const { search } = JSON.parse(json) as { readonly search: never }
    return Either.right({ json, search: { _tag, request: search } })
  } catch (e) {
    // JSON.stringify throws on a cycle; anything else is the caller's object throwing as it is read
    return Either.left(e instanceof TypeError && /circular|cyclic/i.test(e.message) ? unwritable : unreadable)
  }
}

/** The options of `sync`, checked, read once and guarded like the criteria. */
const readOptions = (
  options: unknown
): Either.Either<
  {
    readonly concurrency: number
    readonly onProgress: NonNullable<SyncOptions["onProgress"]>
  },
  ValidationError
> => {
  try {
    if (options !== undefined && (typeof options !== "object" || options === null)) {
      return Either.left(clientValidation([parameterError("options", "expected an object, or nothing")]))
    }
    const { concurrency = 4, onProgress } = (options ?? {}) as SyncOptions
    if (typeof concurrency !== "number" || !Number.isSafeInteger(concurrency) || concurrency < 1) {
      return Either.left(clientValidation([parameterError("concurrency", "expected a positive integer")]))
    }
    if (onProgress !== undefined && typeof onProgress !== "function") {
      return Either.left(clientValidation([parameterError("onProgress", "expected a function, or nothing")]))
    }
    return Either.right({ concurrency, onProgress: onProgress ?? (() => Effect.void) })
  } catch {
    return Either.left(clientValidation([parameterError("options", "could not be read: reading it threw")]))
  }
}

/**
 * The stable key of `criteria` (`criteria_key` in the tables): a hash of its canonical JSON, the
 * same whatever the order of its fields and whatever its `changedSinceDate`; a client
 * `ValidationError` for criteria that are not valid.
 *
 * @since 0.3.0
 * @category utils
 */
export const criteriaKey = (criteria: Criteria): Either.Either<string, ValidationError> =>
  Either.map(readCriteria(criteria), ({ json }) => keyOf(json))

const keyOf = (json: string) => createHash("sha256").update(json).digest("hex").slice(0, 32)

const encodeDesign = Schema.encodeEither(Design)

/**
 * A design as the `record` column holds it: its wire form as JSON, exactly as
 * `design-search get --json` prints it.
 *
 * @since 0.3.0
 * @category utils
 */
export const recordOf = (design: Design): Either.Either<string, UnexpectedResponseError> => {
  const unwritable = (why: string) =>
    new UnexpectedResponseError({ status: 200, excerpt: "", issue: `design ${design.number} cannot be stored: ${why}` })
  return Either.flatMap(
    Either.mapLeft(encodeDesign(design), () => unwritable("it does not fit the Design schema")),
    (encoded) => Either.try({ try: () => JSON.stringify(encoded), catch: () => unwritable("it is nested too deeply") })
  )
}

const dayOf = (millis: number): string => DateTime.formatIso(DateTime.unsafeMake(millis)).slice(0, 10)

/** One of the run's results: a design fetched, or a number the service no longer finds. */
type Fetched = Either.Either<Design, DesignNumber>

/**
 * Builds the mirror over the ambient `SqlClient` and `DesignSearchClient`, creating or migrating its
 * tables first. Fails with `MirrorDatabaseError` if they cannot be.
 *
 * @since 0.3.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Service, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> =>
  Effect.gen(function*() {
    const batchSize = options.batchSize ?? maxPageSize
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
      return yield* new MirrorDatabaseError({ detail: `batchSize must be an integer from 1 to 1000, got ${batchSize}` })
    }
    const client = yield* DesignSearchClient
    yield* Effect.mapError(Tables.migrate, databaseError("creating the mirror's tables"))
    const tables = yield* Tables.make
    const db = <A, R>(doing: string, effect: Effect.Effect<A, SqlError, R>) =>
      Effect.mapError(effect, databaseError(doing))

    const sync = (criteria: Criteria, syncOptions?: SyncOptions) =>
      Effect.gen(function*() {
        // Read and checked once, before anything is written or sent.
        const { json, search } = yield* readCriteria(criteria)
        const { concurrency, onProgress: told } = yield* readOptions(syncOptions)
        const onProgress = (progress: { readonly expected: number; readonly committed: number }) =>
          Effect.suspend(() => told(progress))
        const key = keyOf(json)
        const now = yield* Clock.currentTimeMillis
        const at = DateTime.formatIso(DateTime.unsafeMake(now))
        const stored = yield* db("reading the sync state", tables.syncRow(key))
        const previous = Option.getOrUndefined(stored)
        const resumed = previous !== undefined && previous.run_day !== null
        const run: SyncRow = previous !== undefined && previous.run_day !== null
          ? previous
          : {
            criteria_key: key,
            criteria: json,
            watermark: previous?.watermark ?? null,
            run_day: dayOf(now),
            run_since: previous?.watermark ?? null,
            run_position: 0,
            updated_at: at
          }
        if (!resumed) yield* db("starting the run", tables.putSyncRow(run))
        const since = run.run_since ?? undefined
        const tally = {
          searched: 0,
          matching: 0,
          fetched: 0,
          inserted: 0,
          updated: 0,
          unchanged: 0,
          noLongerMatching: 0,
          notFound: 0,
          requests: 0
        }
        /** Why the run did not get every design it was told of, if it did not. */
        let short: string | undefined

        /** One per number, the last received kept: no statement may name a number twice. */
        const distinct = (batch: ReadonlyArray<Fetched>) => {
          const designs = new Map<string, Design>()
          for (const f of batch) if (Either.isRight(f)) designs.set(f.right.number, f.right)
          const gone = [...new Set(batch.flatMap((f) => Either.isLeft(f) ? [f.left] : []))]
          // a design received under a number beats a 404 for it: the service holds it
          return { designs: [...designs.values()], gone: gone.filter((n) => !designs.has(n)) }
        }

        /** Writes the rows of `batch` that differ from what is stored, and marks the numbers not found. */
        const write = (batch: ReadonlyArray<Fetched>) =>
          Effect.gen(function*() {
            const { designs, gone } = distinct(batch)
            const rows: Array<DesignRow> = []
            for (const design of designs) {
              const encoded = yield* recordOf(design)
              rows.push({
                number: design.number,
                record: encoded,
                last_changed: design.lastChanged === undefined ? null : DateTime.formatIso(design.lastChanged),
                synced_at: at,
                criteria_key: key,
                state: "current"
              })
            }
            const before = yield* db("reading designs", tables.existing(rows.map((r) => r.number)))
            const changed = rows.filter((row) => {
              const old = before.get(row.number)
              if (old === undefined) return (tally.inserted++, true)
              if (old.record === row.record && old.state === "current" && old.criteria_key === key) {
                return (tally.unchanged++, false)
              }
              return (tally.updated++, true)
            })
            tally.fetched += designs.length
            tally.notFound += gone.length
            return { changed, gone }
          })

        /** Commits a batch with the run's new position, in one transaction that is not cut short. */
        const commit = (batch: ReadonlyArray<Fetched>, position: number) =>
          Effect.uninterruptible(Effect.flatMap(write(batch), ({ changed, gone }) =>
            db(
              "writing designs",
              tables.transaction(Effect.all([
                tables.upsert(changed),
                tables.mark(gone, "not_found", at),
                tables.setPosition(key, position, at)
              ], { discard: true }))
            )))

        /** Runs `fetched` from `position` on, a transaction a batch. */
        const store = (fetched: Stream.Stream<Fetched, SyncError>, position: number) =>
          Effect.asVoid(Stream.runFoldEffect(
            Stream.grouped(fetched, batchSize),
            position,
            (done, chunk) => {
              const batch = Chunk.toReadonlyArray(chunk)
              const next = done + batch.length
              return Effect.as(
                Effect.zipRight(commit(batch, next), onProgress({ expected: tally.searched, committed: next })),
                next
              )
            }
          ))

        const getOne = (n: DesignNumber): Effect.Effect<Fetched, SyncError> =>
          Effect.catchIf(
            Effect.map(client.getDesign(n), (r) => Either.right(r.data)),
            (e): e is NotFoundError => e._tag === "NotFoundError",
            () => Effect.succeed(Either.left(n))
          )

        const fetchByQuery = (request: QuickSearchRequest) =>
          Effect.gen(function*() {
            const { data } = yield* client.quickSearch({
              ...request,
              ...(since === undefined ? {} : { changedSinceDate: since })
            })
            tally.requests++
            tally.searched = data.count
            const numbers = [...new Set(data.designNumbers)]
            if (numbers.length < data.count) {
              short = `the search counted ${data.count} designs and listed ${numbers.length}`
            }
            yield* onProgress({ expected: data.count, committed: run.run_position })
            const todo = numbers.slice(run.run_position)
            tally.requests += todo.length
            yield* store(Stream.mapEffect(Stream.fromIterable(todo), getOne, { concurrency }), run.run_position)
          })

        const fetchByCriteria = (request: AdvancedSearchRequest) => {
          // A stopped run goes on from the page of its first uncommitted design: at worst it
          // fetches again what it had (the upsert makes that harmless), never skips.
          const startPage = Math.floor(run.run_position / maxPageSize)
          let told = false
          let received = 0
          const notFound: Array<Fetched> = []
          const designs = client.advancedDesigns(
            { ...request, ...(since === undefined ? {} : { changedSinceDate: since }) },
            {
              startPage,
              concurrency,
              onPage: (page) =>
                Effect.suspend(() => {
                  const fewer = page.messages.find((m) => m.code === fewerThanCounted)
                  if (fewer !== undefined && short === undefined) short = fewer.detail ?? "fewer designs than counted"
                  tally.requests += page.fallback ? page.designs : 1
                  if (told) return Effect.void
                  told = true
                  if (page.fallback) tally.requests++
                  tally.searched = page.count
                  return onProgress({ expected: page.count, committed: startPage * maxPageSize })
                }),
              onNotFound: (n) => Effect.sync(() => void notFound.push(Either.left(n)))
            }
          )
          return Effect.zipRight(
            store(
              Stream.concat(
                Stream.map(designs, (d): Fetched => (received++, Either.right(d))),
                Stream.suspend(() => Stream.fromIterable(notFound))
              ),
              startPage * maxPageSize
            ),
            // Designs the results moved onto a page already read are missed too, warned of or not.
            Effect.sync(() => {
              const got = startPage * maxPageSize + received + notFound.length
              if (short === undefined && got < tally.searched) {
                short = `the search counted ${tally.searched} designs and ${got} were received`
              }
            })
          )
        }

        yield* search._tag === "quick" ? fetchByQuery(search.request) : fetchByCriteria(search.request)

        // One search lists the designs matching now: the current rows it no longer lists are marked,
        // and any listed design without a row, or whose row no longer matched, is got (one the run
        // skipped, or one that matches again without having changed).
        const listing = search._tag === "quick"
          ? yield* client.quickSearch(search.request)
          : yield* client.advancedSearch(search.request)
        tally.requests++
        const listed = listing.data.designNumbers
        tally.matching = listing.data.count
        // A listing the service cut short proves nothing about the designs it left out.
        if (listed.length >= listing.data.count) {
          const listedSet = new Set<string>(listed)
          const current = new Set(yield* db("reading designs", tables.currentFor(key)))
          const dropped = [...current].filter((n) => !listedSet.has(n))
          const unknown = [...new Set(listed)].filter((n) => !current.has(n))
          const rows = yield* db("reading designs", tables.existing(unknown))
          // A row the service answered 404 for stays so until a search reports the design changed.
          const missing = unknown.filter((n) => {
            const state = rows.get(n)?.state
            return state === undefined || state === "no_longer_matching"
          })
          tally.requests += missing.length
          const got = yield* Effect.forEach(missing, getOne, { concurrency })
          const { changed, gone } = yield* write(got)
          yield* Effect.uninterruptible(db(
            "writing designs",
            tables.transaction(Effect.all([
              tables.upsert(changed),
              tables.mark(gone, "not_found", at),
              tables.mark(dropped, "no_longer_matching", at)
            ], { discard: true }))
          ))
          tally.noLongerMatching = dropped.length
        }

        // A run short of designs ends with the watermark where it was: the next asks again since then.
        const watermark = short === undefined ? run.run_day ?? dayOf(now) : run.watermark
        yield* db(
          "finishing the run",
          tables.putSyncRow({
            criteria_key: key,
            criteria: json,
            watermark,
            run_day: null,
            run_since: null,
            run_position: 0,
            updated_at: DateTime.formatIso(DateTime.unsafeMake(yield* Clock.currentTimeMillis))
          })
        )
        if (short !== undefined) {
          return yield* new IncompleteSyncError({ criteriaKey: key, detail: short, fetched: tally.fetched, watermark })
        }
        return {
          criteriaKey: key,
          watermark: watermark ?? dayOf(now),
          full: since === undefined,
          resumed,
          changedSince: since,
          ...tally
        } satisfies SyncReport
      })

    const state = (criteria: Criteria) =>
      Either.match(criteriaKey(criteria), {
        onLeft: () => Effect.succeed(Option.none<SyncState>()),
        onRight: (key) =>
          Effect.map(
            db("reading the sync state", tables.syncRow(key)),
            Option.map((row): SyncState => ({
              criteriaKey: row.criteria_key,
              criteria: row.criteria,
              watermark: Option.fromNullable(row.watermark),
              inProgress: row.run_day !== null
            }))
          )
      })

    return { sync, state } satisfies Service
  })

/**
 * The mirror over the ambient `SqlClient` and `DesignSearchClient`; building it creates or migrates
 * the tables.
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<DesignMirror, MirrorDatabaseError, SqlClient.SqlClient | DesignSearchClient> =>
  Layer.effect(DesignMirror, make(options))

/** A driver, imported when first needed, or the error naming the package to install. */
const loadDriver = <A>(packageName: string, load: () => Promise<A>) =>
  Effect.tryPromise({ try: load, catch: () => new SqlDriverMissingError({ packageName }) })

/** Checks that the database answers, so that an unreachable one fails the layer, not the first sync. */
const reachable = (client: SqlClient.SqlClient, what: string) =>
  Effect.as(Effect.mapError(client`SELECT 1`, databaseError(`connecting to ${what}`)), client)

/**
 * Options of `layerSqlite`.
 *
 * @since 0.3.0
 * @category options
 */
export interface SqliteOptions {
  /** `file:PATH` (the file is created when absent), `libsql://…`, `http(s)://…` or `ws(s)://…` for a libSQL server. */
  readonly url: string
  /** The libSQL server's token, if it wants one. */
  readonly authToken?: Redacted.Redacted | undefined
}

const libsqlSchemes = new Set(["file:", "libsql:", "http:", "https:", "ws:", "wss:"])

/**
 * A `SqlClient` on SQLite through `@effect/sql-libsql`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` for a URL that is
 * not libSQL's or a database that cannot be opened or reached.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerSqlite = (
  options: SqliteOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const scheme = Either.getOrUndefined(Either.try(() => new URL(options.url).protocol))
      if (scheme === undefined || !libsqlSchemes.has(scheme)) {
        return yield* new MirrorDatabaseError({
          detail: "a SQLite database is named by a file: URL, or libsql:, http(s): or ws(s): for a libSQL server"
        })
      }
      const { LibsqlClient } = yield* loadDriver("@effect/sql-libsql", () => import("@effect/sql-libsql"))
      const client = yield* LibsqlClient.make({
        url: options.url,
        ...(options.authToken === undefined ? {} : { authToken: options.authToken })
      }).pipe(
        // the driver opens a local file as it is made, and throws if it cannot
        Effect.catchAllDefect((defect) =>
          Effect.fail(databaseError("opening the SQLite database")({ message: "cannot open", cause: defect }))
        )
      )
      return yield* reachable(client, "the SQLite database")
    })
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * Options of `layerPostgres`.
 *
 * @since 0.3.0
 * @category options
 */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`; redacted, as it may hold a password. */
  readonly url: Redacted.Redacted | string
  /** How long to wait for a connection (default 5 seconds). */
  readonly connectTimeoutMillis?: number | undefined
}

/**
 * A `SqlClient` on PostgreSQL through `@effect/sql-pg`, imported when the layer is built. Fails with
 * `SqlDriverMissingError` if the driver is not installed, `MirrorDatabaseError` if the server
 * cannot be reached or refuses the connection.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerPostgres = (
  options: PostgresOptions
): Layer.Layer<SqlClient.SqlClient, SqlDriverMissingError | MirrorDatabaseError> =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const { PgClient } = yield* loadDriver("@effect/sql-pg", () => import("@effect/sql-pg"))
      const client = yield* PgClient.make({
        url: Redacted.isRedacted(options.url) ? options.url : Redacted.make(options.url),
        connectTimeout: options.connectTimeoutMillis ?? 5000
      }).pipe(
        Effect.mapError(databaseError("connecting to PostgreSQL")),
        Effect.catchAllDefect((defect) =>
          Effect.fail(databaseError("connecting to PostgreSQL")({ message: "bad connection URL", cause: defect }))
        )
      )
      return yield* reachable(client, "PostgreSQL")
    })
  ).pipe(Layer.provide(Reactivity.layer))
