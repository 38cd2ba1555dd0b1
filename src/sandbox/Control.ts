/** What drives a sandbox from a test or a tool (`Control`, as `SandboxControl`), and what a sandbox is. */
import type { HttpApp } from "@effect/platform"
import { Clock, Context, Effect, Schema } from "effect"
import type { ParseResult } from "effect"
import type { SearchIndex } from "../core/searchIndex.js"
import * as State from "./State.js"

/**
 * `touch` was given numbers of designs the sandbox does not hold: it touched none.
 *
 * @since 0.3.0
 * @category errors
 */
export class UnknownDesignsError extends Schema.TaggedError<UnknownDesignsError>()("UnknownDesignsError", {
  numbers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `no design numbered ${this.numbers.join(", ")}`
  }
}

/**
 * Drives a sandbox from a test or a tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface Control {
  /** Serves a fault to the next `count` requests to its target (faults queue in order); fails on a malformed fault. */
  readonly injectFault: (fault: typeof State.Fault.Encoded) => Effect.Effect<void, ParseResult.ParseError>
  /** Revokes every token issued so far: the API answers them with 401. Never fails. */
  readonly revokeTokens: Effect.Effect<void>
  /** The sandbox's counters: tokens issued, requests per endpoint, abandoned answers. Never fails. */
  readonly stats: Effect.Effect<State.Stats>
  /** Drops faults, tokens and counters. Never fails. */
  readonly reset: Effect.Effect<void>
  /**
   * Changes designs as the register would: appends " (amended)" to each title and sets its
   * `lastChanged` to today (UTC midnight, by the sandbox's clock), so searches by `changedSinceDate`
   * find it. Fails with `UnknownDesignsError`, touching none, if a number is not in the sandbox.
   */
  readonly touch: (numbers: ReadonlyArray<string>) => Effect.Effect<void, UnknownDesignsError>
}

/**
 * The `Control` of the sandbox behind `Sandbox.layer`.
 *
 * @since 0.1.0
 * @category tags
 */
export class SandboxControl extends Context.Tag("effect-design-search/SandboxControl")<SandboxControl, Control>() {}

/**
 * A sandbox: its app, its control, and the credentials it accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sandbox {
  readonly app: HttpApp.Default
  readonly control: Control
  readonly clientId: string
  readonly clientSecret: string
  readonly designCount: number
}

const decodeFault = Schema.decodeUnknown(State.Fault)

/** The control of a sandbox's `state` and of the designs of its `index`. */
export const make = (state: State.State, index: SearchIndex): Control => ({
  injectFault: (fault) =>
    Effect.flatMap(
      decodeFault(fault),
      (f) => Effect.sync(() => void state.faults.push({ fault: f, remaining: f.count }))
    ),
  revokeTokens: Effect.sync(() => state.activeTokens.clear()),
  stats: Effect.sync(() => State.stats(state)),
  reset: Effect.sync(() => State.reset(state)),
  touch: (numbers) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const unknown = index.touch(numbers, now)
      return unknown.length === 0 ? Effect.void : Effect.fail(new UnknownDesignsError({ numbers: unknown }))
    })
})
