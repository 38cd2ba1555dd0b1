/**
 * The JSONL file an export writes, one design a line. Opening reads what an earlier run left, drops
 * a line cut short by a crash, and refuses a file of anything but designs. Appends are whole lines,
 * serialized and uninterruptible; a write that fails half-way is cut back to the last whole line.
 */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Either, Option, Schema } from "effect"
import type { Scope } from "effect"
import { Designs } from "../index.js"
import { FileError, UsageError } from "./failure.js"

/** An export file, open for appending. */
export interface ExportFile {
  /** Design numbers already in the file. */
  readonly existing: ReadonlySet<string>
  /** What opening repaired, if anything, to tell the user. */
  readonly repaired: Option.Option<string>
  /** Appends lines in one write (a newline is added to each). */
  readonly append: (lines: ReadonlyArray<string>) => Effect.Effect<void, FileError>
  /** Whether the file holds only whole lines: false after a failed write that could not be cut back. */
  readonly intact: () => boolean
}

const decodeDesignJson = Schema.decodeUnknownEither(Schema.parseJson(Designs.Design))
const newline = 0x0a

/** What an earlier run left: the numbers on its complete lines, and how to treat its tail. */
export interface Scan {
  readonly numbers: ReadonlySet<string>
  /** Bytes up to and including the last newline. */
  readonly completeBytes: number
  /** After the last newline: nothing, a whole record missing its newline, or a cut-off line. */
  readonly tail: "none" | "unterminated" | "partial"
}

/** Reads an export file's content; `Left` names the first line that is not a design. */
export const scan = (bytes: Uint8Array): Either.Either<Scan, { readonly line: number; readonly reason: string }> => {
  const completeBytes = bytes.lastIndexOf(newline) + 1
  const decoder = new TextDecoder()
  const numbers = new Set<string>()
  const lines = completeBytes === 0 ? [] : decoder.decode(bytes.subarray(0, completeBytes - 1)).split("\n")
  for (const [index, line] of lines.entries()) {
    const design = decodeDesignJson(line)
    if (Either.isLeft(design)) {
      return Either.left({ line: index + 1, reason: line.trim() === "" ? "it is empty" : "it is not a design record" })
    }
    numbers.add(design.right.number)
  }
  if (completeBytes === bytes.length) return Either.right({ numbers, completeBytes, tail: "none" })
  const last = decodeDesignJson(decoder.decode(bytes.subarray(completeBytes)))
  if (Either.isLeft(last)) return Either.right({ numbers, completeBytes, tail: "partial" })
  numbers.add(last.right.number)
  return Either.right({ numbers, completeBytes, tail: "unterminated" })
}

/** Why a file could not be used, in the CLI's words, by the errno code under the platform's error. */
const problems: Readonly<Record<string, string>> = {
  ENOENT: "its folder does not exist",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of its path is not a folder",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  ELOOP: "too many symbolic links on its path"
}

const problemOf = (error: PlatformError): string =>
  problems[error._tag === "SystemError" ? String((error.cause as { code?: unknown } | undefined)?.code) : ""] ??
    `${error._tag === "SystemError" ? error.reason : "bad argument"} (${error.description ?? error.method})`

/** The `FileError` of doing `what` to `path`. */
const fileError = (path: string, what: string) => (error: PlatformError) =>
  new FileError({ path, detail: `cannot ${what}: ${problemOf(error)}` })

/** Opens `path` for an export, creating it if need be; synced and closed when the scope closes. */
export const open = (
  path: string
): Effect.Effect<ExportFile, FileError | UsageError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    if (path.trim() === "") return yield* new UsageError({ detail: "--out needs the path of a file" })
    const fs = yield* FileSystem.FileSystem
    const stat = yield* fs.stat(path).pipe(
      Effect.asSome,
      Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.succeedNone),
      Effect.mapError(fileError(path, "look at it"))
    )
    // A device, a pipe or a socket would be read forever (`/dev/zero`) or block (a FIFO).
    const type = Option.getOrUndefined(stat)?.type
    if (type !== undefined && type !== "File") {
      const why = type === "Directory"
        ? "it is a folder"
        : "it is not a regular file (an export appends to a file it reads back)"
      return yield* new FileError({ path, detail: `cannot open it for writing: ${why}` })
    }
    const found = type === undefined
      ? new Uint8Array(0)
      : yield* Effect.mapError(fs.readFile(path), fileError(path, "read it"))
    const scanned = scan(found)
    if (Either.isLeft(scanned)) {
      const { line, reason } = scanned.left
      return yield* new UsageError({
        detail:
          `${path} line ${line}: ${reason}; an export only appends to a JSONL file of designs, choose another --out`
      })
    }
    const { numbers, completeBytes, tail } = scanned.right
    if (tail === "partial") yield* Effect.mapError(fs.truncate(path, completeBytes), fileError(path, "repair it"))
    const file = yield* Effect.mapError(fs.open(path, { flag: "a" }), fileError(path, "open it for writing"))
    yield* Effect.addFinalizer(() => Effect.ignore(file.sync))
    const lock = yield* Effect.makeSemaphore(1)
    const encoder = new TextEncoder()
    // The length of the whole lines written; a write cut short (no space left) is cut back to it.
    let size = tail === "partial" ? completeBytes : found.length
    let intact = true
    const write = (text: string) => {
      const bytes = encoder.encode(text)
      return lock.withPermits(1)(
        file.writeAll(bytes).pipe(
          Effect.tap(() => void (size += bytes.length)),
          Effect.tapError(() =>
            fs.truncate(path, size).pipe(Effect.match({ onFailure: () => void (intact = false), onSuccess: () => {} }))
          ),
          Effect.mapError(fileError(path, "write to it"))
        )
      ).pipe(Effect.uninterruptible)
    }
    if (tail === "unterminated") yield* write("\n")
    return {
      existing: numbers,
      repaired: tail === "partial"
        ? Option.some(`dropped an incomplete last line of ${path} (left by an interrupted run)`)
        : tail === "unterminated"
        ? Option.some(`ended the last line of ${path} with a newline`)
        : Option.none(),
      append: (lines) => lines.length === 0 ? Effect.void : write(lines.join("\n") + "\n"),
      intact: () => intact
    } satisfies ExportFile
  })
