/**
 * What an agent's query over a mirror may be: one SELECT (or WITH … SELECT), its comments taken
 * out, calling only functions known to read and change nothing. A read-only connection stops
 * writes to the tables, not SQLite's `writefile` or `fsdir`, nor PostgreSQL's `lo_import`,
 * `pg_read_file` or `pg_advisory_lock`: a list of what is allowed does, whatever the engine.
 */

const words = (text: string) => new Set(text.split(/\s+/))

/** Aggregates, window, text, number, date and JSON functions of SQLite and PostgreSQL that only compute. */
const functions = words(`count sum avg min max total group_concat string_agg array_agg json_agg jsonb_agg
  json_group_array json_group_object bool_and bool_or every row_number rank dense_rank percent_rank cume_dist
  ntile lag lead first_value last_value nth_value abs round ceil ceiling floor trunc sign mod power sqrt length
  char_length character_length octet_length lower upper trim ltrim rtrim btrim substr substring replace instr
  strpos position left right lpad rpad concat concat_ws printf format split_part reverse initcap hex unicode
  char like glob regexp_replace coalesce ifnull nullif iif greatest least typeof cast date time datetime julianday
  strftime unixepoch now date_trunc date_part extract to_char to_date to_timestamp age make_date json json_extract
  json_array_length json_each json_tree json_type json_valid json_object json_array jsonb_array_length
  json_array_elements json_array_elements_text jsonb_array_elements jsonb_array_elements_text json_extract_path_text
  jsonb_extract_path_text jsonb_typeof jsonb_each jsonb_each_text jsonb_object_keys to_json to_jsonb
  json_build_object jsonb_build_object unnest generate_series to_tsvector to_tsquery plainto_tsquery
  websearch_to_tsquery ts_rank`)

/** Words a `(` may follow that call no function. */
const grouping = words(`select from where and or not in exists values as on join using over filter within any all
  some case when then else between is by with recursive union intersect except having limit offset distinct
  lateral array row interval`)

/** Words of statements that write, lock or reach outside the query, refused anywhere but in a string. */
const writing = words(`insert update delete merge create drop alter attach detach pragma vacuum reindex analyze
  grant revoke copy truncate call do set reset begin commit rollback savepoint release lock listen notify load
  prepare execute into`)

/** A string, a quoted name, a comment, a word, or any other character. */
const token =
  /'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\[[^\]]*\]?|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|[\p{L}\w$]+|[\s\S]/gu

const notSelect = { refused: "only one read-only SELECT (or WITH … SELECT) runs here" }

/** The query as it runs (comments out, no `;` at its end), or why it is refused. */
export const readOnlySql = (text: string): { readonly sql: string } | { readonly refused: string } => {
  const kept: Array<string> = []
  let callee: string | undefined
  let depth = 0
  for (const [t] of text.matchAll(token)) {
    depth += t === "(" ? 1 : t === ")" ? -1 : 0
    // the query runs as a subquery: a `)` of its own would end it
    if (depth < 0) return { refused: "a ) that closes no (" }
    if (t.startsWith("--") || t.startsWith("/*")) {
      kept.push(" ")
      continue
    }
    const lower = t.toLowerCase()
    if (kept.every((k) => /^\s*$/.test(k)) && !/^\s$/.test(t) && lower !== "select" && lower !== "with") {
      return notSelect
    }
    if (t === "(" && callee !== undefined && !functions.has(callee) && !grouping.has(callee)) {
      return { refused: `${callee}(…) is not among the functions a query may call here` }
    }
    if (/^[\p{L}\w$]+$/u.test(t) && writing.has(lower)) return { refused: `${lower} is not read-only SQL` }
    if (t.includes("$") && !/^['"`[]/.test(t)) return { refused: "$ is only allowed in a string" }
    if (!/^\s$/.test(t)) {
      callee = /^["`[]/.test(t)
        ? t.slice(1, -1).toLowerCase()
        : /^[\p{L}\w]/u.test(t)
        ? lower
        : undefined
    }
    kept.push(t)
  }
  const sql = kept.join("").trim().replace(/;\s*$/, "")
  if (sql === "") return notSelect
  return sql.match(token)?.includes(";") ? { refused: "one statement only: no ';' but at its end" } : { sql }
}
