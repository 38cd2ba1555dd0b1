/**
 * Where the CLI writes: results on stdout, everything for people on stderr, so that `--json` can be
 * piped as is. Writes are synchronous on files and pipes: a line is out before the next step runs.
 */
import { Effect } from "effect"

const line = (text: string) => (text.endsWith("\n") ? text : text + "\n")

/**
 * Controls (C0, DEL, C1), line and paragraph separators, bidirectional marks and the byte order
 * mark: a server's text must not move the cursor, recolour, retitle or reorder the terminal.
 */
// eslint-disable-next-line no-control-regex
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g

/** `text` with every unsafe character as its `\uXXXX` escape, a tab as a space, newlines kept if `lines`. */
const printable = (text: string, lines: boolean): string =>
  text.replace(
    unsafe,
    (c) => (c === "\t" ? " " : c === "\n" && lines ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  )

/** A value from the service as placed into a line: CR and LF escaped too, so it cannot forge a row. */
export const field = (text: string): string => printable(text, false)

/** Whether a line drawn in place (a progress bar, a wait) is on the terminal, to be erased before the next line. */
let drawn = false

/** Erases the line drawn in place, if any. */
export const erase = (): void => {
  if (drawn) process.stderr.write("\r\x1b[2K")
  drawn = false
}

/** Draws `text` on stderr (a terminal) in place of the line drawn before it, until the next line. */
export const drawInPlace = (text: string): void => {
  process.stderr.write(`\r\x1b[2K${printable(text, false)}`)
  drawn = true
}

/** Writes `text` on stderr as one printable line, now. */
export const stderrNow = (text: string): void => {
  erase()
  process.stderr.write(line(printable(text, false)))
}

/** Writes lines for people on stdout; each value from the service in them went through `field`. */
export const stdout = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    erase()
    process.stdout.write(line(printable(text, true)))
  })

/** Writes `text` on stderr as one printable line. */
export const stderr = (text: string): Effect.Effect<void> => Effect.sync(() => stderrNow(text))

/** Writes one JSON value as one line on stdout, as is: results for programs, escaped by `JSON.stringify`. */
export const json = (value: unknown): Effect.Effect<void> => jsonText(JSON.stringify(value))

/** Writes text that is JSON already as one line on stdout, as is. */
export const jsonText = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    erase()
    process.stdout.write(line(text))
  })

/** Lays rows out in columns padded to their widest cell; the last column is not padded. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)))
  return all
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd()
    )
    .join("\n")
}

/** `count` and its noun, singular for one: `1 design`, `2 designs`. */
export const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`
