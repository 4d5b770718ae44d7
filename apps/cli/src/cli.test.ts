import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findBrowser } from "@pablo/browser";
import { describe, expect, it } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

describe("pablo tools", () => {
  it("lists the effective catalog as JSON with names, risk, effects, summary and input schema", async () => {
    const sandbox = useSandbox();
    const { code, stdout } = await pablo(["tools", "--json"], sandbox);
    expect(code).toBe(0);
    const { tools } = JSON.parse(stdout) as { tools: Array<Record<string, unknown>> };
    expect(tools.map((t) => [t["name"], t["providerName"], t["risk"]])).toEqual([
      ["fs.read", "fs_read", "low"],
      ["fs.list", "fs_list", "low"],
      ["fs.search", "fs_search", "low"],
      ["fs.glob", "fs_glob", "low"],
      ["shell.run", "shell_run", "high"],
      ["plugin-author.check", "PluginCheck", "high"],
      // BrowserPreview attaches only where a browser is installed.
      ...(findBrowser().ok ? [["browser.preview", "browser_preview", "low"]] : []),
      ["agent.new-context", "new_context", "low"],
      ["agent.enter-plan-mode", "EnterPlanMode", "low"],
      ["agent.enter-goal-mode", "EnterGoalMode", "low"],
      ["agent.ask", "asktool", "low"],
      ["tool-search", "ToolSearch", "low"],
    ]);
    const read = tools[0] as {
      inputSchema: { additionalProperties: boolean; properties: Record<string, unknown> };
      effects: string[];
    };
    expect(read.inputSchema.additionalProperties).toBe(false);
    expect(read.effects).toEqual(["fs.read"]);
  });

  it("explains each excluded tool with the layer and rule that excluded it", async () => {
    const sandbox = useSandbox();
    const { stdout } = await pablo(["tools", "--explain", "--json", "--no-shell"], sandbox);
    const { excluded, layers } = JSON.parse(stdout) as {
      excluded: Array<Record<string, string>>;
      layers: string[];
    };
    expect(excluded.map((e) => [e["name"], e["layer"], e["rule"]])).toEqual([
      ["fs.write", "cli-flags", "cli.no-allow-write"],
      ["fs.edit", "cli-flags", "cli.no-allow-write"],
      ["shell.run", "cli-flags", "cli.no-shell"],
      ["plugin-author.scaffold", "cli-flags", "cli.no-allow-write"],
      ["plugin-author.check", "cli-flags", "cli.no-shell"],
      ["plugin-author.pack", "cli-flags", "cli.no-allow-write"],
      ["agent.submit-plan", "mode", "mode.agent.plan-submit"],
      ["agent.submit-goal", "mode", "mode.agent.goal-submit"],
    ]);
    expect(layers).toEqual(["distribution.pablo-state", "deployment", "deployment.shell", "cli-flags"]);
    const text = await pablo(["tools", "--explain", "--allow-write"], sandbox);
    expect(text.stdout).toContain("fs_write");
    expect(text.stdout).toMatch(
      /excluded:\n {2}agent\.submit-plan {2}denied by mode\/mode\.agent\.plan-submit/,
    );
    expect(text.stdout).not.toMatch(/excluded:[\s\S]*fs\.write/);
  });

  it("applies a static JSON policy file as a layer", async () => {
    const sandbox = useSandbox();
    const policy = sandbox.write(
      "policy.json",
      JSON.stringify({ id: "legacy", tools: { deny: [{ id: "legacy.no-shell", name: "shell.run" }] } }),
    );
    const { stdout } = await pablo(["tools", "--explain", "--json", "--policy", policy], sandbox);
    const { excluded } = JSON.parse(stdout) as { excluded: Array<Record<string, string>> };
    expect(excluded.find((e) => e["name"] === "shell.run")).toMatchObject({
      layer: "legacy",
      rule: "legacy.no-shell",
    });
  });
});

describe("pablo call", () => {
  it("prints the result exactly as a model receives it", async () => {
    const sandbox = useSandbox({ "a.txt": "hello\n" });
    const { code, stdout } = await pablo(
      ["call", "fs.read", "--args", '{"path":"a.txt"}', "--json"],
      sandbox,
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { ok: boolean; data: { content: string; revision: string } };
    expect(result.ok).toBe(true);
    expect(result.data.content).toBe("hello\n");
    expect(result.data.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(stdout.trim()).toBe(JSON.stringify(result));
  });

  it("requires --allow-write for writes, exits 3 when denied, and writes when allowed", async () => {
    const sandbox = useSandbox();
    const args = [
      "call",
      "fs.write",
      "--args",
      '{"path":"new.txt","content":"fresh\\n","expected_revision":null}',
      "--json",
    ];
    const denied = await pablo(args, sandbox);
    expect(denied.code).toBe(3);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { rule: "cli.no-allow-write" } },
    });
    const unattended = await pablo([...args, "--allow-write"], sandbox);
    expect(unattended.code).toBe(3);
    expect(unattended.stdout).toContain("no permission broker");
    const allowed = await pablo([...args, "--allow-write", "--permission", "accept-edits"], sandbox);
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "new.txt"), "utf8")).toBe("fresh\n");
  });

  it("dry-runs shell commands against the deployment's command rules, naming layer and rule", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      `[options.shell.commands]
default = "deny"
allow = [
  { id = "docs.git-status", executable = "/usr/bin/git", args = ["status"], match = "prefix" },
  { id = "docs.wc", executable = "/usr/bin/wc", args = [], match = "prefix" }
]
deny = [
  { id = "docs.no-force", executable = "/usr/bin/git", args = ["push", "--force"], match = "exact" }
]
`,
    );
    const dry = (command: string) =>
      pablo(
        [
          "call",
          "shell.run",
          "--config",
          config,
          "--permission",
          "auto",
          "--dry-run",
          "--json",
          "--args",
          JSON.stringify({ command }),
        ],
        sandbox,
      );
    const force = await dry("git push --force");
    expect(force.code).toBe(3);
    expect(JSON.parse(force.stdout)).toMatchObject({
      decision: "deny",
      layer: "deployment.shell",
      rule: "docs.no-force",
    });
    const status = await dry("git status --short");
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      decision: "allow",
      layer: "deployment.shell",
      rule: "docs.git-status",
    });
    const chained = await dry("git status; rm -rf /");
    expect(JSON.parse(chained.stdout)).toMatchObject({ decision: "deny", layer: "deployment.shell" });
    const substituted = await dry('wc -l "$(cat /etc/passwd)"');
    expect(JSON.parse(substituted.stdout)).toMatchObject({ decision: "deny", rule: "unproven" });
  });

  it("runs nothing on a dry run", async () => {
    const sandbox = useSandbox();
    const { code } = await pablo(
      ["call", "shell.run", "--permission", "auto", "--dry-run", "--args", '{"command":"touch made.txt"}'],
      sandbox,
    );
    expect(code).toBe(0);
    expect(() => readFileSync(join(sandbox.workspace, "made.txt"))).toThrow();
  });

  it("treats a bad --args, an unknown tool and a schema violation as usage errors", async () => {
    const sandbox = useSandbox();
    expect((await pablo(["call", "fs.read", "--args", "{nope"], sandbox)).code).toBe(2);
    expect((await pablo(["call", "fs.teleport", "--args", "{}"], sandbox)).code).toBe(2);
    expect((await pablo(["call", "fs.read", "--args", '{"path":1}'], sandbox)).code).toBe(2);
    expect((await pablo(["call", "fs.read", "--frobnicate"], sandbox)).code).toBe(2);
  });

  it("reports a failing command with exit 1 and keeps its exit status", async () => {
    const sandbox = useSandbox();
    const { code, stdout } = await pablo(
      ["call", "shell.run", "--permission", "auto", "--json", "--args", '{"command":"exit 7"}'],
      sandbox,
    );
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", details: { exitCode: 7 } },
    });
  });
});

describe("configuration errors", () => {
  it("exit 2 and name the file, line and key path", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", `[options.shell]\nenabled = true\ntimeout = 5\n`);
    const { code, stderr } = await pablo(["tools", "--config", config], sandbox);
    expect(code).toBe(2);
    expect(stderr).toContain(`${config}:3: options.shell.timeout: unknown key "timeout"`);
  });

  it("name a missing binding", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      `[options.audit]\npath = { base = "binding", name = "logs", path = "audit.jsonl" }\n`,
    );
    const { code, stderr } = await pablo(["tools", "--config", config], sandbox);
    expect(code).toBe(2);
    expect(stderr).toContain("--bind logs=DIR");
    const bound = await pablo(["tools", "--config", config, "--bind", `logs=${sandbox.root}`], sandbox);
    expect(bound.code).toBe(0);
  });

  it("refuse a workspace that does not exist", async () => {
    const sandbox = useSandbox();
    const { code, stderr } = await pablo(["tools", "--workspace", join(sandbox.root, "missing")], sandbox);
    expect(code).toBe(2);
    expect(stderr).toContain("is not an existing directory");
  });
});

describe("presets", () => {
  it("locked-production has no shell and no writes, whatever the flags", async () => {
    const sandbox = useSandbox({ "a.txt": "x" });
    const preset = join(import.meta.dirname, "..", "presets", "locked-production.toml");
    const tools = await pablo(
      ["tools", "--json", "--explain", "--config", preset, "--allow-write", "--permission", "auto"],
      sandbox,
    );
    const parsed = JSON.parse(tools.stdout) as {
      tools: Array<{ name: string }>;
      excluded: Array<{ name: string; rule: string }>;
    };
    expect(parsed.tools.map((t) => t.name)).toEqual([
      "fs.read",
      "fs.list",
      "fs.search",
      "fs.glob",
      "agent.new-context",
      "agent.enter-plan-mode",
      "agent.enter-goal-mode",
      "agent.ask",
      "tool-search",
    ]);
    expect(parsed.excluded.map((e) => [e.name, e.rule])).toEqual([
      ["fs.write", "locked.no-write"],
      ["fs.edit", "locked.no-write"],
      ["shell.run", "locked.no-process"],
      ["plugin-author.scaffold", "locked.no-write"],
      ["plugin-author.check", "locked.no-process"],
      ["plugin-author.pack", "locked.no-write"],
      ["agent.submit-plan", "mode.agent.plan-submit"],
      ["agent.submit-goal", "mode.agent.goal-submit"],
    ]);
    const read = await pablo(["call", "fs.read", "--config", preset, "--args", '{"path":"a.txt"}'], sandbox);
    expect(read.code).toBe(0);
  });
});

describe("audit", () => {
  it("records every call in the state directory and shows it as a timeline", async () => {
    const sandbox = useSandbox({ "a.txt": "x" });
    await pablo(["call", "fs.read", "--args", '{"path":"a.txt"}'], sandbox);
    await pablo(
      ["call", "fs.write", "--args", '{"path":"b","content":"","expected_revision":null}'],
      sandbox,
    );
    const audit = join(sandbox.state, "pablo", "audit.jsonl");
    const lines = readFileSync(audit, "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    const { code, stdout } = await pablo(["audit", "show"], sandbox);
    expect(code).toBe(0);
    expect(stdout).toMatch(/fs\.read\s+ok\s+allowed/);
    expect(stdout).toMatch(/fs\.write\s+TOOL_DENIED\s+denied by cli-flags\/cli\.no-allow-write/);
  });
});

describe("pablo policy check", () => {
  it("reports rules that never match and dead allow rules, exiting 1", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      `[options.policy.tool]\nallow = [{ id = "typo", match = "fs.raed" }, { id = "reads", match = "fs.read" }]\ndeny = [{ id = "no-read", match = "fs.read" }]\n`,
    );
    const { code, stdout } = await pablo(["policy", "check", "--config", config], sandbox);
    expect(code).toBe(1);
    expect(stdout).toContain("never-matches: deployment/typo");
    expect(stdout).toContain("dead-allow: deployment/reads");
    const clean = await pablo(["policy", "check"], sandbox);
    expect(clean).toMatchObject({ code: 0, stdout: "policy check: no findings\n" });
  });
});

describe("shell deadline", () => {
  it("never lets a call ask for more time than [options.limits] shell_deadline_ms", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", "[options.limits]\nshell_deadline_ms = 5000\n");
    const { code, stdout } = await pablo(
      [
        "call",
        "shell.run",
        "--config",
        config,
        "--permission",
        "auto",
        "--json",
        "--args",
        '{"command":"true","timeout_ms":60000}',
      ],
      sandbox,
    );
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });
});

describe("deferred tools", () => {
  it("loads fs.search and fs.glob on demand in Agent mode and keeps them active in Plan mode", async () => {
    const sandbox = useSandbox();
    const deferredIn = async (mode: string) => {
      const { stdout } = await pablo(["tools", "--json", "--mode", mode], sandbox);
      const { tools } = JSON.parse(stdout) as { tools: Array<{ name: string; deferred: boolean }> };
      return tools.filter((t) => t.name.startsWith("fs.")).map((t) => [t.name, t.deferred]);
    };
    expect(await deferredIn("agent")).toEqual([
      ["fs.read", false],
      ["fs.list", false],
      ["fs.search", true],
      ["fs.glob", true],
    ]);
    expect(await deferredIn("plan")).toEqual([
      ["fs.read", false],
      ["fs.list", false],
      ["fs.search", false],
      ["fs.glob", false],
    ]);
  });
});
