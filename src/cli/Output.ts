/**
 * Where the CLI writes: results on stdout, everything for people (notices, messages, progress,
 * failures) on stderr, so that `--json` output can be piped as is. Writes are synchronous
 * (`process.stdout.write` on files and pipes), so a line is out before the next step runs.
 */
import { Effect } from "effect"

const line = (text: string) => (text.endsWith("\n") ? text : text + "\n")

/** Writes `text` as one line (or several) on stdout. */
export const stdout = (text: string): Effect.Effect<void> => Effect.sync(() => void process.stdout.write(line(text)))

/** Writes `text` as one line (or several) on stderr. */
export const stderr = (text: string): Effect.Effect<void> => Effect.sync(() => void process.stderr.write(line(text)))

/** Writes `text` on stderr as is: for a progress bar redrawn in place. */
export const stderrRaw = (text: string): Effect.Effect<void> => Effect.sync(() => void process.stderr.write(text))

/** Whether stderr is a terminal (progress bars are drawn only there). */
export const stderrIsTTY: Effect.Effect<boolean> = Effect.sync(() => process.stderr.isTTY === true)

/** Writes one JSON value as one line on stdout. */
export const json = (value: unknown): Effect.Effect<void> => stdout(JSON.stringify(value))

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
