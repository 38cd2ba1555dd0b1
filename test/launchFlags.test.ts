/**
 * The launcher's shape of a run (`src/cli/launchFlags.ts`): which commands are long, and the V8
 * flags set for each, a flag given to Node itself winning.
 */
import { describe, expect, it } from "@effect/vitest"
import { commandOf, isLong, nodeOptionsArgs, v8FlagsFor } from "../src/cli/launchFlags.js"

const node20 = "11.3.244.8-node.38"

describe("the launcher's V8 flags", () => {
  it("tells the command past the options before it, their values and a --", () => {
    expect(commandOf(["--env", "export", "get", "1"])).toBe("get")
    expect(commandOf(["--log-level", "debug", "export", "ltd"])).toBe("export")
    expect(commandOf(["--", "sync"])).toBe("sync")
    expect(commandOf(["--help"])).toBeUndefined()
    expect(isLong(["export", "ltd"])).toBe(true)
    expect(isLong(["sandbox"])).toBe(true)
    expect(isLong(["--env", "sync", "search", "ltd"])).toBe(false)
  })

  it("gives short commands a large budget and long ones, on Node 20's V8, a small budget and less inlining", () => {
    expect(v8FlagsFor(isLong(["--help"]), [], node20)).toEqual(["--interrupt-budget=540672"])
    expect(v8FlagsFor(isLong(["get", "1"]), [], "12.4.254.21")).toEqual(["--interrupt-budget=540672"])
    expect(v8FlagsFor(isLong(["export", "ltd"]), [], node20)).toEqual([
      "--interrupt-budget=16896",
      "--max-inlined-bytecode-size-cumulative=230"
    ])
    // measured on V8 11 only: elsewhere a long command keeps V8's own
    expect(v8FlagsFor(isLong(["export", "ltd"]), [], "12.4.254.21")).toEqual([])
  })

  it("leaves out a flag Node was given, in any of its spellings", () => {
    for (
      const given of [
        "--interrupt-budget=1000",
        "--interrupt_budget=1000",
        "-interrupt-budget=1000",
        "--interrupt-budget"
      ]
    ) {
      expect(v8FlagsFor(isLong(["export"]), ["--require", "x", given], node20), given).toEqual([
        "--max-inlined-bytecode-size-cumulative=230"
      ])
      expect(v8FlagsFor(isLong(["--help"]), [given], node20), given).toEqual([])
    }
    expect(v8FlagsFor(isLong(["sync"]), ["--max_inlined_bytecode_size_cumulative=920"], node20)).toEqual([
      "--interrupt-budget=16896"
    ])
    expect(v8FlagsFor(isLong(["sync"]), nodeOptionsArgs("  --max-old-space-size=4096\t--interrupt-budget=9 "), node20))
      .toEqual(
        [
          "--max-inlined-bytecode-size-cumulative=230"
        ]
      )
    expect(nodeOptionsArgs(undefined)).toEqual([])
  })
})
