/**
 * The parity table (`test/parity/cases.ts`) run against the suite's edition: the same table, the
 * same runners, under Effect 3 and under Effect 4. Each case is its own test, on its own sandbox,
 * client and clock. Beside the table's own expectations, the sandbox's answers and every field of
 * every other outcome are held to the transcripts the Effect 3 edition records
 * (`sandbox-transcript.json`, `outcome-transcript.json`; `npm run parity:record` writes them afresh):
 * both editions answer alike, request for request.
 */
import { exitInterrupted, forkChild, HttpServerRequest, HttpServerResponse, Result } from "#edition/internal/seam"
import { scheduleBoth, toResult, whileInputEffect } from "#edition/internal/seam"
import { edition, failureOption, interruptedOnly, poll, TestClock } from "#test-edition/support/seam"
import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Context, Duration, Effect, Exit, Fiber, Layer, Option, Redacted, Schedule, Scope, Stream } from "effect"
import * as fs from "node:fs"
import { afterAll } from "vitest"
import { make as ownAddress } from "../src/core/sandbox/address.js"
import * as DesignMirror from "../src/DesignMirror.js"
import type { ApiError, Designs } from "../src/index.js"
import { DesignSearchClient, Sandbox, TokenService } from "../src/index.js"
import { withControlRoutes } from "../src/internal/sandbox/ControlRoutes.js"
import type { Call, Case, CaseKind, CaseOf, ConfigSpec, MirrorStep, Outcome } from "./parity/cases.js"
import type { PagingStream, SandboxSpec, SyncOutcome } from "./parity/cases.js"
import { cases, casesOf, expectedSync, kinds, mirrorCriteria, pagingSearches } from "./parity/cases.js"
import { failureOutcome, fullFailure, pickFields, pickRequests, plainFields, since } from "./parity/compare.js"
import { streamFailure } from "./parity/compare.js"
import type { FullOutcome } from "./parity/compare.js"
import * as Raw from "./parity/sandbox-requests.js"
import { clientLayer, sandboxLayer, sandboxStats } from "./support/layers.js"
import { apiRequests, database, dec1, rows as storedRows } from "./support/mirror.js"
import type { Row } from "./support/mirror.js"
import * as Pg from "./support/postgres.js"

const ran = new Set<CaseKind>()

/**
 * The transcripts the Effect 3 edition records (`npm run parity:record`, `PARITY_RECORD=1`) and both
 * editions are held to: the sandbox's answers, and every field of each outcome of the other cases
 * (the counters at each check of the token economy).
 */
const recordingTranscripts = edition === 3 && process.env["PARITY_RECORD"] === "1"
const sandboxTranscript = "sandbox-transcript.json"
const outcomeTranscript = "outcome-transcript.json"
const transcriptUrl = (name: string) => new URL(`./parity/${name}`, import.meta.url)
const readTranscript = <A>(name: string): Readonly<Record<string, A>> =>
  fs.existsSync(transcriptUrl(name)) ? JSON.parse(fs.readFileSync(transcriptUrl(name), "utf8")) : {}
const committedAnswers = readTranscript<ReadonlyArray<Raw.Answer>>(sandboxTranscript)
const committedOutcomes = readTranscript<ReadonlyArray<FullOutcome>>(outcomeTranscript)
const answered: Record<string, ReadonlyArray<Raw.Answer>> = {}
const outcomesOf: Record<string, ReadonlyArray<FullOutcome>> = {}
const outOfDate = (name: string) =>
  edition === 3
    ? `test/parity/${name} is out of date with the Effect 3 edition: run \`npm run parity:record\` and review the difference`
    : `the Effect 4 edition answers otherwise than the Effect 3 edition's test/parity/${name}`

const sandboxOptions = (spec: SandboxSpec = {}): Sandbox.Options => ({
  ...(spec.designs === undefined ? {} : { designs: spec.designs }),
  ...(spec.resultCap === undefined ? {} : { resultCap: spec.resultCap }),
  ...(spec.tokenLifetimeSeconds === undefined ? {} : { tokenLifetime: Duration.seconds(spec.tokenLifetimeSeconds) })
})

const configOptions = (spec: ConfigSpec = {}) => ({
  ...(spec.clientSecret === undefined ? {} : { clientSecret: spec.clientSecret }),
  ...(spec.maxBodyBytes === undefined ? {} : { maxBodyBytes: spec.maxBodyBytes }),
  ...(spec.refreshBeforeMs === undefined ? {} : { refreshBefore: Duration.millis(spec.refreshBeforeMs) }),
  ...(spec.expirySkewMs === undefined ? {} : { expirySkew: Duration.millis(spec.expirySkewMs) })
})

const millis = (u: unknown) => (Duration.isDuration(u) ? Duration.toMillis(u) : undefined)

/** Records a case's outcomes, or holds them to those recorded. */
const holdOutcomes = (name: string, outcomes: ReadonlyArray<FullOutcome>) => {
  if (recordingTranscripts) outcomesOf[name] = outcomes
  else expect(outcomes, outOfDate(outcomeTranscript)).toEqual(committedOutcomes[name])
}

/** A call's outcome as the outcome transcript holds it: every field of a failure. */
const fullOutcomeOf = <A>(exit: Exit.Exit<A, unknown>, value: (a: A) => unknown): FullOutcome =>
  Exit.match(exit, {
    onSuccess: (a) => ({ Success: value(a) }),
    onFailure: (cause) =>
      Option.match(failureOption(cause), {
        onNone: () => (interruptedOnly(cause) ? { interrupted: true } : { defect: Cause.pretty(cause) }),
        onSome: (error) => fullFailure(error, millis)
      })
  })

/** A call's outcome as the table writes it. */
const outcomeOf = <A>(exit: Exit.Exit<A, unknown>, expected: Outcome, value: (a: A) => string): Outcome =>
  Exit.match(exit, {
    onSuccess: (a) => ({ _tag: "Success", value: value(a) }),
    onFailure: (cause) =>
      Option.match(failureOption(cause), {
        onNone: () => ({ _tag: `defect: ${Cause.pretty(cause)}` }),
        onSome: (error) => failureOutcome(error, expected, millis)
      })
  })

/** A call, and what it gave as the table writes it. */
const runCall = (call: Call) =>
  Effect.gen(function*() {
    const client = DesignSearchClient.DesignSearchClient
    switch (call.op) {
      case "token":
        return (yield* (yield* TokenService.TokenService).get).tokenType
      case "getDesign":
        return (yield* (yield* client).getDesign(call.number)).data.number
      case "quickSearch":
        return (yield* (yield* client).quickSearch({ query: call.query })).data.designNumbers.join(",")
      case "advancedSearch":
        return String((yield* (yield* client).advancedSearch(call.request as Designs.AdvancedSearchRequest)).data.count)
      case "searchPage":
        return String((yield* (yield* client).searchPage(call.request as Designs.PageRequest)).data.count)
    }
  })

/** A retry schedule of three retries that records the status of every failure it is stepped with. */
const recording = () => {
  const seen: Array<number> = []
  const record = (e: ApiError.DesignSearchError) =>
    Effect.sync(() => (seen.push("status" in e && typeof e.status === "number" ? e.status : 0), true))
  return { seen, schedule: scheduleBoth(whileInputEffect(Schedule.forever, record), Schedule.recurs(3)) }
}

const runFault = (c: CaseOf<"fault">) => {
  const { schedule, seen } = recording()
  const options = { sandbox: sandboxOptions(c.sandbox), config: configOptions(c.config) }
  const recorded = (of: "token" | "client") => (c.recordRetries === of ? { retrySchedule: schedule } : {})
  const services = Layer.effect(DesignSearchClient.DesignSearchClient, DesignSearchClient.make(recorded("client")))
    .pipe(
      Layer.provideMerge(TokenService.layer(recorded("token"))),
      Layer.provideMerge(sandboxLayer(options))
    )
  return Effect.gen(function*() {
    if (c.startAt !== undefined) yield* TestClock.setTime(c.startAt)
    const control = yield* Sandbox.SandboxControl
    const outcomes: Array<FullOutcome> = []
    for (const [i, step] of c.calls.entries()) {
      for (const fault of step.faults ?? []) yield* control.injectFault(fault)
      if (step.revokeTokens === true) yield* control.revokeTokens
      const fiber = yield* forkChild(Effect.exit(runCall(step.call)))
      for (const [j, s] of (step.steps ?? []).entries()) {
        yield* TestClock.adjust(Duration.millis(s.advanceMs))
        if (s.stillRunning === true) expect(Option.isNone(yield* poll(fiber)), `call ${i}, step ${j}`).toBe(true)
        if (s.requests !== undefined) {
          expect(pickRequests((yield* sandboxStats).requests, s.requests), `call ${i}, step ${j}`).toEqual(s.requests)
        }
      }
      const exit = yield* Fiber.join(fiber)
      expect(outcomeOf(exit, step.outcome, String), `call ${i}`).toEqual(step.outcome)
      outcomes.push(fullOutcomeOf(exit, String))
    }
    holdOutcomes(c.name, outcomes)
    if (c.seen !== undefined) expect(seen).toEqual(c.seen)
    expect(pickRequests((yield* sandboxStats).requests, c.requests)).toEqual(c.requests)
  }).pipe(Effect.provide(services))
}

const runEconomy = (c: CaseOf<"tokenEconomy">) =>
  Effect.gen(function*() {
    // built in a scope of its own, which a step may close
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
    const services = yield* Layer.buildWithScope(
      clientLayer({ sandbox: sandboxOptions(c.sandbox), config: configOptions(c.config) }),
      scope
    )
    const tokens = Context.get(services, TokenService.TokenService)
    const client = Context.get(services, DesignSearchClient.DesignSearchClient)
    const control = Context.get(services, Sandbox.SandboxControl)
    const got: Array<string> = []
    type Got = ReadonlyArray<Exit.Exit<{ readonly token: Redacted.Redacted<string> }, unknown>>
    const keep = (exits: Got) => {
      for (const exit of exits) if (Exit.isSuccess(exit)) got.push(Redacted.value(exit.value.token))
    }
    const getAll = (count: number, concurrent: boolean) =>
      Effect.all(Array.from({ length: count }, () => Effect.exit(tokens.get)), {
        concurrency: concurrent ? "unbounded" : 1
      })
    let joinSpawned: Effect.Effect<Got> = Effect.succeed([])
    const outcomes: Array<FullOutcome> = []
    for (const step of c.steps) {
      switch (step.do) {
        case "get":
          keep(yield* getAll(step.count, step.concurrent))
          break
        case "spawnGets":
          joinSpawned = Fiber.join(
            yield* forkChild(Effect.delay(getAll(step.count, true), Duration.millis(step.afterMs)))
          )
          break
        case "joinGets":
          keep(yield* joinSpawned)
          break
        case "getDesign":
          for (let i = 0; i < step.count; i++) {
            yield* client.getDesign(Sandbox.fixedNumbers.chair)
            if (step.everyMs > 0) yield* TestClock.adjust(Duration.millis(step.everyMs))
          }
          break
        case "advance":
          yield* TestClock.adjust(Duration.millis(step.ms))
          break
        case "closeScope":
          yield* Scope.close(scope, Exit.void)
          break
        case "revokeTokens":
          yield* control.revokeTokens
          break
        case "fault":
          yield* control.injectFault(step.fault)
          break
        case "expect": {
          const stats = yield* control.stats
          const service = yield* tokens.stats
          outcomes.push({ ...stats, service, distinctTokens: new Set(got).size })
          if (step.requests !== undefined) expect(pickRequests(stats.requests, step.requests)).toEqual(step.requests)
          if (step.tokensIssued !== undefined) expect(stats.tokensIssued).toBe(step.tokensIssued)
          if (step.service !== undefined) expect(pickFields(service, step.service)).toEqual(step.service)
          if (step.distinctTokens !== undefined) expect(new Set(got).size).toBe(step.distinctTokens)
          if (step.tokenRequestsBetween !== undefined) {
            const [least, most] = step.tokenRequestsBetween
            expect(stats.requests.token).toBeGreaterThanOrEqual(least)
            expect(stats.requests.token).toBeLessThanOrEqual(most)
          }
        }
      }
    }
    holdOutcomes(c.name, outcomes)
  })

/** What `onPage` was told, held to what a paging stream expects. */
const checkTold = (
  told: ReadonlyArray<DesignSearchClient.PageInfo>,
  expected: NonNullable<PagingStream["told"]>,
  at: string
) => {
  const { firstCodes, firstDetailIncludes, ...every } = expected
  const each = <A>(f: (page: DesignSearchClient.PageInfo) => A) => [...new Set(told.map(f))]
  expect({
    pageNumbers: told.map((p) => p.pageNumber),
    fallback: each((p) => p.fallback),
    pages: each((p) => p.pages),
    count: each((p) => p.count)
  }, at).toEqual({ ...every, fallback: [every.fallback], pages: [every.pages], count: [every.count] })
  if (firstCodes !== undefined) expect(told[0]?.messages.map((m) => m.code), at).toEqual(firstCodes)
  if (firstDetailIncludes !== undefined) expect(told[0]?.messages[0]?.detail, at).toContain(firstDetailIncludes)
}

const runPaging = (c: CaseOf<"paging">) =>
  Effect.gen(function*() {
    const client = yield* DesignSearchClient.DesignSearchClient
    const control = yield* Sandbox.SandboxControl
    const request = pagingSearches[c.search]
    const numbers = (yield* client.advancedSearch(request)).data.designNumbers
    const outcomes: Array<FullOutcome> = []
    for (const [i, stream] of c.streams.entries()) {
      for (const fault of stream.faults ?? []) yield* control.injectFault(fault)
      const before = (yield* control.stats).requests
      const told: Array<DesignSearchClient.PageInfo> = []
      const notFound: Array<string> = []
      const designs = client.advancedDesigns(request, {
        ...stream.options,
        onPage: (page) => Effect.sync(() => void told.push(page)),
        ...(stream.onNotFound === true ? { onNotFound: (n) => Effect.sync(() => void notFound.push(n)) } : {})
      })
      const exit = yield* Effect.exit(Stream.runCollect(designs))
      outcomes.push({ told: JSON.parse(JSON.stringify(told)), end: fullOutcomeOf(exit, (d) => d.length) })
      const result = yield* toResult(exit)
      const emitted = Result.map(result, (d) => Array.from(d, (design) => design.number))
      const { outcome } = stream
      if (outcome._tag === "Success" && "count" in outcome) {
        const from = outcome.from ?? 0
        const missing = outcome.notFound ?? 0
        expect(emitted, `stream ${i}`).toEqual(Result.succeed(numbers.slice(from + missing)))
        expect(numbers.slice(from + missing)).toHaveLength(outcome.count)
        expect(notFound).toEqual(numbers.slice(from, from + missing))
      } else {
        const failure = Result.match(result, { onFailure: (e): unknown => e, onSuccess: () => undefined })
        expect(streamFailure(failure, outcome), `stream ${i}`).toEqual(outcome)
      }
      const { token: _, ...requests } = since((yield* control.stats).requests, before)
      expect(requests, `stream ${i}`).toEqual(stream.requests)
      if (stream.told !== undefined) checkTold(told, stream.told, `stream ${i}`)
    }
    holdOutcomes(c.name, outcomes)
  }).pipe(Effect.provide(clientLayer({
    sandbox: sandboxOptions(c.sandbox),
    ...(c.noRetry ? { client: { retrySchedule: Schedule.recurs(0) } } : {})
  })))

/** A sync step of a mirror case: its faults, the sync, its outcome and requests checked; its full outcome. */
const syncStep = (step: Extract<MirrorStep, { readonly do: "sync" }>, at: string) =>
  Effect.gen(function*() {
    const mirror = yield* DesignMirror.DesignMirror
    const control = yield* Sandbox.SandboxControl
    for (const fault of step.faults ?? []) yield* control.injectFault(fault)
    const before = yield* apiRequests
    const stopAt = step.interruptAtCommitted
    const exit = yield* mirror.sync(mirrorCriteria[step.criteria], {
      ...(step.concurrency === undefined ? {} : { concurrency: step.concurrency }),
      ...(stopAt === undefined ? {} : {
        onProgress: ({ committed }) => (committed >= stopAt ? Effect.interrupt : Effect.void)
      })
    }).pipe(forkChild, Effect.flatMap(Fiber.await))
    const expected = expectedSync(step)
    const outcome: SyncOutcome = Exit.isSuccess(exit)
      ? { report: pickFields(exit.value, "report" in expected ? expected.report : {}) }
      : exitInterrupted(exit)
      ? { interrupted: true }
      : { failure: Option.match(failureOption(exit.cause), { onNone: () => "defect", onSome: (e) => e._tag }) }
    expect(outcome, at).toEqual(expected)
    if (step.requests !== undefined) expect((yield* apiRequests) - before, at).toBe(step.requests)
    return fullOutcomeOf(exit, (report) => plainFields(report, millis))
  })

const runMirror = (c: CaseOf<"mirrorSync">) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(dec1)
    const sql = yield* database("postgres")
    const services = DesignMirror.layer().pipe(
      Layer.provideMerge(Layer.merge(sql, clientLayer({ sandbox: { designs: c.designs } })))
    )
    yield* Effect.provide(
      Effect.gen(function*() {
        const mirror = yield* DesignMirror.DesignMirror
        const control = yield* Sandbox.SandboxControl
        let touchedFrom: ReadonlyArray<Row> = []
        const outcomes: Array<FullOutcome> = []
        for (const [i, step] of c.steps.entries()) {
          switch (step.do) {
            case "sync":
              outcomes.push(yield* syncStep(step, `step ${i}`))
              break
            case "state": {
              const state = Option.getOrUndefined(yield* mirror.state(mirrorCriteria[step.criteria]))
              const { criteria: _, do: __, ...expected } = step
              expect({
                watermark: state === undefined ? "no state" : Option.getOrNull(state.watermark),
                ...(expected.inProgress === undefined ? {} : { inProgress: state?.inProgress })
              }, `step ${i}`).toEqual(expected)
              break
            }
            case "advanceDays":
              yield* TestClock.adjust(Duration.days(step.days))
              break
            case "touch":
              touchedFrom = yield* storedRows
              yield* control.touch(step.rows.map((n) => touchedFrom[n]!.number))
              break
            case "rows": {
              const rows = yield* storedRows
              expect(rows, `step ${i}`).toHaveLength(step.count)
              expect(
                rows.flatMap((r, n) => (r.state === "current" ? [] : [[n, r.state] as const])),
                `step ${i}`
              ).toEqual(step.notCurrent)
              if (step.changedSinceTouch !== undefined) {
                expect(rows.flatMap((r, n) => (r.record === touchedFrom[n]?.record ? [] : [n])), `step ${i}`).toEqual(
                  step.changedSinceTouch
                )
              }
            }
          }
        }
        holdOutcomes(c.name, outcomes)
      }),
      services
    )
  }).pipe(Effect.scoped)

/** The answers of a fresh in-process sandbox (with its control routes) to a scenario's requests. */
const replay = (scenario: Raw.Scenario) =>
  Effect.gen(function*() {
    const { tokenLifetimeSeconds, ...options } = scenario.sandbox ?? {}
    const sandbox = yield* Sandbox.make({
      ...options,
      ...(tokenLifetimeSeconds === undefined ? {} : { tokenLifetime: Duration.seconds(tokenLifetimeSeconds) })
    })
    const app = withControlRoutes(sandbox.app, sandbox.control, ownAddress(Raw.ownAddress.host, Raw.ownAddress.port))
    const answers: Array<Raw.Answer> = []
    let bearer = ""
    for (const request of scenario.requests) {
      const headers = new Headers(request.headers)
      if (request.bearer === true) headers.set("authorization", `Bearer ${bearer}`)
      const web = new Request(Raw.origin + request.path, {
        method: request.method,
        headers,
        body: request.body ?? null
      })
      const response = yield* Effect.provideService(
        app,
        HttpServerRequest.HttpServerRequest,
        HttpServerRequest.fromWeb(web)
      )
      const answer = HttpServerResponse.toWeb(response, { withoutBody: request.method === "HEAD" })
      const body = yield* Effect.promise(() => answer.text())
      bearer = Raw.tokenOf(body) ?? bearer
      answers.push({
        request: Raw.requestLine(request),
        status: answer.status,
        headers: Raw.keptHeaders(answer.headers),
        body: Raw.withoutSignatures(body)
      })
    }
    return answers
  })

const runSandboxBytes = (c: CaseOf<"sandboxBytes">) =>
  Effect.gen(function*() {
    const scenario = Raw.scenarios.find((s) => s.name === c.scenario)!
    const answers = yield* replay(scenario)
    if (recordingTranscripts) answered[c.scenario] = answers
    else expect(answers, outOfDate(sandboxTranscript)).toEqual(committedAnswers[c.scenario])
  })

/** A case's run, in the test's scope; the mirror's also on the test file's PostgreSQL server. */
type Runner<C, R = never> = (c: C) => Effect.Effect<void, unknown, R | Scope.Scope>
type Runners = { readonly [K in CaseKind]: Runner<CaseOf<K>, K extends "mirrorSync" ? Pg.Postgres : never> }

const runners = {
  fault: runFault,
  tokenEconomy: runEconomy,
  paging: runPaging,
  mirrorSync: runMirror,
  sandboxBytes: runSandboxBytes
} satisfies Runners

/** A case's test: its kind noted as run, then its run, in a scope of its own. */
const test = <C extends Case, R>(c: C, runner: Runner<C, R>) => () =>
  Effect.scoped(Effect.orDie(Effect.suspend(() => (ran.add(c.kind), runner(c)))))

describe(`parity (Effect ${edition})`, () => {
  for (const c of casesOf("fault")) it.effect(c.name, test(c, runners.fault))
  // a simulated day is a thousand calls: slow on a busy machine
  for (const c of casesOf("tokenEconomy")) it.effect(c.name, test(c, runners.tokenEconomy), 120_000)
  for (const c of casesOf("paging")) it.effect(c.name, test(c, runners.paging))
  for (const c of casesOf("sandboxBytes")) it.effect(c.name, test(c, runners.sandboxBytes))
})

// One server for the file; each case its own database (its clock set at its start)
layer(Pg.layer, { timeout: 120_000 })(`parity (Effect ${edition}): mirrorSync on PostgreSQL`, (it) => {
  for (const c of casesOf("mirrorSync")) it.effect(c.name, test(c, runners.mirrorSync), 120_000)
})

describe("parity: the table", () => {
  it("every kind of the table ran, and no other", () => {
    expect([...ran].sort()).toEqual(kinds)
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length)
  })

  it("the transcripts hold the scenarios and every other case, and only them", () => {
    if (!recordingTranscripts) {
      expect(Object.keys(committedAnswers).sort(), outOfDate(sandboxTranscript)).toEqual(
        Raw.scenarios.map((s) => s.name).sort()
      )
      expect(Object.keys(committedOutcomes).sort(), outOfDate(outcomeTranscript)).toEqual(
        cases.filter((c) => c.kind !== "sandboxBytes").map((c) => c.name).sort()
      )
    }
  })
})

afterAll(() => {
  if (recordingTranscripts) {
    fs.writeFileSync(transcriptUrl(sandboxTranscript), JSON.stringify(answered, null, 2) + "\n")
    fs.writeFileSync(transcriptUrl(outcomeTranscript), JSON.stringify(outcomesOf, null, 2) + "\n")
  }
})
