/**
 * What an error built from a response says of the server's `errors`: each as `CODE at /pointer:
 * detail`, or the body's excerpt when it sent none, the same words in every edition.
 */
import { cap } from "../mask/mask.js"
import type { ErrorObject } from "./wire.js"

/** Longest account of a response's errors a `message` gives: the fields keep them whole. */
const maxDescribed = 1000

/** An error object with the part of the request it points at: `CODE at /pointer: detail`. */
const describeOne = ({ code, detail, source }: ErrorObject): string => {
  const at = source?.pointer ?? source?.parameter
  return `${code}${at === undefined || at === "" ? "" : ` at ${at}`}: ${detail}`
}

/** The errors of a response, the excerpt of its body when it sent none, and how many could not be read. */
export const describeErrors = (errors: ReadonlyArray<ErrorObject>, excerpt: string, unreadable = 0): string => {
  const told = errors.length > 0
    ? cap(errors.map(describeOne).join("; "), maxDescribed)
    : excerpt === ""
    ? "(empty body)"
    : excerpt
  return unreadable > 0 ? `${told} (and ${unreadable} unreadable error or message objects)` : told
}
