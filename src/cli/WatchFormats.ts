/** A watch's events as `text` (a line an event, by watch), `json` lines, `csv` or `html` (every text escaped): docs/watch.md. */
import type { WatchEvent, WatchRun } from "../DesignWatch.js"
import * as Output from "./Output.js"

/** What is told of each watch: its events, and for a run whether it was the baseline and what it follows. */
export type Told = Pick<WatchRun, "watch" | "events"> & Partial<Pick<WatchRun, "baseline" | "following">>

const list = (value: unknown) => (Array.isArray(value) ? value.join(", ") || "-" : String(value ?? "-"))

/** What happened, in words: `status FILED → REGISTERED`. */
const what = ({ event, fields }: Pick<WatchEvent, "event" | "fields">): string =>
  event === "new" || event === "no_longer_matching"
    ? event.replace(/_/g, " ")
    : event === "expiring"
    ? `expiring on ${String(fields.expiryDate)}`
    : `${event} ${list(fields.old)} → ${list(fields.new)}`

const text = (told: ReadonlyArray<Told>) =>
  told.flatMap((w) => [
    w.baseline === true
      ? `${w.watch}: baseline, following ${Output.counted(w.following ?? 0, "design")}`
      : `${w.watch}: ${Output.counted(w.events.length, "event")}`,
    ...w.events.map((e) => Output.field(`  ${e.at.slice(0, 10)}  ${e.number}  ${what(e)}  (${e.design.title ?? "-"})`))
  ]).join("\n")

const events = (told: ReadonlyArray<Told>) => told.flatMap((w) => w.events)
const jsonLine = ({ at, design, event, fields, number, watch }: WatchEvent) =>
  JSON.stringify({ watch, number, event, at, ...fields, design })

/** A CSV cell (RFC 4180), a leading `=`, `+`, `-` or `@` quoted away so that a spreadsheet reads no formula. */
const cell = (value: unknown) => {
  const text = Array.isArray(value) ? value.join("; ") : String(value ?? "")
  // after any spaces, as a spreadsheet skips them; the full-width forms too, as some read them so
  const safe = /^[\s\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|^[\t\r]/.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, "\"\"")}"` : safe
}
const csvRow = (
  { at, design: d, event, fields: f, number, watch }: WatchEvent
) => [watch, number, event, at, f.old, f.new, f.expiryDate, d.title, d.status, d.owners, d.classes]
const csvHeader = "watch,number,event,at,old,new,expiry_date,title,status,owners,classes".split(",")

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }
/** Text as HTML shows it, never as markup. */
const escape = (value: unknown) => String(value ?? "").replace(/[&<>"']/g, (c) => escapes[c] ?? c)

const style =
  `body{font:14px/1.4 system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%;margin:1em 0}
th,td{border:1px solid #bbb;padding:.3em .5em;text-align:left;vertical-align:top}th{background:#eee}
@media print{body{margin:0;font-size:11px}tr{break-inside:avoid}}`

const row = (cells: ReadonlyArray<unknown>, tag = "td") =>
  `<tr>${cells.map((c) => `<${tag}>${escape(c)}</${tag}>`).join("")}</tr>`
const htmlRow = ({ design: d, ...e }: WatchEvent) =>
  row([e.number, what(e), e.at.slice(0, 10), d.title, d.status, list(d.owners), list(d.classes)])
const kinds = ["new", "status", "owner", "classification", "expiring", "no_longer_matching"] as const
const count = (w: Told) => row([w.watch, ...kinds.map((k) => w.events.filter((e) => e.event === k).length)])

const section = (w: Told) =>
  `<h2>${escape(w.watch)}</h2>` + (w.baseline === true
    ? `<p>Baseline: following ${escape(w.following)} designs.</p>`
    : w.events.length === 0
    ? "<p>No events.</p>"
    : `<table>${row(["Number", "Event", "Seen", "Title", "Status", "Owner", "Classes"], "th")}${
      w.events.map(htmlRow).join("")
    }</table>`)

const html = (told: ReadonlyArray<Told>, title: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title><style>${style}</style>`
  + `</head><body><h1>${escape(title)}</h1><table>${row(["Watch", ...kinds], "th")}${told.map(count).join("")}`
  + `</table>${told.map(section).join("\n")}</body></html>`

const formats = {
  text,
  json: (told: ReadonlyArray<Told>) => events(told).map(jsonLine).join("\n"),
  csv: (told: ReadonlyArray<Told>) =>
    [csvHeader, ...events(told).map(csvRow)].map((r) => r.map(cell).join(",")).join("\r\n"),
  html
}

/** The events of `told` in `format`, as one text (no final newline), `title` naming an HTML page. */
export const render = (format: keyof typeof formats, told: ReadonlyArray<Told>, title: string): string =>
  formats[format](told, title)
