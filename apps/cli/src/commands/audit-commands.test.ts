import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openAuditStore } from "@pablo/audit";
import type { AuditRecord } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { UsageError } from "../args.js";
import { captureIo, pablo, useSandbox } from "../test-support/cli-harness.js";
import { auditCommand } from "./audit-commands.js";

type Sandbox = ReturnType<typeof useSandbox>;

async function audit(argv: string[], sandbox: Sandbox, signal?: AbortSignal) {
  const { io, output } = captureIo(sandbox, signal ? { signal } : {});
  const code = await auditCommand(argv, io);
  return { code, ...output() };
}

/** Three real calls through the built pipeline: two reads (one of a secret) and a write. */
async function recordCalls(sandbox: Sandbox, extra: string[] = []): Promise<void> {
  const call = (tool: string, args: object, flags: string[] = []) =>
    pablo(["call", tool, "--args", JSON.stringify(args), ...flags, ...extra], sandbox);
  expect((await call("fs.read", { path: "a.txt" })).code).toBe(0);
  expect((await call("fs.read", { path: "secrets/key.txt" })).code).toBe(0);
  expect(
    (
      await call("fs.write", { path: "b.txt", content: "x", expected_revision: null }, [
        "--allow-write",
        "--permission",
        "auto",
      ])
    ).code,
  ).toBe(0);
}

const files = { "a.txt": "hello\n", "secrets/key.txt": "k\n" };

describe("pablo audit verify", () => {
  it("verifies the chain the CLI wrote, then names an edited record", async () => {
    const sandbox = useSandbox(files);
    await recordCalls(sandbox);
    const ok = await audit(["verify"], sandbox);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^verified 3 record\(s\) in .*audit\.jsonl; head seq 2 [0-9a-f]{64}\n$/);

    const file = join(sandbox.state, "pablo", "audit.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    lines[1] = (lines[1] as string).replace('"ok":true', '"ok":false');
    writeFileSync(file, lines.join("\n"));
    const bad = await audit(["verify", "--json"], sandbox);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      problem: { code: "AUDIT_RECORD_CHANGED", position: 1, seq: 1 },
    });
  });

  it("counts a line cut short as skipped, not as verified", async () => {
    const sandbox = useSandbox(files);
    await recordCalls(sandbox);
    const file = join(sandbox.state, "pablo", "audit.jsonl");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, text.length - 20));
    const cut = await audit(["verify"], sandbox);
    expect(cut.code).toBe(0);
    expect(cut.stdout).toMatch(
      /^verified 2 record\(s\) in .*audit\.jsonl; head seq 1 [0-9a-f]{64}; skipped 1 unreadable entry at 2\n$/,
    );
  });

  it("reads the SQLite store a deployment chose", async () => {
    const sandbox = useSandbox(files);
    const db = join(sandbox.root, "audit.sqlite");
    const config = sandbox.write(
      "pablo.toml",
      `[options.audit]\nstore = "sqlite"\npath = ${JSON.stringify(db)}\n`,
    );
    // Until the task opens the store `[options.audit] store` names, copy the CLI's records into one.
    await recordCalls(sandbox);
    const store = openAuditStore({ kind: "sqlite", path: db });
    for (const line of readFileSync(join(sandbox.state, "pablo", "audit.jsonl"), "utf8")
      .trim()
      .split("\n"))
      store.write(JSON.parse(line) as AuditRecord);
    await store.close();
    const { io, output } = captureIo(sandbox);
    expect(await auditCommand(["verify", "--config", config], io)).toBe(0);
    expect(output().stdout).toMatch(/^verified 3 record\(s\) in .*audit\.sqlite/);
  });
});

describe("pablo audit replay", () => {
  it("prints the calls a new policy would deny, without running or writing anything", async () => {
    const sandbox = useSandbox(files);
    await recordCalls(sandbox);
    const file = join(sandbox.state, "pablo", "audit.jsonl");
    const before = readFileSync(file, "utf8");
    const policy = sandbox.write(
      "new-policy.json",
      JSON.stringify({
        id: "new-policy",
        read_roots: { deny: [{ id: "no-secrets", path: join(sandbox.workspace, "secrets") }] },
        tools: { deny: [{ id: "no-writes", name: "fs.write" }] },
      }),
    );
    const text = await audit(["replay", "--policy", policy, "--allow-write"], sandbox);
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n")[0]).toBe(
      "replayed 3 call(s): 2 now denied, 0 now allowed, 0 decided by another rule, 1 unchanged, 0 undetermined",
    );
    expect(text.stdout).toMatch(
      /now-denied .* fs\.read {2}allowed by .* -> denied by new-policy\/no-secrets/,
    );
    expect(text.stdout).toMatch(
      /now-denied .* fs\.write {2}allowed by .* -> denied by new-policy\/no-writes/,
    );
    const json = await audit(
      ["replay", "--policy", policy, "--allow-write", "--json", "--since", "1h"],
      sandbox,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ total: 3, unchanged: 1 });
    expect(readFileSync(file, "utf8")).toBe(before);
    // Usage errors reach cli.ts's handler, which prints them and exits 2.
    await expect(audit(["replay"], sandbox)).rejects.toThrow(UsageError);
    await expect(audit(["replay", "--policy", policy, "--since", "yesterday-ish"], sandbox)).rejects.toThrow(
      "--since expects",
    );
  });
});

describe("pablo audit view", () => {
  it("writes a self-contained page of the latest session, or serves it on 127.0.0.1", async () => {
    const sandbox = useSandbox(files);
    await recordCalls(sandbox);
    const out = join(sandbox.root, "timeline.html");
    const written = await audit(["view", "--out", out], sandbox);
    expect(written).toMatchObject({ code: 0, stdout: `wrote 1 call(s) to ${out}\n` });
    const html = readFileSync(out, "utf8");
    expect(html).toContain("Content-Security-Policy");
    expect(html).not.toMatch(/(src|href)="https?:/);

    const stop = new AbortController();
    const { io, output } = captureIo(sandbox, { signal: stop.signal });
    const serving = auditCommand(["view"], io);
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 25));
      url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output().stdout)?.[1];
    }
    const page = await fetch(url as string);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).toContain('class="row ok"');
    stop.abort();
    expect(await serving).toBe(0);
  });
});
