import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  freshHome,
  type Home,
  loopbackModel,
  personEnv,
  processesWith,
  Terminal,
  TMUX,
  toolResultIn,
} from "./harness.js";

/** A deployment that asks for every high-risk call and lets the shell run touch and sleep. */
function askDeployment(home: Home, extra: string[] = []): string {
  return home.write(
    "pablo/deployment.toml",
    [
      "[options.permission]",
      'mode = "ask"',
      ...extra,
      "[options.shell]",
      "enabled = true",
      "[options.shell.commands]",
      "allow = [",
      '  { id = "e2e.touch", executable = "/usr/bin/touch", args = [], match = "prefix" },',
      '  { id = "e2e.sleep", executable = "/usr/bin/sleep", args = [], match = "prefix" },',
      "]",
      "",
    ].join("\n"),
  );
}

/** A command whose process ignores SIGTERM (an ignored signal stays ignored across exec). */
const stubborn = (marker: string) => `sh -c 'trap "" TERM; exec sleep ${marker}'`;

const touch = (id: string, file: string) => ({ id, name: "shell_run", input: { command: `touch ${file}` } });

describe.skipIf(!TMUX)("the permission card on a real terminal", () => {
  it("runs the call when the person types o, and audits allow-once", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [touch("t1", "approved.txt")] },
      { text: "Created it." },
    ]);
    const terminal = Terminal.open(
      ["run", "Create approved.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("[o] allow once  [s] allow for this session  [d] deny");
    expect(terminal.screen()).toContain("permission: shell_run (shell.run), high risk");
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ allowed once");
    expect(existsSync(join(workspace, "approved.txt"))).toBe(true);
    expect(toolResultIn(model.server.requests[1], "t1")).toMatchObject({ ok: true });
    expect(home.audit()).toMatchObject([
      { tool: "shell.run", prompted: true, permissionAnswer: "allow-once", decision: "allow", ok: true },
    ]);
  });

  it("on the default preset, answers o typed the moment the card shows, and the command runs", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [{ id: "e1", name: "shell_run", input: { command: "echo smoke-ok" } }] },
      { text: "Done." },
    ]);
    const terminal = Terminal.open(["run", "Say smoke", "--model", "anthropic:claude-e2e"], {
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    // No wait for the prompt line: a person answers as soon as the card is on the screen.
    await terminal.waitFor("└");
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ allowed once");
    expect(terminal.screen()).toContain("smoke-ok");
    expect(toolResultIn(model.server.requests[1], "e1")).toMatchObject({ ok: true });
  });

  it("under timeout, which leaves pablo in a process group of its own, shows the card, takes o and hands the terminal back", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [{ id: "w1", name: "shell_run", input: { command: "echo wrapped-ok" } }] },
      { text: "Done." },
    ]);
    // Without --foreground, timeout moves itself and pablo out of the terminal's foreground group.
    const terminal = Terminal.open(["run", "Say it", "--model", "anthropic:claude-e2e"], {
      cwd: workspace,
      env: personEnv(home, model.env),
      wrapper: ["timeout", "120"],
    });
    await terminal.waitFor("[o] allow once  [s] allow for this session  [d] deny");
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ allowed once");
    expect(terminal.screen()).toContain("wrapped-ok");
    expect(terminal.screen()).not.toContain("this card waits for it");
    expect(terminal.shellHeldTerminalAfter()).toBe(true);
    expect(toolResultIn(model.server.requests[1], "w1")).toMatchObject({ ok: true });
  });

  it("put in the background by a job-control shell, waits for fg before it shows the card", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [{ id: "b1", name: "shell_run", input: { command: "echo after-fg" } }] },
      { text: "Done." },
    ]);
    // An interactive shell runs pablo as a background job, says so once the job has stopped for
    // the terminal (jobs -s), and only then brings it to the foreground.
    const shell = [
      '"$@" &',
      'for _ in $(seq 600); do [ -n "$(jobs -s)" ] && break; sleep 0.1; done',
      "echo shell-kept-the-terminal",
      "fg",
    ].join("\n");
    const terminal = Terminal.open(["run", "Say it", "--model", "anthropic:claude-e2e"], {
      cwd: workspace,
      env: personEnv(home, model.env),
      wrapper: ["bash", "--norc", "-i", "-c", shell, "job"],
    });
    const shown = await terminal.waitFor("[o] allow once  [s] allow for this session  [d] deny");
    // In this order on the screen: the job stopped for the terminal, the shell went on, and only
    // after fg the card. A pablo that took the terminal would draw the card first and never stop.
    const order = ["Stopped", "shell-kept-the-terminal", "┌ permission"].map((text) => shown.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("after-fg");
    expect(toolResultIn(model.server.requests[1], "b1")).toMatchObject({ ok: true });
  });

  it("drops a key typed before the card shows: type-ahead answers nothing", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [touch("t1", "typed-ahead.txt")] },
      { text: "You declined." },
    ]);
    const terminal = Terminal.open(
      ["run", "Create typed-ahead.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    // Typed while the CLI is still starting, long before any card exists.
    expect(terminal.screen()).not.toContain("permission:");
    terminal.type("o");
    await terminal.waitFor("[d] deny");
    // Had the early o answered, the file would exist and the card would say so; the card waits.
    expect(terminal.screen()).not.toContain("→ allowed");
    // The card says the early key was ignored, so a person knows to answer again.
    expect(terminal.screen()).toContain("keys typed before this card was shown were ignored: answer now");
    terminal.type("d");
    await terminal.exitCode();
    expect(terminal.screen()).toContain("→ denied");
    expect(existsSync(join(workspace, "typed-ahead.txt"))).toBe(false);
    expect(home.audit()).toMatchObject([{ tool: "shell.run", prompted: true, permissionAnswer: "deny" }]);
  });

  it("on a terminal too narrow for the full prompt, the countdown redraws one short line", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [touch("t1", "narrow.txt")] }, { text: "Created it." }]);
    const terminal = Terminal.open(
      ["run", "Create narrow.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env), columns: 60 },
    );
    await terminal.waitFor("[o]nce [s]ession [d]eny");
    // Two redraws of the countdown later, still one prompt line on the screen.
    const seconds = Number(/\((\d+)s\) >/.exec(terminal.screen())?.[1]);
    await terminal.waitFor(`(${seconds - 2}s) >`);
    expect(terminal.screen().match(/\[o\]nce/g)).toHaveLength(1);
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ allowed once");
    expect(existsSync(join(workspace, "narrow.txt"))).toBe(true);
  });

  it("remembers s for the rest of the session: the second call shows no card", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [touch("t1", "one.txt")] },
      { toolCalls: [touch("t2", "two.txt")] },
      { text: "Both exist." },
    ]);
    const terminal = Terminal.open(
      ["run", "Create two files", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("[s] allow for this session");
    terminal.type("s");
    expect(await terminal.exitCode()).toBe(0);
    const screen = terminal.screen();
    expect(screen.match(/┌ permission:/g)).toHaveLength(1);
    expect(screen).toContain("→ allowed for this session");
    expect(existsSync(join(workspace, "one.txt"))).toBe(true);
    expect(existsSync(join(workspace, "two.txt"))).toBe(true);
    expect(home.audit().map((r) => [r["prompted"], r["permissionAnswer"] ?? null, r["ok"]])).toEqual([
      [true, "allow-session", true],
      [false, null, true],
    ]);
  });

  it("denies when the person types d: nothing runs and the model is told", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([
      { toolCalls: [touch("t1", "denied.txt")] },
      { text: "You declined." },
    ]);
    const terminal = Terminal.open(
      ["run", "Create denied.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("[d] deny");
    terminal.type("d");
    await terminal.exitCode();
    expect(terminal.screen()).toContain("→ denied");
    expect(existsSync(join(workspace, "denied.txt"))).toBe(false);
    expect(toolResultIn(model.server.requests[1], "t1")).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED" },
    });
    expect(home.audit()).toMatchObject([{ tool: "shell.run", prompted: true, permissionAnswer: "deny" }]);
  });

  it("re-asks on a key it does not know, then takes the answer", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [touch("t1", "x.txt")] }, { text: "Done." }]);
    const terminal = Terminal.open(
      ["run", "Create x.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("[o] allow once");
    terminal.type("maybe");
    await terminal.waitFor("not an answer: press o, s or d on its own");
    // A pause, as a person reading the hint makes: a key on its own is an answer again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    terminal.press("O");
    expect(await terminal.exitCode()).toBe(0);
    expect(existsSync(join(workspace, "x.txt"))).toBe(true);
  });

  it("takes no answer from a typed word: the o of no and the s of yes allow nothing", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [touch("t1", "x.txt")] }, { text: "Done." }]);
    const terminal = Terminal.open(
      ["run", "Create x.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("[o] allow once");
    terminal.type("no");
    await terminal.waitFor("not an answer");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    terminal.type("yes");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(terminal.screen()).not.toContain("→ allowed");
    expect(existsSync(join(workspace, "x.txt"))).toBe(false);
    terminal.press("d");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ denied");
    expect(existsSync(join(workspace, "x.txt"))).toBe(false);
    expect(home.audit()).toMatchObject([{ tool: "shell.run", permissionAnswer: "deny", decision: "deny" }]);
  });

  it("shows a long command whole, tail included, and escapes bidi and C1 controls", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const command = `echo ${"a".repeat(1500)} \u202e\u009b; touch PWNED.txt`;
    const model = await loopbackModel([
      { toolCalls: [{ id: "l1", name: "shell_run", input: { command } }] },
      { text: "Done." },
    ]);
    const terminal = Terminal.open(["run", "Echo", "--model", "anthropic:claude-e2e"], {
      cwd: workspace,
      env: personEnv(home, model.env),
    });
    const screen = await terminal.waitFor("[o] allow once");
    expect(screen).toContain(`command: "echo ${"a".repeat(1500)} \\u202e\\u009b; touch PWNED.txt"`);
    expect(screen).not.toMatch(/[\u202e\u009b]/);
    terminal.press("d");
    expect(await terminal.exitCode()).toBe(0);
    expect(existsSync(join(workspace, "PWNED.txt"))).toBe(false);
  });

  it("denies when the countdown runs out, and says so on the card", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [touch("t1", "late.txt")] }, { text: "No answer." }]);
    const config = askDeployment(home, ["timeout_ms = 2500"]);
    const terminal = Terminal.open(
      ["run", "Create late.txt", "--config", config, "--model", "anthropic:claude-e2e"],
      {
        cwd: workspace,
        env: personEnv(home, model.env),
      },
    );
    await terminal.waitFor(/denied in [123]s/);
    await terminal.exitCode();
    expect(terminal.screen()).toContain("→ no answer in time: denied");
    expect(existsSync(join(workspace, "late.txt"))).toBe(false);
    expect(home.audit()).toMatchObject([
      { tool: "shell.run", prompted: true, ok: false, errorCode: "TOOL_DENIED" },
    ]);
  });

  it("Ctrl-C during a card cancels the run with exit 130 and runs nothing", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const model = await loopbackModel([{ toolCalls: [touch("t1", "never.txt")] }, { text: "unreachable" }]);
    const terminal = Terminal.open(
      ["run", "Create never.txt", "--config", askDeployment(home), "--model", "anthropic:claude-e2e"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("[o] allow once");
    terminal.press("C-c");
    expect(await terminal.exitCode()).toBe(130);
    expect(existsSync(join(workspace, "never.txt"))).toBe(false);
    expect(home.audit()).toMatchObject([{ tool: "shell.run", ok: false }]);
    expect(model.server.requests).toHaveLength(1);
  });

  it("Ctrl-C during a running command ends it, every process it started and the rest of its line, exit 130", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const marker = `${40_000 + Math.floor(Math.random() * 9_999)}`;
    const command = `sleep ${marker}; touch after.txt`;
    const model = await loopbackModel([
      { toolCalls: [{ id: "s1", name: "shell_run", input: { command } }] },
      { text: "unreachable" },
    ]);
    const terminal = Terminal.open(
      [
        "run",
        "Wait",
        "--config",
        askDeployment(home),
        "--model",
        "anthropic:claude-e2e",
        "--permission",
        "auto",
      ],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await terminal.waitFor("▸ shell.run");
    await expect.poll(() => processesWith(`sleep ${marker}`).length, { timeout: 15_000 }).toBeGreaterThan(0);
    terminal.press("C-c");
    expect(await terminal.exitCode()).toBe(130);
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
    expect(existsSync(join(workspace, "after.txt"))).toBe(false);
    expect(home.audit()).toMatchObject([{ tool: "shell.run", ok: false, errorCode: "TOOL_CANCELLED" }]);
  });

  it("a second Ctrl-C ends a command that ignores SIGTERM at once, without its grace, and still records the call", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const marker = `${40_000 + Math.floor(Math.random() * 9_999)}`;
    const model = await loopbackModel([
      { toolCalls: [{ id: "s1", name: "shell_run", input: { command: stubborn(marker) } }] },
      { text: "unreachable" },
    ]);
    const config = home.write(
      "pablo/deployment.toml",
      ["[options.shell]", "enabled = true", "kill_grace_ms = 120000", "cleanup_ms = 180000", ""].join("\n"),
    );
    const terminal = Terminal.open(
      ["run", "Wait", "--config", config, "--model", "anthropic:claude-e2e", "--permission", "auto"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await expect.poll(() => processesWith(`sleep ${marker}`).length, { timeout: 15_000 }).toBeGreaterThan(0);
    terminal.press("C-c");
    // The first Ctrl-C gives the command its two minutes of grace; it ignores SIGTERM and stays.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(processesWith(`sleep ${marker}`).length).toBeGreaterThan(0);
    terminal.press("C-c");
    expect(await terminal.exitCode(20_000)).toBe(130);
    expect(terminal.screen()).toContain("pablo: stopping now: ending every process it started");
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
    expect(home.audit()).toMatchObject([{ tool: "shell.run", ok: false, errorCode: "TOOL_CANCELLED" }]);
  });

  it("a closed terminal (SIGHUP) cancels like Ctrl-C: the command ends and the call is recorded", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const marker = `${40_000 + Math.floor(Math.random() * 9_999)}`;
    const model = await loopbackModel([
      { toolCalls: [{ id: "s1", name: "shell_run", input: { command: stubborn(marker) } }] },
      { text: "unreachable" },
    ]);
    const terminal = Terminal.open(
      ["run", "Wait", "--model", "anthropic:claude-e2e", "--permission", "auto"],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    await expect.poll(() => processesWith(`sleep ${marker}`).length, { timeout: 15_000 }).toBeGreaterThan(0);
    terminal.close();
    await expect.poll(() => processesWith(`sleep ${marker}`), { timeout: 15_000 }).toEqual([]);
    await expect
      .poll(() => home.audit(), { timeout: 15_000 })
      .toMatchObject([{ tool: "shell.run", ok: false, errorCode: "TOOL_CANCELLED" }]);
  });

  it("shows a card for a plugin tool whose manifest says low risk (seed 001: plugins confirm under ask)", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const plugin = join(import.meta.dirname, "fixtures", "low-risk-plugin");
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.permission]",
        'mode = "ask"',
        "[options.plugins.hello]",
        `package = ${JSON.stringify(plugin)}`,
        'grants = ["agent.tool.register"]',
        "",
      ].join("\n"),
    );
    const model = await loopbackModel([
      { toolCalls: [{ id: "l1", name: "ToolSearch", input: { query: "plugin_hello_greet" } }] },
      { toolCalls: [{ id: "p1", name: "plugin_hello_greet", input: { name: "Ada" } }] },
      { text: "Greeted." },
    ]);
    const terminal = Terminal.open(
      ["run", "Greet Ada", "--config", config, "--model", "anthropic:claude-e2e"],
      {
        cwd: workspace,
        env: personEnv(home, model.env),
      },
    );
    await terminal.waitFor("permission: plugin_hello_greet (plugin.hello.greet), low risk");
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    expect(toolResultIn(model.server.requests[2], "p1")).toEqual({
      ok: true,
      data: { greeting: "Hello, Ada!" },
    });
    expect(home.audit().find((r) => r["tool"] === "plugin.hello.greet")).toMatchObject({
      prompted: true,
      permissionAnswer: "allow-once",
    });
  });

  it("asks before reading a relative .. path outside the workspace, and reads it once allowed", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    home.write("notes.txt", "outside the workspace\n");
    const config = home.write(
      "pablo/deployment.toml",
      ["[options.permission]", 'mode = "ask"', "[options.fs]", 'outside_paths = "permission"', ""].join("\n"),
    );
    const model = await loopbackModel([
      { toolCalls: [{ id: "r1", name: "fs_read", input: { path: "../notes.txt" } }] },
      { text: "Read it." },
    ]);
    const terminal = Terminal.open(
      ["run", "Read ../notes.txt", "--config", config, "--model", "anthropic:claude-e2e"],
      {
        cwd: workspace,
        env: personEnv(home, model.env),
      },
    );
    await terminal.waitFor("why: explicit path outside the session roots");
    terminal.type("o");
    expect(await terminal.exitCode()).toBe(0);
    const result = toolResultIn(model.server.requests[1], "r1");
    expect(JSON.stringify(result)).toContain("outside the workspace");
    expect(result).toMatchObject({ ok: true, data: { root: "external" } });
    expect(readFileSync(join(home.home, "notes.txt"), "utf8")).toBe("outside the workspace\n");
  });
});
