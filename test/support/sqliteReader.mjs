/**
 * A reader of a SQLite file in a process of its own, as an analyst's `sqlite3` shell is: it opens
 * the file, holds a read transaction, and prints `held`. With `until-writer MILLIS`, it lets go
 * MILLIS after a writer shows it is waiting (the file's rollback journal appears), and prints
 * `released`; otherwise it holds until it is killed.
 */
import Database from "libsql"
import { watch } from "node:fs"
import { basename, dirname } from "node:path"
import process from "node:process"
import { setInterval, setTimeout } from "node:timers"

const [file, mode, millis] = process.argv.slice(2)
const db = new Database(file)
db.exec("BEGIN")
db.prepare("SELECT count(*) FROM sqlite_master").all()
if (mode === "until-writer") {
  const watcher = watch(dirname(file), (_event, name) => {
    if (name !== `${basename(file)}-journal`) return
    watcher.close()
    setTimeout(() => {
      db.exec("ROLLBACK")
      process.stdout.write("released\n")
    }, Number(millis ?? 0))
  })
} else {
  setInterval(() => {}, 60_000)
}
process.stdout.write("held\n")
