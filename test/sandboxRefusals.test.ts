/**
 * What the sandbox refuses of what a user hands it, with a typed error that names the option or the
 * field, never a defect, a hang or a silent loss: options out of range or of the wrong type (in
 * `make`, `layer` and `serve` alike), a fault whose body JSON would not send as given or whose
 * headers the transport sets, and `touch` given anything but a list of design numbers.
 */
import { type ConfigErrorType, NoSuchElement } from "#edition/internal/seam"
import { configErrorPath, edition, failureOption, schemaErrorTag } from "#test-edition/support/seam"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { DesignSearchClient, Sandbox } from "../src/index.js"
import { clientLayer } from "./support/layers.js"

const { chair } = Sandbox.fixedNumbers

/** Where the `ConfigError` of `effect`'s failure points, and its text; a defect fails the test. */
const refusal = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(Effect.suspend(() => effect)), (exit) => {
    if (Exit.isSuccess(exit)) return { path: "accepted", text: "" }
    const error = failureOption(exit.cause)
    if (Option.isNone(error)) return { path: `defect: ${Cause.pretty(exit.cause)}`, text: "" }
    if (error.value._tag !== "ConfigError") return { path: error.value._tag, text: "" }
    const e = error.value as unknown as ConfigErrorType
    return { path: configErrorPath(e).join("."), text: String(e) }
  })

/** The tag of each failure of `effects` (`accepted` for a success, a defect's text for a defect). */
const failures = (effects: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>>) =>
  Effect.forEach(effects, (effect) => Effect.map(refusal(effect), ({ path }) => path))

describe("Sandbox options out of range or of the wrong type", () => {
  it.effect("each is a ConfigError naming the option, from make, layer and serve alike", () =>
    Effect.gen(function*() {
      const refused: ReadonlyArray<readonly [unknown, string, string]> = [
        [null, "", "expected an object of options"],
        ["options", "", "expected an object of options"],
        [{ designs: 1e7 }, "designs", "at most 200000"],
        [{ designs: 200_001 }, "designs", "at most 200000"],
        [{ designs: 0 }, "designs", "designs must be a positive integer"],
        [{ clientId: 5 }, "clientId", "clientId must be a string"],
        [{ clientSecret: 5 }, "clientSecret", "clientSecret must be a string"],
        // `null` is a value given, not an option left out
        [{ clientId: null }, "clientId", "clientId must be a string, got null"],
        [{ journalBytes: null }, "journalBytes", "journalBytes must be a positive integer, got null"],
        [{ designs: null }, "designs", "designs must be a positive integer, got null"],
        [{ resultField: null }, "resultField", "resultField"],
        [{ seed: null }, "seed", "seed must be a safe integer"],
        [{ journalSize: 10n }, "journalSize", "journalSize must be a positive integer, got 10n"],
        [{ maxRequestBytes: {} }, "maxRequestBytes", "maxRequestBytes must be a positive integer, got an object"],
        [{ clientId: "  " }, "clientId", "clientId must not be empty"],
        [{ clientSecret: "" }, "clientSecret", "clientSecret must not be empty"],
        [{ seed: Number.NaN }, "seed", "seed must be a safe integer"],
        [{ seed: "x" }, "seed", "seed must be a safe integer"],
        [{ seed: 1.5 }, "seed", "seed must be a safe integer"],
        [{ seed: 2 ** 53 }, "seed", "seed must be a safe integer"],
        [{ tokenLifetime: "400 days" }, "tokenLifetime", "at most a year"],
        [{ tokenLifetime: "366 days" }, "tokenLifetime", "at most a year"],
        [{ latency: 1e12 }, "latency", "at most 600000"],
        [{ latency: { min: 0, max: "601 seconds" } }, "latency", "at most 600000"],
        // Effect 4's `Duration` reads these as zero: no duration
        [{ latency: {} }, "latency", "latency must be a finite, non-negative duration"],
        [{ latency: { min: {}, max: 5 } }, "latency", "latency must be a finite, non-negative duration"],
        [{ latency: { seconds: Number.NaN } }, "latency", "latency must be a finite, non-negative duration"],
        [{ tokenLifetime: { secs: 60 } }, "tokenLifetime", "tokenLifetime must be a finite, non-negative duration"],
        [{ tokenLifetime: { seconds: "60" } }, "tokenLifetime", "tokenLifetime must be a finite, non-negative duration"]
      ]
      for (const [options, path, says] of refused) {
        const shown = JSON.stringify(options, (_, v) => (typeof v === "bigint" ? `${v}n` : v))
        const made = yield* refusal(Sandbox.make(options as Sandbox.Options))
        expect(made.path, shown).toBe(path)
        expect(made.text, shown).toContain(says)
        const layered = yield* refusal(Layer.build(Sandbox.layer(options as Sandbox.Options)).pipe(Effect.scoped))
        expect(layered.path, shown).toBe(path)
        const served = yield* refusal(Sandbox.serve(options as Sandbox.ServeOptions).pipe(Effect.scoped))
        expect(served.path, shown).toBe(path)
      }
    }))

  it.effect("the bounds themselves are accepted: a year's tokens the client takes, ten minutes' latency, any safe seed", () =>
    Effect.gen(function*() {
      // Effect 4's `Duration` takes duration objects too (Effect 3's none)
      const objects = [{ latency: { minutes: 10 } }, { latency: { min: { seconds: 0 }, max: { seconds: 1 } } }]
      const accepted = [{ seed: -7 }, { seed: 0 }, { latency: "10 minutes" }, { designs: 20 }]
      for (const options of [...accepted, ...(edition === 4 ? objects : [])] as ReadonlyArray<Sandbox.Options>) {
        expect((yield* refusal(Sandbox.make(options))).path, JSON.stringify(options)).toBe("accepted")
      }
      const client = yield* DesignSearchClient.DesignSearchClient
      expect((yield* client.getDesign(chair)).data.number).toBe(chair)
    }).pipe(Effect.provide(
      DesignSearchClient.layer().pipe(Layer.provide(Sandbox.layer({ designs: 20, tokenLifetime: "365 days" })))
    )))
})

describe("SandboxControl's refusals are bounded, whatever the value", () => {
  it.effect("a huge filter, fault or list is told in a short message naming where", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const huge = "x".repeat(5_000_000)
      const refusals = [
        yield* Effect.flip(control.requests({ body: { x: { y: huge } } } as never)),
        yield* Effect.flip(
          control.requests({ target: "search", query: Array.from({ length: 100_000 }, String) } as never)
        ),
        yield* Effect.flip(control.injectFault({ target: "design", status: 400, match: { path: { huge } } } as never)),
        yield* Effect.flip(control.touch(Array.from({ length: 100_000 }, (_, i) => `x${i}`))),
        yield* Effect.flip(control.expectRequest({ body: { x: huge } }))
      ]
      for (const error of refusals) expect(error.message.length, error._tag).toBeLessThan(2_000)
      expect(refusals[0]?.message).toContain("/body/x")
    }).pipe(Effect.provide(clientLayer())))
})

describe("injectFault refuses a body or headers it could not send as given", () => {
  it.effect("a body JSON would not write as it is (a bigint, a symbol, a function, NaN, a class, a hole): a decode error at it", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const bodies: ReadonlyArray<readonly [unknown, string]> = [
        [{ a: 1n }, "/body/a"],
        [{ a: Symbol("s") }, "/body/a"],
        [() => 1, "/body"],
        [Symbol("s"), "/body"],
        [10n, "/body"],
        [{ rows: [1, Number.NaN] }, "/body/rows/1"],
        [{ when: new Date(0) }, "/body/when"],
        // eslint-disable-next-line no-sparse-arrays
        [[1, , 3], "/body/1"],
        [{ list: [undefined] }, "/body/list/0"]
      ]
      for (const [body, at] of bodies) {
        const error = yield* Effect.flip(control.injectFault({ target: "design", status: 400, body }))
        expect(error._tag).toBe(schemaErrorTag)
        // told as a 422 tells it: at its JSON Pointer
        expect(error.message, at).toContain(`${at}: `)
        expect(error.message, at).toContain("send it as a string")
      }
      // Nothing was queued: the next request gets the real answer.
      const client = yield* DesignSearchClient.DesignSearchClient
      expect((yield* client.getDesign(chair)).data.number).toBe(chair)
      expect((yield* control.requests({ target: "design" })).entries.map((e) => e.fault)).toEqual([undefined])
      // What JSON writes as given still goes, an absent field included.
      yield* control.injectFault({ target: "design", status: 400, body: { a: [1, "x", null, { b: undefined }] } })
      expect((yield* Effect.flip(client.getDesign(chair)))._tag).toBe("BadRequestError")
    }).pipe(Effect.provide(clientLayer())))

  it.effect("a header the transport sets (Content-Encoding among them) is refused, in any case", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      for (
        const name of ["Content-Encoding", "content-encoding", "Content-Length", "Transfer-Encoding", "Connection"]
      ) {
        const error = yield* Effect.flip(
          control.injectFault({ target: "search", status: 200, body: "x", headers: { [name]: "gzip" } })
        )
        expect(error.message).toContain(`${name} is set by the server itself`)
      }
    }).pipe(Effect.provide(clientLayer())))
})

describe("SandboxControl.touch", () => {
  it.effect("anything but a list of strings is a decode error, never a defect, and touches nothing", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const refused = [undefined, null, chair, [null], [5], [chair, 5], { 0: chair, length: 1 }]
      const tags = yield* failures(refused.map((numbers) => control.touch(numbers as never)))
      expect(tags).toEqual(refused.map(() => schemaErrorTag))
      const client = yield* DesignSearchClient.DesignSearchClient
      expect((yield* client.quickSearch({ query: "amended" })).data.count).toBe(0)
      yield* control.touch([chair])
      expect((yield* client.quickSearch({ query: "amended" })).data.count).toBe(1)
    }).pipe(Effect.provide(clientLayer())))
})

describe("SandboxControl given input whose getters or Proxy traps throw", () => {
  it.effect("each method returns an effect, failing with a decode error: never a throw or a defect", () =>
    Effect.gen(function*() {
      const control = yield* Sandbox.SandboxControl
      const trap = () => {
        throw new Error("trap")
      }
      const hostile = new Proxy({}, { get: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, has: trap })
      const getter = Object.defineProperty({}, "target", { enumerable: true, get: trap })
      const list = new Proxy([chair], { get: trap })
      const calls: ReadonlyArray<() => Effect.Effect<unknown, { readonly _tag: string }>> = [
        () => control.injectFault(hostile as never),
        () => control.injectFault(getter as never),
        () => control.touch(list as never),
        () => control.touch(hostile as never),
        () => control.requests(hostile as never),
        () => control.requests(getter as never),
        () => control.expectRequest(hostile as never),
        () => control.expectRequest(getter as never)
      ]
      expect(yield* failures(calls.map((call) => call()))).toEqual(calls.map(() => schemaErrorTag))
      // a filter read once: what the failure tells is the filter as read, not the caller's object again
      const once = Object.create({ toJSON: trap }) as object
      expect(yield* failures([control.expectRequest(once)])).toEqual([new NoSuchElement()._tag])
    }).pipe(Effect.provide(clientLayer())))
})
