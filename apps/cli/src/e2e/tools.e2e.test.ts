import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  expectNoStackTrace,
  freshHome,
  loopbackModel,
  offeredTools,
  personEnv,
  runPablo,
  systemOf,
  toolResultIn,
} from "./harness.js";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) =>
  existsSync(p),
);

describe("shell.run from the command line", () => {
  it("accepts a timeout of 1 s to 300 s only, and says what is allowed", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const env = personEnv(home);
    const call = (timeout: number) =>
      runPablo(
        [
          "call",
          "shell_run",
          "--args",
          JSON.stringify({ command: "true", timeout_ms: timeout }),
          "--permission",
          "auto",
          "--json",
        ],
        { cwd: workspace, env },
      );
    for (const bad of [1, 999, 300_001, 900_000]) {
      const refused = await call(bad);
      expect(refused.code, `timeout_ms ${bad}`).toBe(2);
      expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
      expect(refused.stdout).toMatch(/timeout_ms must be [<>]= (1000|300000)/);
    }
    for (const good of [1000, 300_000]) {
      const ran = await call(good);
      expect(ran.code, ran.stdout).toBe(0);
    }
  });

  it("refuses a shell ID this platform does not have as a located configuration error", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    for (const id of ["cmd", "windows-powershell", "git-bash", "zsh"]) {
      const config = home.write(
        "pablo/deployment.toml",
        `[options.shell]\nenabled = true\nshell = "${id}"\n`,
      );
      const result = await runPablo(["tools", "--config", config], { cwd: workspace, env: personEnv(home) });
      expectNoStackTrace(result.stderr);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${config}: options.shell: COMMAND_SHELL_INVALID:`);
      expect(result.stderr).toContain("sh, bash");
    }
  });

  it("runs bash as a login shell when the deployment asks for it", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const config = home.write(
      "pablo/deployment.toml",
      ["[options.shell]", "enabled = true", 'shell = "bash"', "login = true", ""].join("\n"),
    );
    const result = await runPablo(
      [
        "call",
        "shell_run",
        "--args",
        JSON.stringify({ command: 'shopt -q login_shell && echo "login shell: $0"' }),
        "--permission",
        "auto",
        "--config",
        config,
        "--json",
      ],
      { cwd: workspace, env: personEnv(home) },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: true,
      data: { stdout: expect.stringMatching(/^login shell: \S*bash\n/) },
    });
  });
});

describe("Task delegates whose definitions name tools no delegate can have", () => {
  it("shows the dropped names in tools --delegate, --explain and policy check", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.agent.subagents.reader]",
        'description = "Reads files"',
        'tools = ["Read", "Frobnicate", "plugin_acme_lint"]',
        "",
      ].join("\n"),
    );
    const env = personEnv(home);
    const delegate = await runPablo(["tools", "--delegate", "reader", "--config", config], {
      cwd: workspace,
      env,
    });
    expect(delegate.code, delegate.stderr).toBe(0);
    expect(delegate.stdout).toContain(
      'dropped from the definition (no delegate can be given them): "Frobnicate", "plugin_acme_lint"',
    );
    const json = await runPablo(["tools", "--delegate", "reader", "--config", config, "--json"], {
      cwd: workspace,
      env,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      grants: ["Read"],
      dropped: ["Frobnicate", "plugin_acme_lint"],
    });

    const explain = await runPablo(["tools", "--explain", "--config", config], { cwd: workspace, env });
    expect(explain.stdout).toMatch(
      /left out: options\.agent\.subagents\.reader\/Frobnicate: .+ \[SUBAGENT_TOOL_DROPPED\]/,
    );

    const check = await runPablo(["policy", "check", "--config", config], { cwd: workspace, env });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(
      /left out: options\.agent\.subagents\.reader\/plugin_acme_lint: .+ \[SUBAGENT_TOOL_DROPPED\]/,
    );
  });
});

describe.skipIf(!CHROMIUM)("BrowserPreview through pablo run", () => {
  it("renders a workspace page in Plan mode and returns its title, text and a screenshot in scratch", async () => {
    const home = freshHome();
    const workspace = home.dir("site", {
      "index.html": "<!doctype html><title>Release notes</title><h1>Version 2</h1><p>Faster search.</p>",
    });
    const model = await loopbackModel([
      { toolCalls: [{ id: "q1", name: "ToolSearch", input: { query: "browser_preview" } }] },
      { toolCalls: [{ id: "b1", name: "browser_preview", input: { path: "index.html" } }] },
      { text: "The page says Version 2." },
    ]);
    const run = await runPablo(
      ["run", "Preview the page", "--mode", "plan", "--model", "anthropic:claude-e2e"],
      {
        cwd: workspace,
        env: personEnv(home, model.env),
        timeoutMs: 120_000,
      },
    );
    expectNoStackTrace(run.stderr);
    expect(systemOf(model.server.requests[0])).toContain("- browser_preview:");
    expect(offeredTools(model.server.requests[1])).toContain("browser_preview");
    const result = toolResultIn(model.server.requests[2], "b1") as {
      ok: boolean;
      data: { title: string; text: string; screenshot: string };
    };
    expect(result).toMatchObject({ ok: true, data: { title: "Release notes" } });
    expect(result.data.text).toContain("Version 2");
    expect(result.data.screenshot.startsWith(workspace)).toBe(false);
    expect(home.audit().find((r) => r["tool"] === "browser.preview")).toMatchObject({
      ok: true,
      prompted: false,
    });
  });

  it("is left out, with the reason in --explain, when the deployment turns it off", async () => {
    const home = freshHome();
    const workspace = home.dir("site");
    const config = home.write("pablo/deployment.toml", "[options.browser]\nenabled = false\n");
    const env = personEnv(home);
    const tools = await runPablo(["tools", "--json", "--config", config], { cwd: workspace, env });
    expect(tools.stdout).not.toContain("browser_preview");
    const explain = await runPablo(["tools", "--explain", "--config", config], { cwd: workspace, env });
    expect(explain.stdout).toContain("left out: browser/browser.preview: BrowserPreview is off");
    const check = await runPablo(["policy", "check", "--config", config], { cwd: workspace, env });
    expect(check.stdout).not.toContain("BrowserPreview");
  });
});
