import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkActions } from "../check-actions.js";
import { callAction, loadSigned } from "../test-support/catalog-fixture.js";
import { credentialsFile, serverSkip, startMariadb } from "../test-support/servers.js";
import { sqlProblem } from "./sql-check.js";

const skip = serverSkip("mariadb");
if (skip) console.warn(`mysql_query server tests ${skip}`);

describe("the SQL check", () => {
  it.each([
    "SELECT 1",
    "select id, name from shop.items where name = 'a;b' -- trailing comment",
    "SHOW TABLES",
    "SHOW CREATE TABLE shop.items",
    "DESC shop.items",
    "EXPLAIN SELECT * FROM shop.items",
    "SELECT REPLACE(name, 'a', 'b') FROM shop.items;",
    "SELECT 'SLEEP(1); DROP TABLE x' AS text",
    "SELECT `update` FROM t",
  ])("accepts %s", (sql) => {
    expect(sqlProblem(sql)).toBeUndefined();
  });

  it.each([
    ["stacked statements", "SELECT 1; SELECT 2"],
    ["a write after a comment", "SELECT 1 /* harmless */; DELETE FROM shop.items"],
    ["a statement hidden after a line comment's end", "SELECT 1 -- x\n; DROP TABLE shop.items"],
    ["a write", "UPDATE shop.items SET name = 'x'"],
    ["INTO OUTFILE", "SELECT * FROM shop.items INTO OUTFILE '/tmp/x'"],
    ["INTO DUMPFILE", "SELECT 'x' INTO DUMPFILE '/tmp/x'"],
    ["LOAD_FILE", "SELECT LOAD_FILE('/etc/passwd')"],
    ["SLEEP", "SELECT SLEEP(100)"],
    ["BENCHMARK", "SELECT BENCHMARK(100000000, MD5('x'))"],
    ["FOR UPDATE", "SELECT * FROM shop.items FOR UPDATE"],
    ["LOCK IN SHARE MODE", "SELECT * FROM shop.items LOCK IN SHARE MODE"],
    ["an executable comment", "SELECT 1 /*!50000 , SLEEP(10) */"],
    ["EXPLAIN of a write", "EXPLAIN DELETE FROM shop.items"],
    ["ANALYZE, which runs the statement", "ANALYZE SELECT * FROM shop.items"],
    ["an unterminated string", "SELECT 'abc"],
    ["a MariaDB executable comment", "SELECT 1 /*M! , SLEEP(10) */"],
  ])("refuses %s", (_name, sql) => {
    expect(sqlProblem(sql)).toEqual(expect.any(String));
  });
});

describe.skipIf(skip !== undefined)("mysql_query against a real MariaDB", () => {
  let server: Awaited<ReturnType<typeof startMariadb>>;
  let dir: string;

  beforeAll(async () => {
    server = await startMariadb();
    dir = mkdtempSync(join(tmpdir(), "pablo-mysql-creds-"));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function action(user = "reader", config = "") {
    const credentials = credentialsFile(dir, {
      user,
      password: server.password,
      host: "127.0.0.1",
      port: server.port,
    });
    return {
      credentials,
      action: loadSigned(`
name: query
description: Query the shop database.
risk: read
builtin: mysql_query
builtin_config: { credentials_file: "${credentials}", database: shop, max_rows: 50, statement_timeout_ms: 2000${config} }
redact: { builtin: [secrets] }
`).action("query"),
    };
  }

  it("runs one SELECT, redacting cells and bounding rows", async () => {
    const result = await callAction(action().action, {
      params: { sql: "SELECT id, note FROM items WHERE id < 3 ORDER BY id" },
    });
    expect(result).toMatchObject({
      ok: true,
      data: {
        columns: ["id", "note"],
        rows: [
          [1, "fine"],
          [2, "token=[REDACTED]"],
        ],
        rowsTruncated: false,
      },
    });
    const many = await callAction(action().action, { params: { sql: "SELECT id FROM items" } });
    expect(many).toMatchObject({ ok: true, data: { rowCount: 50, rowsTruncated: true } });
  });

  it("bounds result bytes", async () => {
    const result = await callAction(action("reader", ", max_result_bytes: 100").action, {
      params: { sql: "SELECT id, name FROM items ORDER BY id" },
    });
    expect(result).toMatchObject({ ok: true, data: { rowsTruncated: true } });
    expect((result as unknown as { data: { resultBytes: number } }).data.resultBytes).toBeLessThanOrEqual(
      100,
    );
  });

  it.each([
    ["stacked statements", "SELECT 1; DROP TABLE items"],
    ["INTO OUTFILE", "SELECT * FROM items INTO OUTFILE '/tmp/pablo-outfile'"],
    ["LOAD_FILE", "SELECT LOAD_FILE('/etc/passwd')"],
    ["SLEEP(100)", "SELECT SLEEP(100)"],
    ["a comment hiding a second statement", "SELECT 1 /* ; */ ; /* */ DELETE FROM items"],
  ])("refuses %s before it reaches the server, even for a user who could write", async (_name, sql) => {
    const started = performance.now();
    const result = await callAction(action("writer").action, { params: { sql } });
    expect(result).toMatchObject({ ok: false, error: { code: "QUERY_REFUSED" } });
    expect(performance.now() - started).toBeLessThan(5_000);
    const count = await callAction(action().action, { params: { sql: "SELECT COUNT(*) AS n FROM items" } });
    expect(count).toMatchObject({ ok: true, data: { rows: [["2003"]] } });
  });

  it("stops a slow statement on the server at its time limit", async () => {
    const started = performance.now();
    const result = await callAction(action().action, {
      params: { sql: "SELECT COUNT(*) FROM seq_1_to_1000000000 a, seq_1_to_1000000000 b" },
    });
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(result).toMatchObject({ ok: false, error: { code: "QUERY_FAILED" } });
  });

  it("runs in a read-only transaction: a server-side write fails even where the check cannot see it", async () => {
    // A stored function's body is invisible to the check; the read-only transaction is the second wall.
    const result = await callAction(action("writer").action, { params: { sql: "SELECT bump()" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "QUERY_FAILED", message: expect.stringMatching(/READ ONLY/i) },
    });
    const count = await callAction(action().action, { params: { sql: "SELECT COUNT(*) FROM items" } });
    expect(count).toMatchObject({ ok: true, data: { rows: [["2003"]] } });
  });

  it("refuses a credentials file that is not mode 0600", async () => {
    const { action: query, credentials } = action();
    chmodSync(credentials, 0o644);
    expect(await callAction(query, { params: { sql: "SELECT 1" } })).toMatchObject({
      ok: false,
      error: { code: "CREDENTIALS_UNSAFE" },
    });
    const [support] = await checkActions([query]);
    expect(support).toMatchObject({ supported: false, unsupported: [expect.stringContaining("0600")] });
  });

  it("reports an unreachable server as unsupported on this host", async () => {
    const credentials = credentialsFile(dir, { user: "reader", password: "x", host: "127.0.0.1", port: 1 });
    const query = loadSigned(`
name: nowhere
description: d
risk: read
builtin: mysql_query
builtin_config: { credentials_file: "${credentials}" }
`).action("nowhere");
    const [support] = await checkActions([query]);
    expect(support).toMatchObject({
      supported: false,
      unsupported: [expect.stringContaining("cannot connect")],
    });
  });
});
