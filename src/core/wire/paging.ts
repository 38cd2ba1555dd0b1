/**
 * What the paged stream of full designs says, as plain data: the codes and texts of its warnings
 * and its options' problems (what it remembers is `numberSet.ts`). Each edition streams with its
 * own `Stream`; the counts and words are the same.
 */
import type { Message } from "./wire.js"

// The codes of the stream's warnings in `PageInfo.messages`; `DesignSearchClient` tells what each means.
export const pagedSearchUnavailable = "PAGED_SEARCH_UNAVAILABLE"
export const fewerThanCounted = "FEWER_THAN_COUNTED"
export const repeatedDesigns = "REPEATED_DESIGNS"

/** What is wrong with each option that can be. */
export const pagedProblems = {
  options: "expected an object of options",
  pageSize: "expected an integer from 1 to 100",
  startPage: "expected an integer from 0",
  concurrency: "expected a positive integer",
  onPage: "expected a function",
  onNotFound: "expected a function",
  onSearch: "expected a function"
} as const

/** How many pages of `pageSize` designs `count` designs fill. */
export const pagesOf = (count: number, pageSize: number): number => Math.ceil(count / pageSize)

const warning = (code: string, detail: string): Message => ({ code, detail, severity: "warning" })

/** The warning of a page holding `repeated` designs an earlier page held; `last` when no later page is asked for. */
export const repeatedWarning = (repeated: number, last: boolean): Message =>
  warning(
    repeatedDesigns,
    `${repeated} of this page's designs were on an earlier page (the results changed while they were read): ` +
      "each is emitted once, and a design may have moved onto a page read before" +
      (last ? "; no later page is asked for" : "")
  )

/** The warning of a page before the last that held `held` designs where `pageSize` were asked for. */
export const shortPageWarning = (
  page: { readonly pageNumber: number; readonly held: number; readonly pageSize: number },
  count: number,
  pages: number
): Message =>
  warning(
    fewerThanCounted,
    `page ${page.pageNumber} held ${page.held} designs where ${page.pageSize} were asked for, ` +
      `though ${count} were counted (${pages} pages): no later page is asked for`
  )

/** The notice of the fallback: the paged search was refused with `status`. */
export const refusedWarning = (status: number): Message =>
  warning(
    pagedSearchUnavailable,
    `the paged search was refused (HTTP ${status}); each design is fetched on its own`
  )

/** The warning of a search that counted `count` designs and listed fewer, `listed`. */
export const fewerListedWarning = (count: number, listed: number): Message =>
  warning(
    fewerThanCounted,
    `the search counted ${count} designs and listed ${listed}: only those listed are fetched`
  )
