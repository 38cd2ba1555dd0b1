/**
 * What guards the MCP server: the read-only SQL an agent's `mirror_query` may run, and the lines
 * its stdio transport hands the server.
 */
import { describe, expect, it } from "@effect/vitest"
import { screen } from "../src/core/mcp/requests.js"
import { readOnlySql } from "../src/core/mirror/readOnlySql.js"

describe("mirror_query's SQL", () => {
  it("runs one SELECT or WITH … SELECT, its comments out and no ';' at its end", () => {
    expect(readOnlySql("SELECT number, title FROM designs -- the lot\n WHERE status = 'a;b';")).toEqual({
      sql: "SELECT number, title FROM designs  \n WHERE status = 'a;b'"
    })
    expect(
      readOnlySql(
        "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT count(n) FROM r"
      )
    )
      .toHaveProperty("sql")
    expect(readOnlySql("select json_extract(d.record, '$.title') from designs d")).toHaveProperty("sql")
  })

  it.each([
    ["SELECT writefile('/tmp/x', 'gone')", "writefile"],
    ["SELECT CAST(data AS TEXT) FROM fsdir('/home')", "fsdir"],
    ["SELECT \"readfile\"('/etc/passwd')", "readfile"],
    ["SELECT [writefile]('x', 'y')", "writefile"],
    ["SELECT lo_import('/etc/hostname')", "lo_import"],
    ["SELECT pg_catalog.pg_read_file('/etc/hostname')", "pg_read_file"],
    ["SELECT pg_advisory_lock(1, 2)", "pg_advisory_lock"],
    ["SELECT load_extension('x')", "load_extension"],
    ["SELECT * FROM pragma_table_info('designs')", "pragma_table_info"],
    ["SELECT 1 INTO copy_of", "into"],
    ["PRAGMA query_only = OFF", "SELECT"],
    ["WITH x AS (DELETE FROM designs RETURNING *) SELECT * FROM x", "delete"],
    ["SELECT 1; DROP TABLE designs", "drop"],
    ["SELECT 1; SELECT 2", "one statement"],
    ["SELECT $$x$$", "$"],
    ["SELECT 1) /*", ")"],
    ["VALUES (1)", "SELECT"]
  ])("refuses %s", (sql, named) => {
    const checked = readOnlySql(sql)
    expect("refused" in checked && checked.refused).toContain(named)
  })
})

describe("the MCP server's stdio lines", () => {
  it("hands a JSON-RPC request of MCP to the server as it is", () => {
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
    expect(screen(line)).toEqual({ forward: line })
    expect(screen(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)).toHaveProperty("forward")
  })

  it("gives a tools/call with no arguments an empty object of them", () => {
    const forwarded = screen(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_designs"}}`)
    expect("forward" in forwarded && JSON.parse(forwarded.forward).params).toEqual({
      name: "search_designs",
      arguments: {}
    })
  })

  it.each([
    ["{not json", null, -32700],
    [`{"jsonrpc":"2.0","id":"abc","method":"ping"}`, "abc", -32600],
    [`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 1.5, -32600],
    [`{"jsonrpc":"2.0","id":3,"method":"no/such"}`, 3, -32601],
    [`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"x"}`, 4, -32602],
    [`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_design","arguments":"x"}}`, 5, -32602]
  ])("answers %s itself, with the JSON-RPC error it calls for", (line, id, code) => {
    const screened = screen(line)
    expect("reply" in screened && JSON.parse(screened.reply ?? "")).toMatchObject({ id, error: { code } })
  })

  it("drops a blank line, and a notification MCP has not, with no answer", () => {
    expect(screen("   ")).toEqual({ reply: undefined })
    expect(screen(`{"jsonrpc":"2.0","method":"ping"}`)).toEqual({ reply: undefined })
  })
})
