/**
 * `design-search watch`: its command line (each action's options, refused before anything opens),
 * its four formats (the HTML read back by an HTML parser, every text of the register escaped), and
 * the built command against a served sandbox whose register moves on: the baseline, events told
 * once, reports of any range, and the cron line of docs/watch.md. The CLI is Effect 3's only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse, parseFragment } from "parse5"
import type { DefaultTreeAdapterMap } from "parse5"
import { plan } from "../src/cli/Cli.js"
import { render } from "../src/cli/WatchFormats.js"
import type { Told } from "../src/cli/WatchFormats.js"
import type { WatchEvent } from "../src/DesignWatch.js"
import { Sandbox } from "../src/index.js"
import { cliPath, envFor, freshFolder, run } from "./support/cli.effect3.js"

type Node = DefaultTreeAdapterMap["childNode"] | DefaultTreeAdapterMap["document"]
const children = (node: Node): ReadonlyArray<Node> => ("childNodes" in node ? node.childNodes : [])
const all = (node: Node): ReadonlyArray<Node> => [node, ...children(node).flatMap(all)]
const textOf = (node: Node): string =>
  node.nodeName === "#text" && "value" in node ? node.value : children(node).map(textOf).join("")
const elements = (node: Node, name: string) => all(node).filter((n) => n.nodeName === name)

const hostile = "<script>alert(1)</script> & \"quotes\" 'single' </td></tr></table><b>bold</b>\nnext line"
const event = (over: Partial<WatchEvent>): WatchEvent => ({
  watch: "chairs <i>",
  number: "201900001",
  event: "status",
  at: "2026-12-02T09:00:00.000Z",
  fields: { old: "FILED", new: "REGISTERED" },
  design: { title: hostile, status: "REGISTERED", owners: ["O'Neil & Sons <Pty>"], classes: ["06-01"] },
  ...over
})
const told: ReadonlyArray<Told> = [
  {
    watch: "chairs <i>",
    events: [
      event({}),
      event({ event: "owner", fields: { old: ["=cmd|' /C calc'!A0"], new: [" =1+1", "＝2"] } }),
      event({ number: "202000002", event: "expiring", fields: { expiryDate: "2027-01-15" } })
    ]
  },
  { watch: "mine", baseline: true, following: 2, events: [] }
]

describe("design-search watch, its formats", () => {
  it("html: one document, a summary of counts by watch and event, then each event; every text escaped", () => {
    const errors: Array<string> = []
    const page = render("html", told, "Design watch <report>")
    const document = parse(page, { onParseError: (e) => void errors.push(e.code) })
    expect(errors).toEqual([])
    expect(elements(document, "script")).toEqual([])
    expect(elements(document, "b")).toEqual([])
    expect(elements(document, "i")).toEqual([])
    expect(elements(document, "link").concat(elements(document, "img"))).toEqual([])
    expect(textOf(elements(document, "title")[0]!)).toBe("Design watch <report>")
    const [summary, events] = elements(document, "table")
    const cells = (table: Node) =>
      elements(table, "tr").map((tr) => children(tr).filter((c) => c.nodeName !== "#text").map(textOf))
    expect(cells(summary!)).toEqual([
      ["Watch", "new", "status", "owner", "classification", "expiring", "no_longer_matching"],
      ["chairs <i>", "0", "1", "1", "0", "1", "0"],
      ["mine", "0", "0", "0", "0", "0", "0"]
    ])
    const rows = cells(events!)
    expect(rows[0]).toEqual(["Number", "Event", "Seen", "Title", "Status", "Owner", "Classes"])
    expect(rows[1]).toEqual(["201900001", "status FILED → REGISTERED", "2026-12-02", hostile, "REGISTERED"].concat(
      ["O'Neil & Sons <Pty>", "06-01"]
    ))
    expect(rows[3]?.[1]).toBe("expiring on 2027-01-15")
    expect(textOf(document)).toContain("Baseline: following 2 designs.")
    expect(page).toContain("@media print")
  })

  it("text: a header a watch, a line an event, a line break in a title escaped", () => {
    const lines = render("text", told, "").split("\n")
    expect(lines).toEqual([
      "chairs <i>: 3 events",
      expect.stringMatching(
        /^ {2}2026-12-02 {2}201900001 {2}status FILED → REGISTERED {2}\(<script>.*\\u000anext line\)$/
      ),
      expect.stringMatching(/^ {2}2026-12-02 {2}201900001 {2}owner =cmd\|' \/C calc'!A0 → {2}=1\+1, ＝2/),
      expect.stringMatching(/^ {2}2026-12-02 {2}202000002 {2}expiring on 2027-01-15/),
      "mine: baseline, following 2 designs"
    ])
  })

  it("json: a JSON object a line, with watch, number, event, at and the event's fields", () => {
    const lines = render("json", told, "").split("\n").map((l) => JSON.parse(l))
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatchObject({ watch: "chairs <i>", number: "201900001", event: "status", old: "FILED" })
    expect(lines[0]).toMatchObject({ new: "REGISTERED", at: "2026-12-02T09:00:00.000Z", design: { title: hostile } })
    expect(lines[2]).toMatchObject({ event: "expiring", expiryDate: "2027-01-15" })
  })

  it("csv: a header and a row an event, quoted as RFC 4180, no cell a spreadsheet formula", () => {
    const csv = render("csv", told, "")
    // RFC 4180 read back: quoted cells may hold commas, quotes and line breaks.
    const rows: Array<Array<string>> = [[]]
    for (const [, quoted, bare, end] of csv.matchAll(/(?:"((?:[^"]|"")*)"|([^",\r\n]*))(,|\r\n|$)/g)) {
      rows.at(-1)!.push(quoted === undefined ? bare! : quoted.replace(/""/g, "\""))
      if (end === "\r\n") rows.push([])
      if (end === "") break
    }
    expect(rows[0]).toEqual(["watch", "number", "event", "at", "old", "new", "expiry_date"].concat(
      ["title", "status", "owners", "classes"]
    ))
    expect(rows).toHaveLength(4)
    expect(rows[1]).toEqual(["chairs <i>", "201900001", "status", "2026-12-02T09:00:00.000Z", "FILED", "REGISTERED"]
      .concat(["", hostile, "REGISTERED", "O'Neil & Sons <Pty>", "06-01"]))
    expect(rows[2]?.slice(4, 6)).toEqual(["'=cmd|' /C calc'!A0", "' =1+1; ＝2"])
    expect(rows[3]?.[6]).toBe("2027-01-15")
  })

  it("each action takes its own options; a mistake is one usage line before anything opens", () => {
    const refused = (...args: Array<string>) =>
      Either.match(plan(["watch", ...args], "0"), { onLeft: (e) => e.detail, onRight: () => "planned" })
    expect(refused("watch", "--db", "x.db")).toMatch(/^`watch` is no action of watch: one of add, list/)
    expect(refused("list", "x", "--db", "x.db")).toMatch(/^watch list takes no name/)
    expect(refused("add", "--owner", "w", "--db", "x.db")).toMatch(/^watch add needs the watch's NAME/)
    expect(refused("add", "x", "--db", "x.db")).toMatch(/^a watch needs criteria/)
    expect(refused("add", "x", "--query", "chair", "--owner", "w", "--db", "x.db")).toMatch(/cannot be combined/)
    expect(refused("run", "--since", "today", "--db", "x.db")).toMatch(/^`--since` is not an option of watch run/)
    expect(refused("report", "x", "--owner", "w", "--db", "x.db")).toMatch(/`--owner` is not an option of watch report/)
    expect(refused("run", "a", "b", "--format", "pdf", "--db", "x.db")).toMatch(/`--format` takes one of text, json/)
    expect(refused("run", "a", "b", "c", "--db", "x.db")).toBe("planned")
    expect(refused("add", "x", "--numbers", "1,2", "--expiring-within", "30", "--db", "x.db")).toBe("planned")
  })
})

const inFolder = Effect.map(freshFolder, (dir) => path.join(dir, "designs.db"))

describe("design-search watch, built, against a served sandbox whose register moves on", () => {
  it.scopedLive("a baseline, then each event once in every format; report reads them again; an unknown watch is exit 2", () =>
    Effect.gen(function*() {
      const served = yield* Sandbox.serve({ port: 0, designs: 300 })
      const env = envFor(served)
      const db = yield* inFolder
      const cli = (...args: Array<string>) => run(["watch", ...args, "--db", db], env, "60 seconds")
      expect(
        (yield* cli("add", "all", "--status", "FILED", "--status", "REGISTERED", "--note", "in force"))
          .code
      ).toBe(0)
      expect((yield* cli("add", "mine", "--numbers", "201900001,202000002")).code).toBe(0)
      const listed = yield* cli("list")
      expect(listed.stdout).toMatch(
        /^NAME +CRITERIA.*\nall +\{"rows".*in force\nmine +- +201900001,202000002 +90 days +never/
      )
      const baseline = yield* cli("run")
      expect(baseline.code).toBe(0)
      expect(baseline.stdout).toMatch(/^all: baseline, following \d+ designs\nmine: baseline, following 2 designs\n$/)
      expect(baseline.stderr).toMatch(/ran 2 watches: 0 events; 2 syncs, \d+ API requests/)
      yield* served.control.advance("120 days")
      const moved = yield* cli("run", "all", "--format", "json")
      expect(moved.code).toBe(0)
      const events = moved.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(events.length).toBeGreaterThan(0)
      expect(new Set(events.map((e) => e.event))).toContain("status")
      for (const e of events) expect(Object.keys(e)).toEqual(expect.arrayContaining(["watch", "number", "event", "at"]))
      // an --out that cannot be written, or that is the mirror, is refused before the run commits anything
      yield* served.control.advance("60 days")
      for (const out of [path.join(path.dirname(db), "no-such-folder", "x.csv"), db]) {
        expect((yield* cli("run", "all", "--out", out)).code).toBe(2)
      }
      expect((yield* cli("report", "all", "--out", db)).code).toBe(2)
      // what moved is told by the next run that can write it: the refused ones committed nothing
      const later = (yield* cli("run", "all", "--format", "json")).stdout.trim().split("\n").filter((l) => l !== "")
      expect(later.length).toBeGreaterThan(0)
      const again = yield* cli("run", "all", "--format", "json")
      expect([again.code, again.stdout]).toEqual([0, ""])
      const html = path.join(path.dirname(db), "all.html")
      expect((yield* cli("report", "all", "--since", "2000-01-01", "--format", "html", "--out", html)).code).toBe(0)
      const document = parse(fs.readFileSync(html, "utf8"))
      const rows = elements(document, "tr").length
      // the summary's header and row, the events' header, a row an event
      const told = events.length + later.length
      expect(rows).toBe(3 + told)
      const csv = yield* cli("report", "all", "--format", "csv")
      expect(csv.stdout.trim().split("\r\n")).toHaveLength(1 + told)
      const missing = yield* cli("report", "nope")
      expect([missing.code, missing.stderr.trim().split("\n").at(-1)]).toEqual([
        2,
        "design-search: no watch named \"nope\""
      ])
      expect(parseFragment("<p>ok</p>").childNodes).toHaveLength(1)
    }))

  it.scopedLive("the cron line of docs/watch.md runs the watches and prints their events", () =>
    Effect.gen(function*() {
      const doc = fs.readFileSync(path.join(path.dirname(cliPath), "../../docs/watch.md"), "utf8")
      const line = /^```crontab\n(?:#.*\n)*(.*)\n```$/m.exec(doc)?.[1] ?? ""
      const command = line.split(/\s+/).slice(5).join(" ").replace(/~\//g, "")
      expect(command).toMatch(/^design-search watch run --db \S+/)
      const home = path.dirname(yield* inFolder)
      fs.mkdirSync(path.join(home, "bin"))
      const script = `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`
      fs.writeFileSync(path.join(home, "bin", "design-search"), script, { mode: 0o755 })
      const PATH = `${path.join(home, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`
      const shell = (command: string) =>
        Effect.async<{ code: number; stdout: string }>((resume) =>
          void execFile(
            "/bin/sh",
            ["-c", command],
            { cwd: home, env: { PATH, HOME: home, XDG_CACHE_HOME: home } },
            (e, stdout) =>
              resume(Effect.succeed({ code: e === null ? 0 : typeof e.code === "number" ? e.code : -1, stdout }))
          )
        )
      const db = /--db (\S+)/.exec(command)?.[1] ?? ""
      expect((yield* shell(`design-search watch add chairs --query chair --db ${db}`)).code).toBe(0)
      const outcome = yield* shell(command)
      expect(outcome).toEqual({ code: 0, stdout: "chairs: baseline, following 4 designs\n" })
    }))
})
