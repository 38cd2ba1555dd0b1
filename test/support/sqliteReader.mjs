/**
 * Another process on a SQLite file: a reader, as an analyst's `sqlite3` shell is, holding a read
 * transaction (`read`), or a writer holding the file's write lock (`write`), as another program
 * writing to it does. It prints `held` once it holds; with MILLIS, it lets go MILLIS later and
 * prints `released`; otherwise it holds until it is killed.
 */
import Database from "libsql"
import process from "node:process"
import { setInterval, setTimeout } from "node:timers"

const [file, mode, millis] = process.argv.slice(2)
const db = new Database(file)
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
