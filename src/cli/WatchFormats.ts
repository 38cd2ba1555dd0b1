/**
 * A watch's events for `watch run` and `watch report`: `text` for people (a line an event, by
 * watch), `json` (a JSON object a line), `csv` (a header, a row an event), `html` (one
 * self-contained file, every text escaped, readable when printed). See docs/watch.md.
 */
import type { WatchEvent, WatchRun } from "../DesignWatch.js"
import * as Output from "./Output.js"

/** What is told of each watch: its events, and for a run whether it was the baseline and what it follows. */
export type Told = Pick<WatchRun, "watch" | "events"> & Partial<Pick<WatchRun, "baseline" | "following">>

const list = (value: unknown) => (Array.isArray(value) ? value.join(", ") || "-" : String(value ?? "-"))

/** What happened, in words: `status FILED → REGISTERED`. */
export const what = (e: WatchEvent): string => {
  const { expiryDate, new: now, old } = e.fields
  switch (e.event) {
    case "new":
      return "new"
    case "expiring":
      return `expiring on ${String(expiryDate)}`
    case "no_longer_matching":
      return "no longer matching"
    default:
      return `${e.event} ${list(old)} → ${list(now)}`
  }
}

const text = (told: ReadonlyArray<Told>) =>
  told.flatMap((w) => [
    w.baseline === true
      ? `${w.watch}: baseline, following ${Output.counted(w.following ?? 0, "design")}`
      : `${w.watch}: ${Output.counted(w.events.length, "event")}`,
    ...w.events.map((e) =>
      Output.field(`  ${e.at.slice(0, 10)}  ${e.number}  ${what(e)}  (${e.design.title ?? "untitled"})`)
    )
  ]).join("\n")

const json = (told: ReadonlyArray<Told>) =>
  told.flatMap((w) =>
    w.events.map(({ at, design, event, fields, number, watch }) =>
      JSON.stringify({ watch, number, event, at, ...fields, design })
    )
  ).join("\n")

const columns = ["watch", "number", "event", "at", "old", "new", "expiry_date", "title", "status", "owners", "classes"]

/** A CSV cell (RFC 4180), a leading `=`, `+`, `-` or `@` quoted away so that a spreadsheet reads no formula. */
const cell = (value: string) => {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, "\"\"")}"` : safe
}

const csv = (told: ReadonlyArray<Told>) =>
  [
    columns,
    ...told.flatMap((w) =>
      w.events.map((e) => {
        const { expiryDate, new: now, old } = e.fields
        const { classes, owners, status, title } = e.design
        const of = (v: unknown) => (v === undefined ? "" : Array.isArray(v) ? v.join("; ") : String(v ?? ""))
        return [e.watch, e.number, e.event, e.at, of(old), of(now), of(expiryDate), of(title), of(status)]
          .concat([owners.join("; "), classes.join("; ")])
      })
    )
  ].map((row) => row.map(cell).join(",")).join("\r\n")

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }
/** Text as HTML shows it, never as markup. */
export const escape = (value: unknown) => String(value ?? "").replace(/[&<>"']/g, (c) => escapes[c] ?? c)

const style =
  `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #bbb;padding:.3em .5em;text-align:left;vertical-align:top}th{background:#eee}
@media print{body{margin:0;font-size:11px}h2{break-before:auto}tr{break-inside:avoid}}`

const row = (cells: ReadonlyArray<unknown>, tag = "td") =>
  `<tr>${cells.map((c) => `<${tag}>${escape(c)}</${tag}>`).join("")}</tr>`

const html = (told: ReadonlyArray<Told>, title: string) => {
  const kinds = ["new", "status", "owner", "classification", "expiring", "no_longer_matching"] as const
  const summary = told.map((w) => row([w.watch, ...kinds.map((k) => w.events.filter((e) => e.event === k).length)]))
  const sections = told.map((w) =>
    `<h2>${escape(w.watch)}</h2>` + (w.baseline === true
      ? `<p>Baseline: following ${escape(w.following)} designs.</p>`
      : w.events.length === 0
      ? "<p>No events.</p>"
      : `<table>${row(["Number", "Event", "Seen", "Title", "Status", "Owner", "Classes"], "th")}${
        w.events.map((e) =>
          row([
            e.number,
            what(e),
            e.at.slice(0, 10),
            e.design.title,
            e.design.status,
            list(e.design.owners),
            list(e.design.classes)
          ])
        ).join("")
      }</table>`)
  )
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${
    escape(title)
  }</title><style>${style}</style>
</head><body><h1>${escape(title)}</h1><table>${row(["Watch", ...kinds], "th")}${summary.join("")}</table>${
    sections.join("\n")
  }</body></html>`
}

/** The events of `told` in `format`, as one text (no final newline), `title` naming an HTML page. */
export const render = (format: "text" | "json" | "csv" | "html", told: ReadonlyArray<Told>, title: string): string =>
  format === "text" ? text(told) : format === "json" ? json(told) : format === "csv" ? csv(told) : html(told, title)
