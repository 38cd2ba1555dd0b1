/** The repository's documents as the tests read them: README.md and docs/*.md, and their fenced blocks. */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../..", import.meta.url))

export const docFiles = [
  "README.md",
  ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)
]
export const texts = new Map(docFiles.map((file) => [file, fs.readFileSync(path.join(root, file), "utf8")]))

/** A fenced block of a document: its language, first line (1-based) and lines. */
export interface Block {
  readonly file: string
  readonly lang: string
  readonly line: number
  readonly lines: ReadonlyArray<string>
}

const blocksOf = (file: string, text: string): ReadonlyArray<Block> => {
  const blocks: Array<Block> = []
  let open: { lang: string; line: number; lines: Array<string> } | undefined
  text.split("\n").forEach((line, i) => {
    const fence = /^```(\S*)\s*$/.exec(line)
    if (fence === null) open?.lines.push(line)
    else if (open === undefined) open = { lang: fence[1] ?? "", line: i + 2, lines: [] }
    else {
      blocks.push({ file, ...open })
      open = undefined
    }
  })
  return blocks
}
export const blocks = docFiles.flatMap((file) => blocksOf(file, texts.get(file)!))

/** The README's blocks of `lang` (`ts`, `text`...), in order, each as its text (every line ending in a newline). */
export const readmeBlocks = (lang: string): ReadonlyArray<string> =>
  blocks.filter((block) => block.file === "README.md" && block.lang === lang).map((b) => `${b.lines.join("\n")}\n`)

export const trimLines = (text: string) => text.split("\n").map((line) => line.trimEnd()).join("\n").trim()
