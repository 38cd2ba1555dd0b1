/**
 * The advanced operations of the Effect 4 edition's client: advanced search, one page of full
 * designs, and `advancedDesigns` page by page or, where the paged operation is refused, by an
 * advanced search and one get each; with the request counts the sandbox keeps (a compact port of
 * the Effect 3 edition's tests).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Schedule, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as ApiError from "../../src/ApiError.js"
import type * as Designs from "../../src/Designs.js"
import * as DesignSearchClient from "../../src/DesignSearchClient.js"
import { pagedDesigns } from "../../src/internal/client/paged.js"
import type { PagedDeps } from "../../src/internal/client/paged.js"
import * as Sandbox from "../../src/Sandbox.js"
import { clientLayer, sandboxStats } from "./support/layers.js"

const Client = DesignSearchClient.DesignSearchClient
const control = Sandbox.SandboxControl
const noRetry = { client: { retrySchedule: Schedule.recurs(0) } }

/** Many designs: an owner word most datasets hold, registered or filed. */
const byOwner: Designs.AdvancedSearchRequest = {
  rows: [{ op: "AND", query: { owner: "ltd", statuses: ["REGISTERED", "FILED"] } }]
}

const numbersOf = (designs: ReadonlyArray<Designs.Design>) => designs.map((d) => d.number)

/** Every request the sandbox has counted. */
const allRequests = Effect.map(sandboxStats, (s) => Object.values(s.requests).reduce((a, b) => a + b, 0))

const telling = () => {
  const told: Array<DesignSearchClient.PageInfo> = []
  return { told, onPage: (page: DesignSearchClient.PageInfo) => Effect.sync(() => void told.push(page)) }
}

describe("advancedSearch and searchPage (Effect 4)", () => {
  it.effect("a page out of bounds, bad rows or a value JSON cannot write is a client ValidationError; nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      for (
        const [pageNumber, pageSize, pointer] of [[0, 0, "/pageSize"], [0, 101, "/pageSize"], [-1, 10, "/pageNumber"]]
      ) {
        const error = yield* Effect.flip(client.searchPage({ ...byOwner, pageNumber, pageSize } as Designs.PageRequest))
        expect(error).toMatchObject({ _tag: "ValidationError", origin: "client" })
        if (error._tag === "ValidationError") expect(error.errors.map((e) => e.source?.pointer)).toEqual([pointer])
      }
      const bad = {
        rows: [{ op: "XOR", query: { owner: "ltd" } }, { op: "AND", query: {} }]
      } as unknown as Designs.AdvancedSearchRequest
      const error = yield* Effect.flip(client.advancedSearch(bad))
      if (error._tag === "ValidationError") {
        expect(error.errors.map((e) => e.source?.pointer)).toEqual(["/rows/0/op", "/rows/1/query"])
      } else expect.fail(error._tag)
      for (const extra of [10n, Number.NaN, new Map([[1, 2]])]) {
        expect(yield* Effect.flip(client.advancedSearch({ rows: [{ op: "AND", query: { owner: "ltd", extra } }] })))
          .toMatchObject({ _tag: "ValidationError", origin: "client" })
      }
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("the pages of a search, in order, are its numbers; each page holds full records", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data: search } = yield* client.advancedSearch(byOwner)
      expect(search.count).toBeGreaterThan(20)
      const paged: Array<string> = []
      for (let pageNumber = 0; pageNumber * 9 < search.count; pageNumber++) {
        const { data: page } = yield* client.searchPage({ ...byOwner, pageNumber, pageSize: 9 })
        expect(page.count).toBe(search.count)
        expect(page.designs.every((d) => d.title !== undefined)).toBe(true)
        paged.push(...numbersOf(page.designs))
      }
      expect(paged).toEqual(search.designNumbers)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("results that name their numbers designIds are read the same", () =>
    Effect.gen(function*() {
      const { data } = yield* (yield* Client).advancedSearch(byOwner)
      expect(data.designNumbers.length).toBe(data.count)
    }).pipe(Effect.provide(clientLayer({ sandbox: { resultField: "designIds" } }))))
})

describe("advancedDesigns (Effect 4)", () => {
  it.effect("every design, in order, for one request a page and no get; resumed from a page, the pages from there", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const { data: search } = yield* client.advancedSearch(byOwner)
      const { onPage, told } = telling()
      const designs = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 7, concurrency: 3, onPage }))
      expect(numbersOf(designs)).toEqual(search.designNumbers)
      const pages = Math.ceil(search.count / 7)
      expect((yield* sandboxStats).requests).toMatchObject({ page: pages, design: 0, advanced: 1 })
      expect(told.map((p) => p.pageNumber)).toEqual(Array.from({ length: pages }, (_, i) => i))
      expect(told.every((p) => p.pages === pages && p.count === search.count && !p.fallback)).toBe(true)
      const resumed = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 5, startPage: 2 }))
      expect(numbersOf(resumed)).toEqual(search.designNumbers.slice(10))
      expect((yield* sandboxStats).requests.page).toBe(pages + Math.ceil(search.count / 5) - 2)
    }).pipe(Effect.provide(clientLayer())))

  it.effect("no match: one request, one page told, nothing emitted", () =>
    Effect.gen(function*() {
      const { onPage, told } = telling()
      const designs = yield* Stream.runCollect(
        (yield* Client).advancedDesigns({ rows: [{ op: "AND", query: { designNumber: "000000000" } }] }, { onPage })
      )
      expect(designs).toEqual([])
      expect(told).toMatchObject([{ pageNumber: 0, pages: 0, count: 0, designs: 0, fallback: false }])
      expect((yield* sandboxStats).requests.page).toBe(1)
    }).pipe(Effect.provide(clientLayer())))

  for (const status of [403, 404, 405]) {
    it.effect(`a ${status} from the paged operation: an advanced search and a get each, asked once for the client's life`, () =>
      Effect.gen(function*() {
        const client = yield* Client
        const { data: search } = yield* client.advancedSearch(byOwner)
        yield* (yield* control).injectFault({ target: "page", status, count: 1 })
        const { onPage, told } = telling()
        const first = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 10, onPage }))
        expect(numbersOf(first)).toEqual(search.designNumbers)
        expect((yield* sandboxStats).requests).toMatchObject({ page: 1, advanced: 2, design: search.count })
        expect(told.every((p) => p.fallback)).toBe(true)
        expect(told.map((p) => p.pageNumber)).toEqual(Array.from({ length: Math.ceil(search.count / 10) }, (_, i) => i))
        expect(told[0]?.messages[0]).toMatchObject({
          code: DesignSearchClient.pagedSearchUnavailable,
          severity: "warning"
        })
        expect(told[0]?.messages[0]?.detail).toContain(`HTTP ${status}`)
        told.length = 0
        const second = yield* Stream.runCollect(client.advancedDesigns(byOwner, { pageSize: 10, startPage: 1, onPage }))
        expect(numbersOf(second)).toEqual(search.designNumbers.slice(10))
        expect((yield* sandboxStats).requests.page).toBe(1)
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
      const designs = yield* Stream.runCollect(client.advancedDesigns(byOwner, {
        concurrency: 1,
        onNotFound: (n) => Effect.sync(() => void missing.push(n))
      }))
      expect(missing).toEqual(search.designNumbers.slice(0, 1))
      expect(numbersOf(designs)).toEqual(search.designNumbers.slice(1))
      yield* sandbox.injectFault({ target: "design", status: 404, count: 1 })
      const error = yield* Effect.flip(Stream.runDrain(client.advancedDesigns(byOwner, { concurrency: 1 })))
      expect(error._tag).toBe("NotFoundError")
    }).pipe(Effect.provide(clientLayer(noRetry))))

  it.effect("a failure that is no refusal fails the stream, and nothing falls back", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "page", status: 500, count: 1 })
      expect((yield* Effect.flip(Stream.runDrain((yield* Client).advancedDesigns(byOwner))))._tag).toBe("ServerError")
      yield* Stream.runDrain((yield* Client).advancedDesigns(byOwner))
      expect((yield* sandboxStats).requests.advanced).toBe(0)
    }).pipe(Effect.provide(clientLayer(noRetry))))

  it.effect("in the fallback, a search that lists fewer numbers than it counts says so", () =>
    Effect.gen(function*() {
      yield* (yield* control).injectFault({ target: "page", status: 403 })
      const { onPage, told } = telling()
      const designs = yield* Stream.runCollect((yield* Client).advancedDesigns(byOwner, { onPage }))
      expect(designs).toHaveLength(20)
      expect(told[0]?.count).toBeGreaterThan(20)
      expect(told[0]?.messages.map((m) => m.code)).toEqual([
        DesignSearchClient.pagedSearchUnavailable,
        DesignSearchClient.fewerThanCounted,
        "RESULT_LIMIT"
      ])
    }).pipe(Effect.provide(clientLayer({ ...noRetry, sandbox: { resultCap: 20 } }))))

  it.effect("bad options are a client ValidationError naming the option; nothing is sent", () =>
    Effect.gen(function*() {
      const client = yield* Client
      const cases = [
        [{ pageSize: 0 }, "pageSize"],
        [{ pageSize: 101 }, "pageSize"],
        [{ startPage: -1 }, "startPage"],
        [{ concurrency: Number.NaN }, "concurrency"],
        [{ onPage: 5 }, "onPage"],
        [{ onNotFound: "x" }, "onNotFound"],
        [null, "options"]
      ] as const
      for (const [options, name] of cases) {
        const error = yield* Effect.flip(
          Stream.runDrain(client.advancedDesigns(byOwner, options as DesignSearchClient.AdvancedDesignsOptions))
        )
        expect(error).toMatchObject({
          _tag: "ValidationError",
          origin: "client",
          errors: [{ source: { parameter: name } }]
        })
      }
      expect(yield* allRequests).toBe(0)
    }).pipe(Effect.provide(clientLayer())))
})

describe("advancedDesigns over a service whose numbers cannot be trusted (Effect 4)", () => {
  const design = (n: number) => ({ number: String(n) }) as Designs.Design
  const request: Designs.AdvancedSearchRequest = { rows: [{ op: "AND", query: { owner: "x" } }] }
  const page = (count: number, numbers: ReadonlyArray<number>): ApiError.ApiResponse<Designs.DesignPage> => ({
    data: { count, designs: numbers.map(design) },
    messages: []
  })
  /** Deps whose pages are `answer(n)`, each after `delay(n)` on the test clock, counted. */
  const deps = (answer: (n: number) => ApiError.ApiResponse<Designs.DesignPage>, delay = (_n: number) => 0) => {
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
      const fiber = yield* Effect.forkChild(
        Stream.runCollect(pagedDesigns(d, request, { startPage: 0, ...options, onPage, onNotFound: undefined }))
      )
      yield* TestClock.adjust("1 minute")
      return { numbers: numbersOf(yield* Fiber.join(fiber)), told }
    })

  it.effect("a count past any array's length is no defect: a short page ends the stream, with a warning", () =>
    Effect.gen(function*() {
      for (const count of [2 ** 53 - 1, 1e300]) {
        const { asked, deps: d } = deps(() => page(count, [1]))
        const { numbers, told } = yield* collect(d, { pageSize: 100, concurrency: 4 })
        expect(numbers).toEqual(["1"])
        expect(asked).toEqual([0])
        expect(told[0]?.messages.map((m) => m.code)).toEqual([DesignSearchClient.fewerThanCounted])
      }
    }))

  it.effect("a short page before the last ends the stream after at most `concurrency` more requests", () =>
    Effect.gen(function*() {
      const { asked, deps: d } = deps((n) => page(1e9, n < 2 ? [n * 10 + 1, n * 10 + 2] : [n * 10 + 1]))
      const { numbers, told } = yield* collect(d, { pageSize: 2, concurrency: 3 })
      expect(numbers).toEqual(["1", "2", "11", "12", "21"])
      expect(asked.length).toBeLessThanOrEqual(3 + 3)
      expect(told.map((p) => p.pageNumber)).toEqual([0, 1, 2])
    }))

  it.effect("pages that repeat designs emit each once and say so; full repeated pages end the stream", () =>
    Effect.gen(function*() {
      const repeating = deps((n) => page(6, n === 2 ? [3, 5] : [1 + n, 2 + n]))
      const { numbers, told } = yield* collect(repeating.deps, { pageSize: 2, concurrency: 2 })
      expect(numbers).toEqual(["1", "2", "3", "5"])
      expect(told.map((p) => p.messages.map((m) => m.code))).toEqual([
        [],
        [DesignSearchClient.repeatedDesigns],
        [DesignSearchClient.repeatedDesigns]
      ])
      const stuck = deps(() => page(1e12, [1, 2, 3]))
      expect((yield* collect(stuck.deps, { pageSize: 3, concurrency: 4 })).numbers).toEqual(["1", "2", "3"])
      expect(stuck.asked.length).toBeLessThanOrEqual(2 + 4)
    }))

  it.effect("pages answered out of order are told and emitted in order", () =>
    Effect.gen(function*() {
      const { deps: d } = deps((n) => page(24, [2 * n, 2 * n + 1]), (n) => (12 - n) * 10)
      const { numbers, told } = yield* collect(d, { pageSize: 2, concurrency: 4 })
      expect(told.map((p) => p.pageNumber)).toEqual(Array.from({ length: 12 }, (_, i) => i))
      expect(numbers).toEqual(Array.from({ length: 24 }, (_, i) => String(i)))
    }))

  it.effect("in the fallback, gets answered with a design already emitted do not emit it again", () =>
    Effect.gen(function*() {
      const d: PagedDeps<never> = {
        searchPage: () => Effect.die("refused before"),
        advancedSearch: () =>
          Effect.succeed({
            data: { count: 3, designNumbers: ["1", "2", "3"] as Array<Designs.DesignNumber> },
            messages: []
          }),
        getDesign: () => Effect.succeed({ data: design(7), messages: [] }),
        refused: () => Option.some(new ApiError.ForbiddenError({ status: 403, errors: [], messages: [], excerpt: "" })),
        remember: () => {}
      }
      expect((yield* collect(d, { pageSize: 2, concurrency: 2 })).numbers).toEqual(["7"])
    }))
})
