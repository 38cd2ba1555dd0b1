/**
 * Another process on a SQLite file: a reader, as an analyst's `sqlite3` shell is, holding a read
 * transaction (`read`), or a writer holding the file's write lock (`write`), as another program
 * writing to it does. It prints `held` once it holds; with MILLIS, it lets go MILLIS later and
 * prints `released`; otherwise it holds until it is killed. With `count`, it prints the number of
 * rows of `designs` it sees, and whether it could take the write lock (`writable` or `locked`).
 */
import Database from "libsql"
import process from "node:process"
import { setInterval, setTimeout } from "node:timers"

const [file, mode, millis] = process.argv.slice(2)
const db = new Database(file)
if (mode === "count") {
  const [count] = db.prepare("SELECT count(*) FROM designs").raw(true).all()[0]
  let lock = "writable"
  try {
    db.exec("BEGIN IMMEDIATE")
    db.exec("ROLLBACK")
  } catch {
    lock = "locked"
  }
  process.stdout.write(`${count} ${lock}\n`)
  process.exit(0)
}
db.exec(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN")
db.prepare("SELECT count(*) FROM sqlite_master").all()
if (Number(millis ?? 0) > 0) {
  setTimeout(() => {
    db.exec("ROLLBACK")
    process.stdout.write("released\n")
  }, Number(millis))
} else {
  setInterval(() => {}, 60_000)
}
process.stdout.write("held\n")
