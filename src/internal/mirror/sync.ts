/**
 * One run of `sync`, in phases: plan (the criteria checked, the run started or taken up again),
 * fetch (the designs of the run's search, from the client's streams), commit (a batch at a time,
 * with the run's position), reconcile (one search lists what matches now: rows it no longer lists
 * are marked, listed designs without a current row fetched), finish (the watermark, the report).
 * Designs pass through in batches, and the listing is compared with the rows by SQL: a run holds no
 * design past its batch, and no set of the numbers it listed (docs/mirror.md).
 */
import { SqlClient } from "#edition/internal/mirror/engines"
import { dateTimeUnsafe, fromNullable, fromResult, paginate } from "#edition/internal/seam"
import { Clock, DateTime, Effect, Option, Stream } from "effect"
import { columnsOf, criteriaKeyOf, differences, parsed } from "../../core/mirror/mirror.js"
import type { ChangeRow, DesignRows } from "../../core/mirror/mirror.js"
import type { AdvancedSearchRequest, Design, DesignNumber, QuickSearchRequest } from "../../Designs.js"
import { maxPageSize } from "../../Designs.js"
import type { Service as Client } from "../../DesignSearchClient.js"
import { DesignSearchClient, fewerThanCounted } from "../../DesignSearchClient.js"
import * as Paged from "../client/paged.js"
import type { Search } from "./criteria.js"
import { criteriaKey, encodedOf, readChangesOptions, readCriteria, readOptions } from "./criteria.js"
import { databaseError, IncompleteSyncError, MirrorDatabaseError } from "./model.js"
import type { ChangesOptions, Criteria, SyncError, SyncOptions, SyncReport, SyncState } from "./model.js"
import { exclusively, migrateLocked, retryLocked, schemaOf } from "./sharing.js"
import type { SyncRow, Tables } from "./tables.js"
import { changes as readChanges, make as makeTables, migrate } from "./tables.js"

/** What every run uses: the client, the statements, and the designs a batch holds. */
type Deps = { readonly client: Client; readonly tables: Tables; readonly batchSize: number }

/** A run's counts before it starts: of requests and designs, then of rows. */
const rowsNoneYet = { inserted: 0, updated: 0, unchanged: 0, noLongerMatching: 0, notFound: 0 }
const noneYet = { searched: 0, matching: 0, fetched: 0, requests: 0, ...rowsNoneYet }

const db = <A, E extends { readonly message: string; readonly cause?: unknown }, R>(
  doing: string,
  effect: Effect.Effect<A, E, R>
) => Effect.mapError(retryLocked(effect), databaseError(doing))

const iso = (millis: number) => DateTime.formatIso(dateTimeUnsafe(millis))

/** Plan: the criteria and options checked before anything is written or sent, the run started or resumed. */
const plan = (deps: Deps, criteria: unknown, options: unknown) =>
  Effect.gen(function*() {
    const { json, search } = yield* fromResult(readCriteria(criteria))
    const { concurrency, history, onProgress } = yield* fromResult(readOptions(options))
    const key = criteriaKeyOf(json)
    const previous = Option.getOrUndefined(yield* db("reading the sync state", deps.tables.syncRow(key)))
    const resumed = previous !== undefined && previous.run_day !== null
    // A resumed run keeps its first start: what it wrote before is of the same run, once.
    const at = resumed && previous.run_at !== null
      ? new Date(previous.run_at).toISOString()
      : iso(yield* Clock.currentTimeMillis)
    const row: SyncRow = previous !== undefined && resumed ? previous : {
      criteria_key: key,
      criteria: json,
      watermark: previous?.watermark ?? null,
      run_day: at.slice(0, 10),
      run_since: previous?.watermark ?? null,
      run_position: 0,
      updated_at: at,
      last_run_at: previous?.last_run_at ?? null,
      run_at: at
    }
    if (!resumed) yield* db("starting the run", deps.tables.putSyncRow(row))
    const since = row.run_since ?? undefined
    // `search`, whose listing reconciles the rows: every design matching now.
    const asked = { ...deps, key, json, at, row, resumed, since, search, concurrency, history, onProgress }
    return {
      ...asked,
      /** The run's search, asking for the designs changed since the watermark where there is one. */
      changed: {
        _tag: search._tag,
        request: { ...search.request, ...(since && { changedSinceDate: since }) }
      } as Search,
      tally: { ...noneYet },
      /** Numbers the service answered 404 for, not yet committed. */
      gone: [] as Array<DesignNumber>,
      /** Why the run did not get every design it was told of, if it did not. */
      short: undefined as string | undefined
    }
  })

/** One run as it goes: what it was asked, where it stands, and what it has done so far. */
type Run = ReturnType<typeof plan> extends Effect.Effect<infer A, infer _E, infer _R> ? A : never

/**
 * The designs of `numbers`, a `getDesign` each, through the client's one "then get each"; a number
 * the service answers 404 for joins `run.gone`.
 */
const getEach = <R>(run: Run, numbers: Stream.Stream<DesignNumber, SyncError, R>) =>
  Stream.filter(
    Paged.getEach(numbers, (n) =>
      run.client.getDesign(n).pipe(
        Effect.map((r): Design | undefined => r.data),
        Effect.catchTag("NotFoundError", () => Effect.sync(() => void run.gone.push(n))),
        Effect.ensuring(Effect.sync(() => run.tally.requests++))
      ), run.concurrency),
    (design): design is Design => design !== undefined
  )

/** Fetch, for a quick search: the search, then a get each from the run's position on. */
const fetchQuick = (run: Run, request: QuickSearchRequest) =>
  Stream.unwrap(Effect.gen(function*() {
    const { data } = yield* run.client.quickSearch(request)
    run.tally.requests++
    run.tally.searched = data.count
    const numbers = [...new Set(data.designNumbers)]
    if (numbers.length < data.count) {
      run.short ??= `the search counted ${data.count} designs and listed ${numbers.length}`
    }
    yield* run.onProgress({ expected: data.count, committed: run.row.run_position })
    return getEach(run, Stream.fromIterable(numbers.slice(run.row.run_position)))
  }))

/**
 * Fetch, for an advanced search: `advancedDesigns` from the page of the first uncommitted design
 * (at worst it fetches again what was committed, never skips), told of each page.
 */
const fetchAdvanced = (run: Run, request: AdvancedSearchRequest, startPage: number) => {
  let received = 0
  let notFound = 0
  const designs = run.client.advancedDesigns(request, {
    startPage,
    concurrency: run.concurrency,
    onPage: (page) =>
      Effect.suspend(() => {
        const fewer = page.messages.find((m) => m.code === fewerThanCounted)
        if (fewer !== undefined) run.short ??= fewer.detail ?? "fewer designs than counted"
        run.tally.requests += page.fallback ? page.designs : 1
        if (page.pageNumber !== startPage) return Effect.void
        if (page.fallback) run.tally.requests++
        run.tally.searched = page.count
        return run.onProgress({ expected: page.count, committed: startPage * maxPageSize })
      }),
    onNotFound: (n) => Effect.sync(() => (notFound++, run.gone.push(n)))
  })
  // Designs the results moved onto a page already read are missed too, warned of or not.
  const check = Effect.sync(() => {
    const got = startPage * maxPageSize + received + notFound
    const { searched } = run.tally
    if (got < searched) run.short ??= `the search counted ${searched} designs and ${got} were received`
  })
  // Counted without an effect: a tap would run one, and emit a chunk, for each design.
  const counted = Stream.map(designs, (design) => (received++, design))
  return Stream.concat(counted, Stream.drain(Stream.fromEffect(check)))
}

/**
 * The rows of a batch that differ from what is stored, one per number (the last received: a get
 * may answer with another number than asked), with the changes they make, and the numbers not
 * found that no design of the batch answers for.
 */
const rowsToWrite = (run: Run, batch: ReadonlyArray<Design>, gone: ReadonlyArray<DesignNumber>) =>
  Effect.gen(function*() {
    const designs = new Map(batch.map((d) => [d.number as string, d]))
    const before = yield* db("reading designs", run.tables.existing([...designs.keys()]))
    const t = run.tally
    const changed: Array<DesignRows> = []
    const changes: Array<ChangeRow> = []
    const change = (number: string, kind: ChangeRow["kind"], fields: object | null = null) =>
      changes.push({ number, synced_at: run.at, kind, fields: fields && JSON.stringify(fields) })
    for (const design of designs.values()) {
      const { encoded, record } = yield* fromResult(encodedOf(design))
      const old = before.get(design.number)
      const fields = old === undefined || old.record === record ? {} : differences(parsed(old.record), encoded)
      const same = Object.keys(fields).length === 0
      if (old === undefined) change(design.number, "new")
      else if (old.state !== "current") change(design.number, "matching_again")
      if (!same) change(design.number, "changed", fields)
      if (same && old?.state === "current" && old.criteria_key === run.key) {
        t.unchanged++
        continue
      }
      if (old === undefined) t.inserted++
      else t.updated++
      changed.push(columnsOf(encoded, record, { synced_at: run.at, criteria_key: run.key, state: "current" }))
    }
    const notFound = [...new Set(gone)].filter((n) => !designs.has(n))
    t.fetched += designs.size
    t.notFound += notFound.length
    return { changed, changes: run.history ? changes : [], notFound }
  })

/**
 * Commit: `designs` a batch at a time, each with the numbers not found so far and, for the
 * run's own search (`from` given), its new position, then the progress. A last empty batch commits
 * the numbers not found after the last design.
 */
const commit = <R>(run: Run, designs: Stream.Stream<Design, SyncError, R>, from?: number) =>
  Effect.suspend(() => {
    let done = from ?? 0
    const batches = Stream.map(Stream.grouped(designs, run.batchSize), (batch) => Array.from(batch))
    return Stream.runForEach(
      Stream.concat(batches, Stream.succeed<ReadonlyArray<Design>>([])),
      (batch) =>
        Effect.gen(function*() {
          if (batch.length === 0 && run.gone.length === 0) return
          const { changed, changes, notFound } = yield* rowsToWrite(run, batch, run.gone.splice(0))
          const next = done + batch.length
          const { tables } = run
          // Statements, not a transaction (libSQL opens a connection for each one, freed only by the GC):
          // each is atomic, and the position moves only once the rows it counts are in.
          yield* Effect.uninterruptible(db(
            "writing designs",
            Effect.all([
              // History first: a stopped write is written again, its change kept once (the run keeps its start).
              tables.recordChanges(changes),
              tables.writeDesigns(changed),
              tables.notFound(notFound, run.at, run.history),
              from === undefined
                ? Effect.void
                : tables.putSyncRow({ ...run.row, run_position: next, updated_at: run.at })
            ], { discard: true })
          ))
          if (from !== undefined) yield* run.onProgress({ expected: run.tally.searched, committed: next })
          done = next
        })
    )
  })

/** Listed numbers written or read at once. */
const listingChunk = 1000

/**
 * The listing: one search lists the designs matching now, and its numbers are written to
 * `design_listing` a chunk at a time. Tells whether it is whole: a listing the service cut short
 * proves nothing about the designs it left out.
 */
const list = (run: Run) =>
  Effect.gen(function*() {
    const { search } = run
    const listing = search._tag === "quick"
      ? yield* run.client.quickSearch(search.request)
      : yield* run.client.advancedSearch(search.request)
    const { count, designNumbers } = listing.data
    run.tally.requests++
    run.tally.matching = count
    if (designNumbers.length < count) return false
    yield* db("writing the listing", run.tables.clearListing(run.key))
    // Sliced, not `Arr.chunksOf`, which copies the rest of the listing at every chunk.
    for (let i = 0; i < designNumbers.length; i += listingChunk) {
      yield* db("writing the listing", run.tables.list(run.key, designNumbers.slice(i, i + listingChunk)))
    }
    return true
  })

/**
 * Reconcile: SQL compares the listing with the rows. The current rows of the criteria it leaves
 * out are marked no longer matching; then a listed design without a row, or whose row no longer
 * matched, is got (one the run skipped, or one that matches again without having changed). A row
 * the service answered 404 for stays so until a search reports the design changed.
 */
const reconcile = (run: Run) =>
  Effect.gen(function*() {
    if (!(yield* list(run))) return
    const { tables } = run
    run.tally.noLongerMatching = yield* db("writing designs", tables.unlisted(run.key, run.at, run.history))
    const missing = paginate("", (after) =>
      Effect.map(db("reading designs", tables.listedToGet(run.key, after, listingChunk)), (listed) =>
        [listed, fromNullable(listed.at(-1))] as const))
    // The listing is kept until the next: the designs the criteria match, which watches follow.
    yield* commit(run, getEach(run, missing))
  })

/** Finish: the watermark moves to the run's day, unless the run was short of designs; the report. */
const finish = (run: Run) =>
  Effect.gen(function*() {
    const watermark = run.short === undefined ? run.row.run_day ?? run.at.slice(0, 10) : run.row.watermark
    const ended = { run_day: null, run_since: null, run_position: 0, run_at: null }
    const updated_at = iso(yield* Clock.currentTimeMillis)
    const last_run_at = run.short === undefined ? run.at : run.row.last_run_at
    yield* db("finishing the run", run.tables.putSyncRow({ ...run.row, watermark, ...ended, updated_at, last_run_at }))
    if (run.short !== undefined) {
      const { fetched } = run.tally
      return yield* new IncompleteSyncError({ criteriaKey: run.key, detail: run.short, fetched, watermark })
    }
    return {
      criteriaKey: run.key,
      watermark: watermark ?? run.at.slice(0, 10),
      full: run.since === undefined,
      resumed: run.resumed,
      changedSince: run.since,
      ...run.tally
    } satisfies SyncReport
  })

/** One run of `sync`, phase by phase. */
export const sync = (deps: Deps, criteria: unknown, options: unknown) =>
  Effect.gen(function*() {
    const run = yield* plan(deps, criteria, options)
    const { changed } = run
    if (changed._tag === "quick") {
      yield* commit(run, fetchQuick(run, changed.request), run.row.run_position)
    } else {
      const startPage = Math.floor(run.row.run_position / maxPageSize)
      yield* commit(run, fetchAdvanced(run, changed.request, startPage), startPage * maxPageSize)
    }
    yield* reconcile(run)
    return yield* finish(run)
  })

/** The mirror over the ambient `SqlClient` and `DesignSearchClient`, its tables created or migrated first. */
export const make = (options: { readonly batchSize?: number | undefined; readonly schema?: string | undefined }) =>
  Effect.gen(function*() {
    // read here, not in the signature: library code does not throw, even on `make(null)`
    const { batchSize = 100, schema } = options ?? {}
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
      return yield* new MirrorDatabaseError({ detail: `batchSize must be an integer from 1 to 1000, got ${batchSize}` })
    }
    const client = yield* DesignSearchClient
    const tablesSchema = yield* schemaOf(schema)
    yield* migrateLocked(tablesSchema, migrate(tablesSchema))
    const sql = yield* SqlClient.SqlClient
    // A SQLite file in WAL: a batch commits without waiting for the disk, and readers do not hold up a sync.
    const wal = sql.onDialectOrElse({ sqlite: () => sql`PRAGMA journal_mode = WAL`, orElse: () => Effect.succeed([]) })
    const [mode] = yield* Effect.orElseSucceed(retryLocked(wal), () => [])
    if (mode?.journal_mode === "wal") yield* Effect.ignore(sql`PRAGMA synchronous = NORMAL`)
    const deps: Deps = { client, tables: yield* makeTables(tablesSchema), batchSize }
    // criteria `sync` refuses are refused here too, not answered "never synced"
    const state = (criteria: Criteria) =>
      Effect.flatMap(fromResult(criteriaKey(criteria)), (key) =>
        Effect.map(
          db("reading the sync state", deps.tables.syncRow(key)),
          Option.map((row): SyncState => ({
            criteriaKey: row.criteria_key,
            criteria: row.criteria,
            watermark: fromNullable(row.watermark),
            inProgress: row.run_day !== null
          }))
        ))
    const exclusive = yield* exclusively(tablesSchema)
    return {
      sync: (criteria: Criteria, options?: SyncOptions) =>
        exclusive(Effect.provideService(sync(deps, criteria, options), SqlClient.SqlClient, sql)),
      state: (criteria: Criteria) => Effect.provideService(state(criteria), SqlClient.SqlClient, sql),
      changes: (options?: ChangesOptions) =>
        Stream.provideService(
          Stream.unwrap(Effect.map(fromResult(readChangesOptions(options)), (o) => readChanges(tablesSchema, o))),
          SqlClient.SqlClient,
          sql
        )
    }
  })

/** The changes the mirror over the ambient `SqlClient` holds, its tables in `schema` (on PostgreSQL). */
export const changes = (options: ChangesOptions & { readonly schema?: string | undefined }) =>
  Stream.unwrap(Effect.gen(function*() {
    const checked = yield* fromResult(readChangesOptions(options))
    // an object, or nothing, once checked
    const schema = yield* schemaOf((options as { readonly schema?: unknown } | undefined)?.schema)
    return readChanges(schema, checked)
  }))
