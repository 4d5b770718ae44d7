import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkActions } from "../check-actions.js";
import { callAction, loadSigned } from "../test-support/catalog-fixture.js";
import { credentialsFile, serverSkip, startRedis } from "../test-support/servers.js";
import { commandOf } from "./redis-command.js";

const skip = serverSkip("redis");
if (skip) console.warn(`redis_command server tests ${skip}`);

describe("the redis allow-list", () => {
  it.each(["SET", "FLUSHALL", "CONFIG", "EVAL", "MULTI", "DEL", "KEYS", "DEBUG", "SHUTDOWN"])(
    "refuses %s",
    (command) => {
      expect(commandOf({}, { command, args: ["x", "y"] })).toEqual({
        problem: `${command} is not an allowed command`,
      });
    },
  );

  it("bounds arguments and SCAN COUNT, and adds a COUNT when a call gives none", () => {
    expect(commandOf({ max_args: 2 }, { command: "MGET", args: ["a", "b", "c"] })).toHaveProperty("problem");
    expect(commandOf({ max_arg_bytes: 4 }, { command: "GET", args: ["toolong"] })).toHaveProperty("problem");
    expect(commandOf({}, { command: "GET", args: ["a", "b"] })).toHaveProperty("problem");
    expect(
      commandOf({ max_scan_count: 50 }, { command: "SCAN", args: ["0", "COUNT", "1000000"] }),
    ).toHaveProperty("problem");
    expect(commandOf({ max_scan_count: 50 }, { command: "SCAN", args: ["0", "MATCH", "bulk:*"] })).toEqual({
      argv: ["SCAN", "0", "MATCH", "bulk:*", "COUNT", "10"],
    });
    expect(commandOf({ commands: ["GET"] }, { command: "TTL", args: ["a"] })).toHaveProperty("problem");
  });
});

describe.skipIf(skip !== undefined)("redis_command against a real Redis", () => {
  let server: Awaited<ReturnType<typeof startRedis>>;
  let dir: string;

  beforeAll(async () => {
    server = await startRedis();
    dir = mkdtempSync(join(tmpdir(), "pablo-redis-creds-"));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function action(user?: string, config = "") {
    const credentials = user
      ? credentialsFile(dir, { username: user, password: server.password })
      : undefined;
    return loadSigned(`
name: cache
description: Read the cache.
risk: read
builtin: redis_command
builtin_config: { port: ${server.port}${credentials ? `, credentials_file: "${credentials}"` : ""}${config} }
redact: { builtin: [secrets] }
`).action("cache");
  }

  it("runs the read-only commands as the ACL reader, redacting replies", async () => {
    const reader = action("reader");
    expect(await callAction(reader, { params: { command: "GET", args: ["greeting"] } })).toMatchObject({
      ok: true,
      data: { reply: "hello" },
    });
    expect(await callAction(reader, { params: { command: "GET", args: ["leaky"] } })).toMatchObject({
      ok: true,
      data: { reply: "[REDACTED]" },
    });
    expect(await callAction(reader, { params: { command: "HGET", args: ["user:1", "name"] } })).toMatchObject(
      {
        data: { reply: "alice" },
      },
    );
    expect(await callAction(reader, { params: { command: "LLEN", args: ["queue"] } })).toMatchObject({
      data: { reply: 3 },
    });
    const scan = await callAction(reader, {
      params: { command: "SCAN", args: ["0", "MATCH", "bulk:*", "COUNT", "5"] },
    });
    expect(scan).toMatchObject({ ok: true, data: { reply: [expect.any(String), expect.any(Array)] } });
  });

  it.each([
    ["SET", ["greeting", "changed"]],
    ["FLUSHALL", []],
    ["CONFIG", ["SET", "dir", "/tmp"]],
    ["EVAL", ["redis.call('set','greeting','x')", "0"]],
    ["MULTI", []],
  ])("refuses %s even with credentials that could write", async (command, args) => {
    const writer = action();
    const result = await callAction(writer, { params: { command, args } });
    expect(result).toMatchObject({ ok: false });
    const greeting = execFileSync("/usr/bin/redis-cli", [
      "-h",
      "127.0.0.1",
      "-p",
      String(server.port),
      "GET",
      "greeting",
    ]);
    expect(greeting.toString().trim()).toBe("hello");
  });

  it("bounds the reply", async () => {
    const result = await callAction(action(undefined, ", max_result_bytes: 10"), {
      params: { command: "INFO", args: ["server"] },
    });
    expect(result).toMatchObject({ ok: true, data: { replyTruncated: true, scanLimited: true } });
  });

  it("reports a server that does not answer as unsupported on this host", async () => {
    const nowhere = loadSigned(`
name: nowhere
description: d
risk: read
builtin: redis_command
builtin_config: { port: 1 }
`).action("nowhere");
    const [support] = await checkActions([nowhere]);
    expect(support).toMatchObject({
      supported: false,
      unsupported: [expect.stringContaining("cannot connect")],
    });
  });
});
