import { readFileSync, readdirSync } from "node:fs"
const dir = process.argv[2]
const f = readdirSync(dir).filter((x) => x.endsWith(".cpuprofile"))[0]
const p = JSON.parse(readFileSync(dir + "/" + f, "utf8"))
const byId = new Map(p.nodes.map((n) => [n.id, n]))
const self = new Map()
const dt = p.timeDeltas; let total = 0
p.samples.forEach((id, i) => { const n = byId.get(id); const d = dt[i] ?? 0; total += d
  const key = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.replace(/.*node_modules\//, "nm/").replace(/.*\/work\/main\//, "")}:${n.callFrame.lineNumber}`
  self.set(key, (self.get(key) ?? 0) + d) })
// aggregate by file
const byFile = new Map()
for (const [k, v] of self) { const file = k.split(" ")[1].split(":")[0]; byFile.set(file, (byFile.get(file) ?? 0) + v) }
console.log("total ms", (total/1000).toFixed(0))
console.log([...byFile].sort((a,b)=>b[1]-a[1]).slice(0,25).map(([k,v])=>`${(v/total*100).toFixed(1)}% ${k}`).join("\n"))
console.log("---")
console.log([...self].sort((a,b)=>b[1]-a[1]).slice(0,25).map(([k,v])=>`${(v/total*100).toFixed(1)}% ${k}`).join("\n"))
