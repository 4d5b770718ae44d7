import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, personEnv, runPablo } from "./harness.js";

describe("pablo audit verify, replay and view from the command line", () => {
  it("verifies what real calls wrote, names a tampered record, replays a new policy and writes the page", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.md": "# notes\n", "secret.env": "TOKEN=x\n" });
    const env = personEnv(home);
    const run = (args: string[]) => runPablo(args, { cwd: workspace, env });
    for (const path of ["notes.md", "secret.env"]) {
      expect((await run(["call", "fs_read", "--args", JSON.stringify({ path })])).code).toBe(0);
    }

    const verified = await run(["audit", "verify"]);
    expect(verified.stdout).toMatch(/^verified 2 record\(s\) in .*audit\.jsonl; head seq 1 [0-9a-f]{64}\n$/);
    expect(verified.code).toBe(0);

    const policy = home.write(
      "new-policy.json",
      JSON.stringify({
        id: "new",
        read_roots: { deny: [{ id: "no-env", path: join(workspace, "secret.env") }] },
      }),
    );
    const replay = await run(["audit", "replay", "--policy", policy]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^replayed 2 call\(s\): 1 now denied, 0 now allowed/);
    expect(replay.stdout).toMatch(/now-denied .* fs\.read {2}allowed by .* -> denied by new\/no-env/);

    const page = join(home.home, "timeline.html");
    const view = await run(["audit", "view", "--out", page]);
    expect(view).toMatchObject({ code: 0, stdout: `wrote 1 call(s) to ${page}\n` });
    expect(readFileSync(page, "utf8")).toContain('data-tool="fs.read"');

    const file = join(home.state, "audit.jsonl");
    const [first, second] = readFileSync(file, "utf8").trim().split("\n");
    writeFileSync(file, `${second}\n${first}\n`);
    const tampered = await run(["audit", "verify"]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^AUDIT_RECORD_(REORDERED|REMOVED|INSERTED): record 0, seq 1/);
    expectNoStackTrace(tampered.stdout + tampered.stderr + replay.stderr + verified.stderr);
  });
});

describe("an audit log that cannot be written", () => {
  it("stops pablo call before anything runs when the log is a directory or /dev/full", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    mkdirSync(join(home.state, "audit.jsonl"), { recursive: true });
    const devFull = home.write("pablo/full.toml", '[options.audit]\npath = "/dev/full"\n');
    for (const [name, config] of [
      ["directory", []],
      ["/dev/full", ["--config", devFull]],
    ] as const) {
      const args = JSON.stringify({ command: "touch ran.txt" });
      const result = await runPablo(
        ["call", "shell_run", "--args", args, "--permission", "auto", ...config],
        {
          cwd: workspace,
          env: personEnv(home),
        },
      );
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toMatch(/^pablo: cannot keep the audit log at .*\[AUDIT_WRITE_FAILED\]\n$/);
      expectNoStackTrace(result.stderr);
      expect(existsSync(join(workspace, "ran.txt")), name).toBe(false);
    }
  });

  it("says so and exits 2 when a record is lost during the call: here the command replaced the log by a directory", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const log = join(home.state, "audit.jsonl");
    const args = JSON.stringify({ command: `mkdir -p ${log} && echo replaced` });
    const result = await runPablo(["call", "shell_run", "--args", args, "--permission", "auto", "--json"], {
      cwd: workspace,
      env: personEnv(home),
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, data: { stdout: "replaced\n" } });
    expect(result.stderr).toBe(
      `pablo: 1 audit record(s) could not be written to ${log}; what they record ran unaudited [AUDIT_WRITE_FAILED]\n`,
    );
    expect(result.code).toBe(2);
  });
});

describe("an audit log with JSON lines that are no records", () => {
  it("is read by show, view and verify without a crash: null, 5 and [1,2] skipped, {} named by verify", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.md": "# notes\n" });
    const env = personEnv(home);
    const run = (args: string[]) => runPablo(args, { cwd: workspace, env });
    expect((await run(["call", "fs_read", "--args", JSON.stringify({ path: "notes.md" })])).code).toBe(0);
    const file = join(home.state, "audit.jsonl");
    writeFileSync(file, `${readFileSync(file, "utf8")}null\n5\n[1,2]\n`);
    const verified = await run(["audit", "verify"]);
    expect(verified.stdout).toMatch(/^verified 1 record\(s\) .*; skipped 3 unreadable entries at 1, 2, 3\n$/);
    expect(verified.code).toBe(0);
    writeFileSync(file, `${readFileSync(file, "utf8")}{}\n`);
    const shown = await run(["audit", "show"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("fs.read");
    expect(shown.stdout).toContain("(4 unreadable lines skipped)");
    const page = join(home.home, "timeline.html");
    expect(await run(["audit", "view", "--out", page])).toMatchObject({ code: 0, stderr: "" });
    const broken = await run(["audit", "verify"]);
    expect(broken.code).toBe(1);
    expect(broken.stdout + broken.stderr).toContain("AUDIT_RECORD_CHANGED");
    for (const result of [shown, broken]) expectNoStackTrace(result.stderr);
  });
});
