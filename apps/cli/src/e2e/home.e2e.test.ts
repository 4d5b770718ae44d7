import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
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

const repoSkills = resolve(import.meta.dirname, "..", "..", "..", "..", "skills");

describe("pablo from a fresh home directory", () => {
  it("works when run in the home itself, which contains the state directory", async () => {
    const home = freshHome();
    home.write("notes.md", "# notes\n");
    const env = personEnv(home);
    const tools = await runPablo(["tools", "--json"], { cwd: home.home, env });
    expectNoStackTrace(tools.stderr);
    expect(tools.code).toBe(0);
    expect(
      (JSON.parse(tools.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name),
    ).toContain("fs.read");

    const read = await runPablo(["call", "fs_read", "--args", '{"path":"notes.md"}', "--json"], {
      cwd: home.home,
      env,
    });
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ ok: true });

    // The audit log sits inside this workspace now; no tool may read or rewrite it, even under auto.
    for (const [tool, args] of [
      ["fs_read", { path: ".local/state/pablo/audit.jsonl" }],
      ["fs_write", { path: ".local/state/pablo/audit.jsonl", content: "{}\n", expected_revision: null }],
    ] as const) {
      const denied = await runPablo(
        ["call", tool, "--args", JSON.stringify(args), "--json", "--permission", "auto", "--allow-write"],
        { cwd: home.home, env },
      );
      expect(denied.code, denied.stderr).toBe(3);
      expect(JSON.parse(denied.stdout)).toMatchObject({
        ok: false,
        error: { code: "TOOL_DENIED", details: { layer: "distribution.pablo-state" } },
      });
    }
    const audit = readFileSync(join(home.state, "audit.jsonl"), "utf8");
    expect(audit.split("\n").filter((l) => l !== "")).toHaveLength(3);
  });

  it("works in a workspace reached through a symlink, and reports the real path", async () => {
    const home = freshHome();
    const real = home.dir("real-project", { "a.txt": "alpha\n" });
    const link = join(home.home, "project-link");
    symlinkSync(real, link);
    const env = personEnv(home);
    const read = await runPablo(["call", "fs_read", "--args", '{"path":"a.txt"}', "--json"], {
      cwd: link,
      env,
    });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ ok: true });
    const viaFlag = await runPablo(["tools", "--explain"], { cwd: home.home, env: { ...env } });
    expect(viaFlag.code).toBe(0);
    const explicit = await runPablo(["call", "fs_read", "--args", '{"path":"a.txt"}', "--workspace", link], {
      cwd: home.home,
      env,
    });
    expect(explicit.code, explicit.stderr).toBe(0);
    expect(explicit.stdout).toContain("alpha");
  });

  it("sweeps scratch directories of sessions that are gone or untouched for a week at startup", async () => {
    const home = freshHome();
    const scratch = join(home.state, "data", "scratch");
    const orphan = join(scratch, "orphan-session");
    const stale = join(scratch, "stale-session");
    for (const dir of [orphan, stale]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "draft.txt"), "x");
    }
    const old = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const path of [join(stale, "draft.txt"), stale]) utimesSync(path, old, old);
    // A session that claims to be live in this very process stays: its owner is running.
    const live = join(scratch, "live-session");
    mkdirSync(live, { recursive: true });
    mkdirSync(join(home.state, "data", "sessions"), { recursive: true });
    writeFileSync(join(home.state, "data", "sessions", "live-session"), String(process.pid));
    const workspace = home.dir("project");
    const run = await runPablo(["tools"], { cwd: workspace, env: personEnv(home) });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(scratch).sort()).toEqual(["live-session"]);
  });
});

describe("the request the model receives", () => {
  it("carries the activated skills, the scratch path and the on-demand catalog, and no secret", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "README.md": "# project\n" });
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.skills.roots]",
        'team = { base = "binding", name = "skills", path = "." }',
        "[options.skills]",
        'activate = ["team/evidence-review"]',
        "[options.shell]",
        "enabled = true",
        "",
      ].join("\n"),
    );
    const model = await loopbackModel([
      { toolCalls: [{ id: "q1", name: "ToolSearch", input: { query: "Skill" } }] },
      { toolCalls: [{ id: "k1", name: "Skill", input: { name: "team/evidence-review" } }] },
      { toolCalls: [{ id: "e1", name: "shell_run", input: { command: "env" } }] },
      { text: "Ready." },
    ]);
    // A secret in the person's own environment: the shell's clean environment never passes it on.
    const secret = "aws-secret-e2e-5f1b";
    const run = await runPablo(
      [
        "run",
        "Review the evidence",
        "--config",
        config,
        "--bind",
        `skills=${repoSkills}`,
        "--model",
        "anthropic:claude-e2e",
        "--permission",
        "auto",
      ],
      { cwd: workspace, env: personEnv(home, { ...model.env, AWS_SECRET_ACCESS_KEY: secret }) },
    );
    expectNoStackTrace(run.stderr);
    const first = model.server.requests[0];
    const system = systemOf(first);
    expect(system).toContain('<skill id="team/evidence-review"');
    expect(system).toContain("Use only the evidence provided by the task");
    expect(system).toMatch(/Your session scratch directory is (\/\S+): put temporary files there/);
    const scratchPath = /Your session scratch directory is (\/\S+?):/.exec(system)?.[1] ?? "";
    expect(scratchPath.startsWith(workspace)).toBe(false);
    expect(system).toContain("# On-demand tools");
    expect(system).toContain("- fs_search:");
    expect(offeredTools(first)).not.toContain("fs_search");
    expect(toolResultIn(model.server.requests[3], "e1")).toMatchObject({ ok: true });
    expect(JSON.stringify(model.server.requests[3]?.body)).toContain("PABLO_SCRATCH_DIR");
    for (const request of model.server.requests) {
      expect(JSON.stringify(request.body)).not.toContain(model.key);
      expect(JSON.stringify(request)).not.toContain(secret);
    }
    // The Skill tool agrees: the skill is already in the context.
    expect(toolResultIn(model.server.requests[2], "k1")).toMatchObject({
      ok: true,
      data: { alreadyActive: true },
    });
    expect(run.code, run.stderr).toBe(0);
  });

  it("answers ToolSearch for an excluded exact name with its rule, and loads nothing", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const config = home.write(
      "pablo/deployment.toml",
      ["[options.policy.tool]", 'deny = [{ id = "no-grep", match = "fs.search" }]', ""].join("\n"),
    );
    const model = await loopbackModel([
      { toolCalls: [{ id: "q1", name: "ToolSearch", input: { query: "fs_search" } }] },
      { text: "Grep is not available." },
    ]);
    const run = await runPablo(
      ["run", "Search for TODO", "--config", config, "--model", "anthropic:claude-e2e"],
      {
        cwd: workspace,
        env: personEnv(home, model.env),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(toolResultIn(model.server.requests[1], "q1")).toEqual({
      ok: true,
      data: {
        loaded: [],
        unavailable: [{ name: "fs_search", reason: "not available: deployment/no-grep" }],
        note: "Nothing was loaded: the tools you named are not available in this session.",
      },
    });
    expect(offeredTools(model.server.requests[1])).not.toContain("fs_glob");
  });

  it("ends the run on the second failed shell patch for the same file in a prompt", async () => {
    const home = freshHome();
    const workspace = home.dir("project", {
      "a.txt": "one\ntwo\n",
      "fix.patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-uno\n+eins\n two\n",
    });
    const config = home.write(
      "pablo/deployment.toml",
      [
        "[options.shell]",
        "enabled = true",
        "[options.shell.commands]",
        'allow = [{ id = "e2e.patch", executable = "/usr/bin/patch", args = [], match = "prefix" }]',
        "",
      ].join("\n"),
    );
    const patch = (id: string) => ({
      id,
      name: "shell_run",
      input: { command: "patch -p1 --dry-run -i fix.patch" },
    });
    const model = await loopbackModel([
      { toolCalls: [patch("p1")] },
      { toolCalls: [patch("p2")] },
      { toolCalls: [patch("p3")] },
      { text: "unreachable" },
    ]);
    const run = await runPablo(
      [
        "run",
        "Apply fix.patch",
        "--config",
        config,
        "--model",
        "anthropic:claude-e2e",
        "--permission",
        "auto",
      ],
      { cwd: workspace, env: personEnv(home, model.env) },
    );
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    expect(model.server.requests).toHaveLength(2);
    expect(toolResultIn(model.server.requests[1], "p1")).toMatchObject({ ok: false });
    expect(run.stderr).toMatch(/status: terminated/);
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\ntwo\n");
    expect(existsSync(join(workspace, "a.txt.rej"))).toBe(false);
  });
});
