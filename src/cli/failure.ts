/** How a failed command ends: its exit code and one or two lines on stderr (`docs/cli.md`). */
import type { HttpServerError } from "@effect/platform"
import type { ConfigError } from "effect"
import { Cause, Schema } from "effect"
import type * as DesignMirror from "../DesignMirror.js"
import type { WatchNotFoundError } from "../DesignWatch.js"
import type { ApiError } from "../index.js"

/** Exit codes of the `design-search` command. */
export const ExitCode = { success: 0, failure: 1, usage: 2, configuration: 3, interrupted: 130 } as const

/** A usage mistake only the CLI can see (an unknown option, a corrupt export file). */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { detail: Schema.String }) {
  override get message(): string {
    return this.detail
  }
}

/** A file the user named could not be read or written: what was tried, and why it failed. */
export class FileError extends Schema.TaggedError<FileError>()("FileError", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.path}: ${this.detail}`
  }
}

/** An answer `design-search api` was given and tells as its error: exit 1, the request was sent and answered. */
export class AnsweredError extends Schema.TaggedError<AnsweredError>()("AnsweredError", { detail: Schema.String }) {
  override get message(): string {
    return this.detail
  }
}

/** Every way a command can fail. */
export type Failure =
  | ApiError.DesignSearchError
  | ConfigError.ConfigError
  | UsageError
  | AnsweredError
  | FileError
  | HttpServerError.ServeError
  | DesignMirror.MirrorDatabaseError
  | DesignMirror.SqlDriverMissingError
  | DesignMirror.IncompleteSyncError
  | WatchNotFoundError

/** The exit code of a failure. */
export const exitCode = (failure: Failure): number => {
  switch (failure._tag) {
    case "ValidationError":
    case "BadRequestError":
    case "UsageError":
    case "FileError":
    case "WatchNotFoundError":
      return ExitCode.usage
    case "ConfigError":
    case "AuthenticationError":
    case "ForbiddenError":
    case "SqlDriverMissingError":
      return ExitCode.configuration
    case "TokenError":
      return failure.reason === "InvalidCredentials" ? ExitCode.configuration : ExitCode.failure
    default:
      return ExitCode.failure
  }
}

/** The leaves of a `ConfigError`: the setting each names, and what is wrong with it. */
const configProblems = (
  error: ConfigError.ConfigError
): ReadonlyArray<{ readonly name: string; readonly problem: string }> => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...configProblems(error.left), ...configProblems(error.right)]
    default: {
      const name = error.path.join(".")
      const problem = error._op === "MissingData"
        ? `${name} is not set`
        : name !== "" && !error.message.includes(name)
        ? `${name}: ${error.message}`
        : error.message
      return [{ name, problem }]
    }
  }
}

const causeMessage = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "unknown cause"

/** The lines explaining a failure on stderr: one, or two with a hint. Never a stack, never a secret. */
export const render = (failure: Failure): ReadonlyArray<string> => {
  switch (failure._tag) {
    case "ConfigError": {
      const problems = configProblems(failure)
      const line = `design-search: configuration: ${problems.map((p) => p.problem).join("; ")}`
      return problems.some((p) => p.name === "IPAUSTRALIA_CLIENT_ID" || p.name === "IPAUSTRALIA_CLIENT_SECRET")
        ? [line, "set IPAUSTRALIA_CLIENT_ID and IPAUSTRALIA_CLIENT_SECRET (and IPAUSTRALIA_ENV), or use --env sandbox"]
        : [line]
    }
    case "TokenError":
      return failure.reason === "InvalidCredentials"
        ? [`design-search: ${failure.message}`, "check IPAUSTRALIA_CLIENT_ID and IPAUSTRALIA_CLIENT_SECRET"]
        : [`design-search: ${failure.message}`]
    case "AuthenticationError":
      return [`design-search: ${failure.message}`, "the service did not accept a freshly issued access token"]
    case "ForbiddenError":
      return [
        `design-search: ${failure.message}`,
        "the credentials are valid but not entitled to the design search API"
      ]
    case "SqlDriverMissingError":
      return failure.packageName === "@effect/sql-libsql"
        ? [`design-search: ${failure.message}`, "in an Effect 4 application, give --db a postgres:// URL"]
        : [`design-search: ${failure.message}`]
    case "ServeError":
      return [`design-search: could not start the server: ${causeMessage(failure.cause)}`]
    default:
      return [`design-search: ${failure.message}`]
  }
}

/** The code and lines of a failed run; a defect is reported without its stack. */
export const fromCause = (
  cause: Cause.Cause<Failure>
): { readonly code: number; readonly lines: ReadonlyArray<string> } => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return { code: exitCode(failure.value), lines: render(failure.value) }
  if (Cause.isInterruptedOnly(cause)) return { code: ExitCode.interrupted, lines: ["design-search: interrupted"] }
  return { code: ExitCode.failure, lines: [`design-search: internal error: ${causeMessage(Cause.squash(cause))}`] }
}
