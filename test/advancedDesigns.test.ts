/**
 * The advanced operations of the client against the sandbox in process: advanced search, one page
 * of full designs, and `advancedDesigns`, every design by pages (or, where the paged operation is
 * refused, by an advanced search and one get each, remembered for the client's life). Requests are
 * counted by the sandbox.
 */
import { forkChild } from "#edition/internal/seam"
import { TestClock } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, Schedule, Stream } from "effect"
import { ApiError as ApiErrors, DesignSearchClient, RequestBudget, Sandbox } from "../src/index.js"
import type { ApiError, Designs } from "../src/index.js"
import { pagedDesigns } from "../src/internal/client/paged.js"
import type { PagedDeps } from "../src/internal/client/paged.js"
import { clientLayer, sandboxStats } from "./support/layers.js"

const Client = DesignSearchClient.DesignSearchClient
const control = Sandbox.SandboxControl
const noRetry = { client: { retrySchedule: Schedule.recurs(0) } }
type Options = DesignSearchClient.AdvancedDesignsOptions

/** Many designs: an owner word most datasets hold, registered or filed. */
const byOwner: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { owner: "ltd", statuses: ["REGISTERED", "FILED"] } }]
}

/** The numbers of what a stream collected (a `Chunk` in Effect 3, an array in Effect 4). */
const numbersOf = (designs: Iterable<Designs.Design>) => Array.from(designs, (d) => d.number)
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i)

/** Every request the sandbox has counted. */
const allRequests = Effect.map(sandboxStats, (s) => Object.values(s.requests).reduce((a, b) => a + b, 0))

/** The pages a stream tells, and the `onPage` that keeps them. */
const telling = () => {
  const told: Array<DesignSearchClient.PageInfo> = []
  return { told, onPage: (page: DesignSearchClient.PageInfo) => Effect.sync(() => void told.push(page)) }
}
const codes = (page: DesignSearchClient.PageInfo | undefined) => page?.messages.map((m) => m.code)

describe("advancedSearch and searchPage", () => {
  it.effect("a page outside its bounds is a client ValidationError pointing at it; nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const cases = [[0, 0, "Size"], [0, 101, "Size"], [0, 1.5, "Size"], [-1, 10, "Number"]] as const
      for (const [pageNumber, pageSize, pointer] of [...cases, [0.5, 10, "Number"] as const]) {
        const error = yield* Effect.flip(client.searchPage({ ...byOwner, pageNumber, pageSize }))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
        if (error._tag === "ValidationError") {
          expect(error.errors.map((e) => e.source?.pointer)).toEqual([`/page${pointer}`])
          // a client-side refusal carries no HTTP status: nothing was sent
          expect("status" in error).toBe(false)
        }
      }
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("rows, ops and criteria are checked before sending, each problem pointed at", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const date = { type: "FILING", from: "2020-02-01", to: "2020-01-01" }
      const rows = [{ op: "XOR", query: { owner: "ltd" } }, { op: "AND", query: {} }, { op: "OR", query: { date } }]
      const error = yield* Effect.flip(client.advancedSearch({ rows } as unknown as Designs.AdvancedSearchRequest))
      expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
      if (error._tag === "ValidationError") {
        const pointers = ["/rows/0/op", "/rows/1/query", "/rows/2/query/date"]
        expect(error.errors.map((e) => e.source?.pointer)).toEqual(pointers)
      }
      const none = yield* Effect.flip(client.advancedSearch({ rows: [] }))
      expect(none).toMatchObject({ _tag: "ValidationError", origin: "client" })
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a request JSON cannot write (a bigint, a cycle among criteria of the user's own) is refused, nothing sent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const cycle: Record<string, unknown> = {}
      cycle.self = cycle
      for (const extra of [10n, cycle]) {
        const error = yield* Effect.flip(
          client.advancedSearch({ rows: [{ op: "AND", query: { owner: "ltd", extra } }] })
        )
        const detail = "expected a value JSON can write as it is"
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client", errors: [{ detail }] })
        if (error._tag === "ValidationError") {
          expect(error.errors[0]?.source?.pointer).toMatch(/^\/rows\/0\/query\/extra/)
        }
      }
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("the pages of a search, in order, are its numbers; each page holds full records", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data: search } = yield* client.advancedSearch(byOwner)
      expect(search.count).toBeGreaterThan(20)
      expect(search.designNumbers).toHaveLength(search.count)
      const pageSize = 9
      const paged: Array<string> = []
      for (let pageNumber = 0; pageNumber * pageSize < search.count; pageNumber++) {
        const { data: page } = yield* client.searchPage({ ...byOwner, pageNumber, pageSize })
        expect(page.count).toBe(search.count)
        expect(page.designs.length).toBeLessThanOrEqual(pageSize)
        expect(page.designs.every((d) => d.title !== undefined && d.owners !== undefined)).toBe(true)
        paged.push(...numbersOf(page.designs))
      }
      expect(paged).toEqual(search.designNumbers)
      const past = yield* client.searchPage({ ...byOwner, pageNumber: 1000, pageSize })
      expect(past.data.designs).toEqual([])
    }).pipe(Effect.provide(clientLayer())))

  it.effect("criteria the toolkit does not name are sent as given", () =>
    Effect.gen(function*() {
      const rows = [{ op: "AND", query: { owner: "ltd", colour: "red" } }] as const
      const { messages } = yield* (yield* Client).advancedSearch({ rows })
      // The sandbox does not know the criterion, and says which one it left out.
      expect(messages.find((m) => m.code === "UNKNOWN_CRITERION")?.detail).toContain("colour")
    }).pipe(Effect.provide(clientLayer())))

  it.effect("results that name their numbers designIds are read the same", () =>
    Effect.gen(function*() {
      const { data } = yield* (yield* Client).advancedSearch(byOwner)
      expect(data.designNumbers.length).toBe(data.count)
      const quick = yield* (yield* Client).quickSearch({ query: "chair" })
      expect(quick.data.designNumbers).toContain(Sandbox.fixedNumbers.chair)
    }).pipe(Effect.provide(clientLayer({ sandbox: { resultField: "designIds" } }))))
})

describe("advancedDesigns", () => {
  it.effect("every design, in order, for one request a page and no get", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data: search } = yield* client.advancedSearch(byOwner)
      const before = (yield* sandboxStats).requests
      const { onPage, told } = telling()
      const designs = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 7, concurrency: 3, onPage }))
      expect(numbersOf(designs)).toEqual(search.designNumbers)
      const pages = Math.ceil(search.count / 7)
      const after = (yield* sandboxStats).requests
      expect([after.page - before.page, after.design - before.design]).toEqual([pages, 0])
      expect(told.map((p) => p.pageNumber)).toEqual(upTo(pages))
      expect(told.every((p) => p.pages === pages && p.count === search.count && !p.fallback)).toBe(true)
      expect(told.reduce((n, p) => n + p.designs, 0)).toBe(search.count)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("resumes from a page: the designs from there on, for the pages from there on", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data: search } = yield* client.advancedSearch(byOwner)
      const before = (yield* sandboxStats).requests.page
      const designs = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 5, startPage: 2 }))
      expect(numbersOf(designs)).toEqual(search.designNumbers.slice(10))
      expect((yield* sandboxStats).requests.page - before).toBe(Math.ceil(search.count / 5) - 2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("no match: one request, one page told, nothing emitted", () =>
    Effect.gen(function*() {
      const { onPage, told } = telling()
      const none = { rows: [{ op: "AND", query: { designNumber: "000000000" } }] } as const
      expect(numbersOf(yield* Stream.runCollect((yield* Client).advancedDesigns(none, { onPage })))).toEqual([])
      expect(told).toMatchObject([{ pageNumber: 0, pages: 0, count: 0, designs: 0, fallback: false }])
      expect((yield* sandboxStats).requests.page).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  for (const status of [403, 404, 405]) {
    it.effect(`a ${status} from the paged operation: an advanced search and a get each, asked once for the client's life`, () =>
      Effect.gen(function*() {
        const client = yield* Client
        const { data: search } = yield* client.advancedSearch(byOwner)
        yield* (yield* control).injectFault({ target: "page", status, count: 1 })
        const before = (yield* sandboxStats).requests
        const { onPage, told } = telling()
        const first = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 10, onPage }))
        expect(numbersOf(first)).toEqual(search.designNumbers)
        const middle = (yield* sandboxStats).requests
        expect([middle.page - before.page, middle.advanced - before.advanced, middle.design - before.design])
          .toEqual([1, 1, search.count])
        expect(told.every((p) => p.fallback)).toBe(true)
        expect(told.map((p) => p.pageNumber)).toEqual(upTo(Math.ceil(search.count / 10)))
        const unavailable = { code: DesignSearchClient.pagedSearchUnavailable, severity: "warning" }
        expect(told[0]?.messages[0]).toMatchObject(unavailable)
        expect(told[0]?.messages[0]?.detail).toContain(`HTTP ${status}`)

        // Remembered: the next stream does not ask for a page again, and still says why.
        told.length = 0
        const second = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 10, startPage: 1, onPage }))
        expect(numbersOf(second)).toEqual(search.designNumbers.slice(10))
        expect((yield* sandboxStats).requests.page).toBe(middle.page)
        expect(told[0]?.messages[0]?.code).toBe(DesignSearchClient.pagedSearchUnavailable)
      }).pipe(Effect.provide(clientLayer(noRetry))))
  }

  it.effect("in the fallback, a design no longer found is told and left out; unheeded, it fails the stream", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data: search } = yield* client.advancedSearch(byOwner)
      const sandbox = yield* control
      yield* sandbox.injectFault({ target: "page", status: 404, count: 1 })
      yield* sandbox.injectFault({ target: "design", status: 404, count: 1 })
      const missing: Array<string> = []
      const onNotFound = (n: string) => Effect.sync(() => void missing.push(n))
      const designs = yield* Stream.runCollect(client.advancedDesigns(byOwner, { concurrency: 1, onNotFound }))
      expect(missing).toEqual(search.designNumbers.slice(0, 1))
      expect(numbersOf(designs)).toEqual(search.designNumbers.slice(1))
      yield* sandbox.injectFault({ target: "design", status: 404, count: 1 })
      const error = yield* Effect.flip(Stream.runDrain(client.advancedDesigns(byOwner, { concurrency: 1 })))
      expect(error._tag).toBe("NotFoundError")
    }).pipe(Effect.provide(clientLayer(noRetry))))

  it.effect("a failure that is no refusal fails the stream, and nothing falls back", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "page", status: 500, count: 1 })
      const error = yield* Effect.flip(Stream.runDrain((yield* Client).advancedDesigns(byOwner)))
      expect(error._tag).toBe("ServerError")
      expect((yield* sandboxStats).requests.advanced).toBe(0)
      // Not remembered as a refusal: the next stream pages.
      yield* Stream.runDrain((yield* Client).advancedDesigns(byOwner))
      expect((yield* sandboxStats).requests.advanced).toBe(0)
    }).pipe(Effect.provide(clientLayer(noRetry))))

  it.effect("bad options are a client ValidationError naming the option; nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const cases = [
        ...[{ pageSize: 0 }, { pageSize: 101 }, { startPage: -1 }, { startPage: 0.5 }, { concurrency: 0 }],
        ...[{ concurrency: Number.NaN }, { onPage: 5 }, { onNotFound: "x" }]
      ].map((o) => [o, Object.keys(o)[0]] as const)
      for (const [options, parameter] of [...cases, [null, "options"] as const]) {
        const error = yield* Effect.flip(Stream.runDrain(client.advancedDesigns(byOwner, options as Options)))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client", errors: [{ source: { parameter } }] })
      }
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))
})

describe("RequestBudget.layerPublishedCap", () => {
  const client = { tokenUrl: "https://auth.example/token", clientId: "c" }
  const waits = Effect.gen(function*() {
    const budget = (yield* RequestBudget.RequestBudget).forClient(client)
    return yield* Effect.forEach(upTo(4), () => Effect.map(budget.reserve, Duration.toMillis))
  })

  it.effect("spaces the slots of a client evenly at the published cap, 600 a minute; each build holds its own", () =>
    Effect.gen(function*() {
      expect(RequestBudget.publishedRequestsPerMinute).toBe(600)
      const steps = upTo(4).map((i) => (i * 60_000) / RequestBudget.publishedRequestsPerMinute)
      expect(yield* waits).toEqual(steps)
      expect(yield* Effect.provide(waits, Layer.fresh(RequestBudget.layerPublishedCap))).toEqual(steps)
    }).pipe(Effect.provide(RequestBudget.layerPublishedCap)))
})

describe("advancedDesigns over a service whose numbers cannot be trusted", () => {
  const design = (n: number | string) => ({ number: String(n) }) as Designs.Design
  const request: Designs.AdvancedSearchRequest = { rows: [{ op: "AND", query: { owner: "x" } }] }
  type Page = ApiError.ApiResponse<Designs.DesignPage>
  const page = (count: number, numbers: ReadonlyArray<number | string>): Page => ({
    data: { count, designs: numbers.map(design) },
    messages: []
  })
  /** Deps whose pages are `answer(n)`, each after `delay(n)` on the test clock, counted. */
  const deps = (answer: (n: number) => Page, delay = (_n: number) => 0) => {
    const asked: Array<number> = []
    const d: PagedDeps<never> = {
      searchPage: (r) =>
        Effect.sync(() => asked.push(r.pageNumber)).pipe(
          Effect.andThen(Effect.sleep(Duration.millis(delay(r.pageNumber)))),
          Effect.as(answer(r.pageNumber))
        ),
      advancedSearch: () => Effect.die("not used"),
      getDesign: () => Effect.die("not used"),
      refused: () => Option.none(),
      remember: () => {}
    }
    return { deps: d, asked }
  }
  const collect = (d: PagedDeps<never>, options: { pageSize: number; concurrency: number }) =>
    Effect.gen(function*() {
      const { onPage, told } = telling()
      const fiber = yield* forkChild(
        Stream.runCollect(pagedDesigns(d, request, { startPage: 0, ...options, onPage, onNotFound: undefined }))
      )
      yield* TestClock.adjust("1 minute")
      return { numbers: numbersOf(yield* Fiber.join(fiber)), told }
    })

  it.effect("a count past any array's length or 2^53 is no defect: a short page ends the stream, with a warning", () =>
    Effect.gen(function*() {
      for (const count of [2 ** 53 - 1, 1e12, 1e300, Number.MAX_VALUE]) {
        const { asked, deps: d } = deps(() => page(count, [1]))
        const { numbers, told } = yield* collect(d, { pageSize: 100, concurrency: 4 })
        expect(numbers).toEqual(["1"])
        expect(asked).toEqual([0])
        expect(codes(told[0])).toEqual([DesignSearchClient.fewerThanCounted])
      }
    }))

  it.effect("a short page before the last ends the stream after at most `concurrency` more requests", () =>
    Effect.gen(function*() {
      // 1e9 counted, full pages 0 and 1, then one design a page
      const { asked, deps: d } = deps((n) => page(1e9, n < 2 ? [n * 10 + 1, n * 10 + 2] : [n * 10 + 1]))
      const { numbers, told } = yield* collect(d, { pageSize: 2, concurrency: 3 })
      expect(numbers).toEqual(["1", "2", "11", "12", "21"])
      expect(asked.length).toBeLessThanOrEqual(3 + 3)
      expect(told.map((p) => p.pageNumber)).toEqual([0, 1, 2])
      expect(codes(told[2])).toEqual([DesignSearchClient.fewerThanCounted])
    }))

  it.effect("pages that repeat designs emit each design once and say so", () =>
    Effect.gen(function*() {
      const { deps: d } = deps((n) => page(6, n === 2 ? [3, 5] : [1 + n, 2 + n]))
      const { numbers, told } = yield* collect(d, { pageSize: 2, concurrency: 2 })
      expect(numbers).toEqual(["1", "2", "3", "5"])
      expect(told.map((p) => p.designs)).toEqual([2, 1, 1])
      const repeated = [DesignSearchClient.repeatedDesigns]
      expect(told.map(codes)).toEqual([[], repeated, repeated])
    }))

  it.effect("full pages that repeat what came before end the stream: requests stay bounded", () =>
    Effect.gen(function*() {
      const { asked, deps: d } = deps(() => page(1e12, [1, 2, 3]))
      const { numbers, told } = yield* collect(d, { pageSize: 3, concurrency: 4 })
      expect(numbers).toEqual(["1", "2", "3"])
      expect(asked.length).toBeLessThanOrEqual(2 + 4)
      expect(told.map((p) => p.designs)).toEqual([3, 0])
      expect(codes(told[1])).toEqual([DesignSearchClient.repeatedDesigns])
    }))

  it.effect("thousands of designs in no order, repeated pages apart, numbers of any form: each is emitted once", () =>
    Effect.gen(function*() {
      // 90 new designs a page, in a scrambled order of numbers, with a number of another form; then
      // 10 repeats of earlier pages' designs, some thousands of designs back.
      const pages = 200
      const fresh = (p: number) => [
        ...Array.from({ length: 89 }, (_, i) => String(1 + ((p * 89 + i) * 7919) % 100_003)),
        [`0${p}`, `AU${p}`, `1234567890${p}`][p % 3]!
      ]
      const first = fresh(pages).slice(0, 10)
      const repeats = (p: number) => upTo(10).map((i) => fresh((p * 7 + i) % p)[(p + i * 9) % 90]!)
      const { deps: d } = deps((p) => page(pages * 100, [...fresh(p), ...(p === 0 ? first : repeats(p))]))
      const { numbers, told } = yield* collect(d, { pageSize: 100, concurrency: 4 })
      const expected = upTo(pages).flatMap((p) => [...fresh(p), ...(p === 0 ? first : [])])
      expect(new Set(expected).size).toBe(expected.length)
      expect(numbers).toEqual(expected)
      expect(told.map((p) => p.designs)).toEqual([100, ...upTo(pages - 1).map(() => 90)])
    }))

  it.effect("in the fallback, gets answered with a design already emitted do not emit it again", () =>
    Effect.gen(function*() {
      const designNumbers = ["1", "2", "3"] as Array<Designs.DesignNumber>
      const d: PagedDeps<never> = {
        searchPage: () => Effect.die("refused before"),
        advancedSearch: () => Effect.succeed({ data: { count: 3, designNumbers }, messages: [] }),
        getDesign: () => Effect.succeed({ data: design(7), messages: [] }),
        refused: () =>
          Option.some(new ApiErrors.ForbiddenError({ status: 403, errors: [], messages: [], excerpt: "" })),
        remember: () => {}
      }
      expect((yield* collect(d, { pageSize: 2, concurrency: 2 })).numbers).toEqual(["7"])
    }))

  it.effect("pages answered out of order are told and emitted in order", () =>
    Effect.gen(function*() {
      const pages = 12
      const { deps: d } = deps((n) => page(pages * 2, [2 * n, 2 * n + 1]), (n) => (pages - n) * 10)
      const { numbers, told } = yield* collect(d, { pageSize: 2, concurrency: 4 })
      expect(told.map((p) => p.pageNumber)).toEqual(upTo(pages))
      expect(numbers).toEqual(upTo(pages * 2).map(String))
    }))

  it.effect("run twice, the same stream emits the same designs", () =>
    Effect.gen(function*() {
      const stream = (yield* Client).advancedDesigns(byOwner, { pageSize: 10 })
      const first = numbersOf(yield* Stream.runCollect(stream))
      expect(first.length).toBeGreaterThan(20)
      expect(numbersOf(yield* Stream.runCollect(stream))).toEqual(first)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("in the fallback, a search that lists fewer numbers than it counts says so", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "page", status: 403 })
      const { onPage, told } = telling()
      expect(numbersOf(yield* Stream.runCollect((yield* Client).advancedDesigns(byOwner, { onPage })))).toHaveLength(20)
      expect(told[0]?.count).toBeGreaterThan(20)
      const { fewerThanCounted, pagedSearchUnavailable } = DesignSearchClient
      expect(codes(told[0])).toEqual([pagedSearchUnavailable, fewerThanCounted, "RESULT_LIMIT"])
    }).pipe(Effect.provide(clientLayer({ ...noRetry, sandbox: { resultCap: 20 } }))))
})

describe("what the caller gives is checked before anything is sent", () => {
  // eslint-disable-next-line no-sparse-arrays -- a hole, as a caller's array may have one
  const holed = [1, , 3]

  it.effect("a value of the wrong kind, or one JSON would write as something else, is a client ValidationError; nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const chair = { query: "chair" }
      const search = (options: unknown) =>
        Stream.runDrain(client.searchDesigns(chair, options as DesignSearchClient.SearchDesignsOptions))
      const advanced = (options: unknown) => Stream.runDrain(client.advancedDesigns(byOwner, options as Options))
      const withExtra = (extra: unknown) =>
        client.advancedSearch({ rows: [{ op: "AND", query: { owner: "ltd", extra } }] })
      const failures = [
        client.getDesign(null as unknown as string),
        client.getDesign({ toString: () => "201900001" } as unknown as string),
        withExtra(() => 1),
        withExtra(Symbol("x")),
        ...[5, "x", Symbol("x")].flatMap((o) => [advanced(o), search(o)]),
        search({ onSearch: 5 }),
        search({ concurrency: Number.NaN }),
        // What JSON would write as something else: refused, not changed
        ...[NaN, Infinity, new Map([[1, 2]]), new Set([1]), new Date(NaN), holed].map(withExtra)
      ]
      for (const failure of failures) {
        expect(yield* Effect.flip(failure)).toMatchObject({ _tag: "ValidationError", origin: "client" })
      }
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))
})
