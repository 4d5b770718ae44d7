import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, personEnv, runPablo } from "./harness.js";

/** A recorded model: each response in order, as `pablo run --model replay:FILE` reads it. */
function replay(dir: string, responses: unknown[]): string {
  const file = join(dir, "model.replay.json");
  writeFileSync(file, JSON.stringify({ format: "pablo.replay/1", model: "replay", responses }));
  return `replay:${file}`;
}

describe("reports that match what happened", () => {
  it("a run whose every tool call was refused by a spent budget stops on it and exits 1", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "a.txt": "alpha\n" });
    const config = home.write("pablo/deployment.toml", "[options.limits]\ntool_calls = 0\n");
    const model = replay(home.home, [
      {
        toolCalls: [
          { id: "r1", name: "fs_read", input: { path: "a.txt" } },
          { id: "r2", name: "fs_read", input: { path: "a.txt" } },
        ],
      },
      { text: "Nothing could be read.", finish: "stop" },
    ]);
    const run = await runPablo(["run", "Read a.txt", "--config", config, "--model", model], {
      cwd: workspace,
      env: personEnv(home),
    });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/status: budget \(/);
    expect(run.stderr.match(/✗ denied by limits\/limits\.budget · BUDGET_EXHAUSTED/g)).toHaveLength(2);
    expect(run.stderr).toContain("calls: 2 (0 ok, 0 failed, 2 denied)");
    expect(run.stdout).not.toContain("Nothing could be read.");
  });

  it("the read-only profile offers no tool it always denies, and --explain names the rule", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const env = personEnv(home);
    const listed = await runPablo(["tools", "--json", "--permission", "read-only", "--allow-write"], {
      cwd: workspace,
      env,
    });
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toContain("fs.read");
    for (const denied of ["fs.write", "fs.edit", "shell.run"]) expect(names).not.toContain(denied);
    const explain = await runPablo(["tools", "--explain", "--permission", "read-only", "--allow-write"], {
      cwd: workspace,
      env,
    });
    expect(explain.stdout).toMatch(
      /shell\.run {2}denied by permission\/permission\.read-only: the read-only profile denies process/,
    );
    expect(explain.stdout).toMatch(/fs\.write {2}denied by permission\/permission\.read-only/);
  });

  it("an unknown permission grant is a located configuration error listing the known grants", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    for (const grant of ["fetch", "proccess", "NET"]) {
      const config = home.write(
        "pablo/deployment.toml",
        `[options.permission]\nmode = "read-only"\ngrants = ["${grant}"]\n`,
      );
      const result = await runPablo(["tools", "--config", config], { cwd: workspace, env: personEnv(home) });
      expectNoStackTrace(result.stderr);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${config}: options.permission.grants: unknown grant "${grant}"`);
      expect(result.stderr).toMatch(/the grants this catalog knows are .*fs\.write.*process/);
      expect(result.stderr).toContain("[CONFIG_INVALID_VALUE]");
    }
    const fine = home.write(
      "pablo/ok.toml",
      '[options.permission]\nmode = "read-only"\ngrants = ["process"]\n',
    );
    const ok = await runPablo(["tools", "--json", "--config", fine], {
      cwd: workspace,
      env: personEnv(home),
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('"shell.run"');
  });

  it("says on stderr and in --explain when loosest raised --permission", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const config = home.write(
      "pablo/deployment.toml",
      '[options.permission]\nmode = "ask"\nloosest = "accept-edits"\n',
    );
    const explain = await runPablo(["tools", "--explain", "--config", config, "--permission", "auto"], {
      cwd: workspace,
      env: personEnv(home),
    });
    expect(explain.code).toBe(0);
    expect(explain.stderr).toContain(
      "--permission auto is looser than the deployment allows; using accept-edits",
    );
    expect(explain.stdout).toContain("permission accept-edits;");
    expect(explain.stdout).toContain("permission: --permission auto is looser than the deployment allows");
    const same = await runPablo(["tools", "--config", config, "--permission", "ask"], {
      cwd: workspace,
      env: personEnv(home),
    });
    expect(same.stderr).toBe("");
  });
});

describe("hostile URLs under an allow prefix", () => {
  it("are denied by pablo call --dry-run with a URL_* code, and the canonical one is allowed", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const plugin = dirname(createRequire(import.meta.url).resolve("@pablo/plugin-web/package.json"));
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.plugins.web]",
        `package = ${JSON.stringify(plugin)}`,
        'grants = ["agent.tool.register", "net", "net.fetch"]',
        "[options.network]",
        'default = "deny"',
        'allow = [{ id = "api", prefix = "https://api.example.com/v1/" }]',
        "",
      ].join("\n"),
    );
    const decide = async (url: string) => {
      const result = await runPablo(
        [
          "call",
          "plugin_web_fetch",
          "--args",
          JSON.stringify({ url }),
          "--dry-run",
          "--json",
          "--permission",
          "auto",
          "--config",
          config,
        ],
        { cwd: workspace, env: personEnv(home) },
      );
      expectNoStackTrace(result.stderr);
      return {
        code: result.code,
        decision: JSON.parse(result.stdout) as { decision: string; rule: string; reason: string },
      };
    };
    for (const [url, code] of [
      ["https://api.example.com./v1/x", "URL_NOT_CANONICAL"],
      ["https://api.example.com/v1/%2e%2e/admin", "URL_DOT_SEGMENT"],
      ["https://api.example.com/v1/a%2fb", "URL_ENCODED_SEPARATOR"],
      ["https://api.example.com/v1/a%00b", "URL_CONTROL_CHARACTER"],
      ["https://api.example.com/v1/\u202Eevil", "URL_INVISIBLE_CHARACTER"],
    ] as const) {
      const { code: exit, decision } = await decide(url);
      expect(exit, url).toBe(3);
      expect(decision, url).toMatchObject({ decision: "deny", rule: "kernel.net-canonical" });
      expect(decision.reason, url).toContain(code);
    }
    const prefixOnly = await decide("https://api.example.com/v1");
    expect(prefixOnly.decision).toMatchObject({ decision: "deny" });
    const fine = await decide("https://api.example.com/v1/status");
    expect(fine.decision, JSON.stringify(fine.decision)).toMatchObject({ decision: "allow", rule: "api" });
  });
});

describe("empty commands, .. in globs and paths through a file", () => {
  it("are refused through pablo call, each with its code", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "README.md": "# r\n", "src/a.ts": "x\n" });
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.shell]",
        "enabled = true",
        "[options.shell.commands]",
        'allow = [{ id = "e2e.wc", executable = "/usr/bin/wc", args = [], match = "prefix" }]',
        "",
      ].join("\n"),
    );
    const call = (tool: string, args: unknown, ...flags: string[]) =>
      runPablo(["call", tool, "--args", JSON.stringify(args), "--json", "--config", config, ...flags], {
        cwd: workspace,
        env: personEnv(home),
      });
    for (const command of ["", "   ", "\n", "\t\n  "]) {
      const result = await call("shell_run", { command }, "--permission", "auto");
      expect(result.code, JSON.stringify(command)).not.toBe(0);
      expect(JSON.parse(result.stdout), JSON.stringify(command)).toMatchObject({ ok: false });
    }
    for (const pattern of ["../*", "{src,../x}/*", "src/../../*", "[.][.]/x"]) {
      const result = await call("fs_glob", { pattern });
      expect(result.code, pattern).toBe(2);
      expect(JSON.parse(result.stdout), pattern).toMatchObject({
        ok: false,
        error: { code: "INVALID_ARGUMENT" },
      });
    }
    for (const path of ["README.md/.", "README.md/", "README.md/x/.."]) {
      const result = await call("fs_read", { path });
      expect(result.code, path).toBe(2);
      expect(JSON.parse(result.stdout), path).toMatchObject({
        ok: false,
        error: { code: "INVALID_ARGUMENT" },
      });
    }
  });
});

describe("bash's printf -v under a deployment allow list", () => {
  it("is denied through pablo call, and the program it would have pointed ls at never runs", async () => {
    const home = freshHome();
    const workspace = home.dir("project", {
      "evil/ls": "#!/bin/sh\n: > PWNED\n",
    });
    chmodSync(join(workspace, "evil/ls"), 0o755);
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.shell]",
        "enabled = true",
        'shell = "bash"',
        "[options.shell.commands]",
        'default = "deny"',
        "allow = [",
        '  { id = "e2e.printf", executable = "/usr/bin/printf", args = [], match = "prefix" },',
        '  { id = "e2e.ls", executable = "/usr/bin/ls", args = [], match = "prefix" },',
        "]",
        "",
      ].join("\n"),
    );
    const call = (command: string) =>
      runPablo(
        [
          "call",
          "shell_run",
          "--args",
          JSON.stringify({ command }),
          "--json",
          "--config",
          config,
          "--permission",
          "auto",
        ],
        { cwd: workspace, env: personEnv(home) },
      );
    const allowed = await call("printf ok; ls");
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ ok: true, data: { stdout: "okevil\n" } });
    const attack = await call(`printf -v PATH ${join(workspace, "evil")}; ls`);
    expect(attack.code).toBe(3);
    expect(JSON.parse(attack.stdout)).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(attack.stdout).toContain("printf option -v");
    expect(existsSync(join(workspace, "PWNED"))).toBe(false);
  });
});

describe("a shell.run timeout through pablo call", () => {
  it("ends the command line where it stands: the step after the interrupted one never runs", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const args = { command: "sleep 3; echo end > after.txt", timeout_ms: 1_000 };
    const result = await runPablo(
      ["call", "shell_run", "--args", JSON.stringify(args), "--json", "--permission", "auto"],
      { cwd: workspace, env: personEnv(home) },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(existsSync(join(workspace, "after.txt"))).toBe(false);
  });
});
