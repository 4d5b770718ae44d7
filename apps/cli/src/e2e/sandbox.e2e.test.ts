import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, personEnv, processesWith, runPablo } from "./harness.js";

function replay(dir: string, responses: unknown[]): string {
  const file = join(dir, "model.replay.json");
  writeFileSync(file, JSON.stringify({ format: "pablo.replay/1", model: "replay", responses }));
  return `replay:${file}`;
}

describe("[options.sandbox] from a deployment file", () => {
  it("virtual: no shell tool, writes stay in memory, --export-changes writes them out", async () => {
    const home = freshHome();
    const seed = home.dir("seed", { "notes.md": "# notes\n" });
    const workspace = home.dir("project");
    const out = join(home.home, "changes");
    const config = home.write("pablo/deployment.toml", '[options.sandbox]\nkind = "virtual"\n');
    const env = personEnv(home);
    const tools = await runPablo(["tools", "--json", "--config", config, "--allow-write"], {
      cwd: workspace,
      env,
    });
    const names = (JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).not.toContain("shell.run");
    expect(names).toContain("fs.write");
    const model = replay(home.home, [
      { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "notes.md" } }] },
      {
        toolCalls: [
          {
            id: "w1",
            name: "fs_write",
            input: { path: "summary.md", content: "one note\n", expected_revision: null },
          },
        ],
      },
      { text: "Wrote summary.md.", finish: "stop" },
    ]);
    const run = await runPablo(
      [
        "run",
        "Summarize the notes",
        "--config",
        config,
        "--model",
        model,
        "--allow-write",
        "--permission",
        "accept-edits",
        "--seed",
        seed,
        "--export-changes",
        out,
      ],
      { cwd: workspace, env },
    );
    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("sandbox changes (written to");
    expect(run.stderr).toContain("  added summary.md");
    expect(readdirSync(workspace)).toEqual([]);
    expect(readFileSync(join(out, "summary.md"), "utf8")).toBe("one note\n");
    expect(existsSync(join(out, "notes.md"))).toBe(false);
  });

  it("bubblewrap: a command cannot write outside the workspace or read the home directory", async () => {
    if (!existsSync("/usr/bin/bwrap")) return;
    const home = freshHome();
    home.write("secret.txt", "top secret\n");
    const workspace = home.dir("project");
    const config = home.write(
      "pablo/deployment.toml",
      '[options.sandbox]\nkind = "bubblewrap"\n[options.shell]\nenabled = true\n',
    );
    const env = personEnv(home);
    const call = (command: string) =>
      runPablo(
        [
          "call",
          "shell_run",
          "--args",
          JSON.stringify({ command }),
          "--json",
          "--permission",
          "auto",
          "--config",
          config,
        ],
        {
          cwd: workspace,
          env,
        },
      );
    const inside = await call("echo hi > made.txt && cat made.txt");
    expect(inside.code, inside.stdout).toBe(0);
    expect(readFileSync(join(workspace, "made.txt"), "utf8")).toBe("hi\n");
    // Beside the workspace is the sandbox's private /tmp: a write there never reaches the host.
    await call(`echo x > ${join(home.home, "escaped.txt")}`);
    expect(existsSync(join(home.home, "escaped.txt"))).toBe(false);
    const system = await call("echo x > /etc/pablo-escaped");
    expect(system.code).not.toBe(0);
    expect(existsSync("/etc/pablo-escaped")).toBe(false);
    const peek = await call(`cat ${join(home.home, "secret.txt")}`);
    expect(peek.stdout).not.toContain("top secret");
    const explain = await runPablo(["tools", "--explain", "--config", config], { cwd: workspace, env });
    expect(explain.stdout).toMatch(/sandbox bubblewrap/);
  });

  it("local: a setsid escapee started by a command does not outlive the call", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const marker = `${50_000 + Math.floor(Math.random() * 9_999)}`;
    const result = await runPablo(
      [
        "call",
        "shell_run",
        "--args",
        JSON.stringify({ command: `env -i setsid sleep ${marker} >/dev/null 2>&1 & echo ok` }),
        "--json",
        "--permission",
        "auto",
      ],
      { cwd: workspace, env: personEnv(home) },
    );
    expect(result.code, result.stdout).toBe(0);
    await expect.poll(() => processesWith(`sleep ${marker}`), { timeout: 5_000 }).toEqual([]);
  });
});
