import { mkdirSync, symlinkSync } from "node:fs";
import { toJsonSchema } from "@pablo/kernel";
import { afterEach, describe, expect, it } from "vitest";
import { CLEAN_PATH, createShellTool, findShell, type ShellToolConfig } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { useWorkspace } from "./test-support/workspace.js";

function shell(config: Partial<ShellToolConfig> = {}) {
  const workspace = useWorkspace();
  const { session, events, audit } = sessionFor(createShellTool({ workspace, ...config }));
  const run = async (args: Record<string, unknown>) =>
    (await session.call({ tool: "shell_run", args })).result;
  return { workspace, session, events, audit, run };
}

describe("shell.run through the kernel", () => {
  it("runs the command and returns stdout and stderr separately with the exit status", async () => {
    const { run } = shell();
    expect(await run({ command: "echo out; echo err >&2" })).toEqual({
      ok: true,
      data: { exitCode: 0, stdout: "out\n", stderr: "err\n", stdoutBytes: 4, stderrBytes: 4 },
    });
  });

  it("reports a non-zero exit as TOOL_FAILED keeping exitCode, stdout and stderr", async () => {
    const { run } = shell();
    expect(await run({ command: "echo partial; echo broken >&2; exit 3" })).toMatchObject({
      ok: false,
      error: {
        code: "TOOL_FAILED",
        message: "the command exited with status 3",
        details: { exitCode: 3, stdout: "partial\n", stderr: "broken\n" },
      },
    });
  });

  it("runs with stdin closed, so a command that reads stdin sees end of input at once", async () => {
    const { run } = shell();
    expect(await run({ command: "cat; echo done", timeout_ms: 5_000 })).toMatchObject({
      ok: true,
      data: { stdout: "done\n" },
    });
  });

  describe("environment", () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    });

    it("passes nothing of the host's environment: no FOO_TOKEN, HOME, ENV or trace context", async () => {
      Object.assign(process.env, {
        FOO_TOKEN: "secret-value",
        OPENAI_API_KEY: "sk-test",
        HOME: "/root",
        ENV: "/tmp/evil-rc",
        BASH_ENV: "/tmp/evil-rc",
        TRACEPARENT: "00-abc-def-01",
      });
      const { run } = shell();
      const result = await run({ command: "env" });
      expect(result.ok).toBe(true);
      const env = String(result.ok ? (result.data as { stdout: string }).stdout : "");
      expect(env).not.toMatch(/FOO_TOKEN|secret-value|OPENAI_API_KEY|^HOME=|^ENV=|BASH_ENV|TRACEPARENT/m);
      expect(env).toContain(`PATH=${CLEAN_PATH}\n`);
      expect(env).toContain("LC_ALL=C.UTF-8\n");
      expect(env).toContain("GIT_CONFIG_NOSYSTEM=1\n");
    });

    it("adds PABLO_TASK_ variables and refuses any other name with INVALID_ARGUMENT", async () => {
      const { run } = shell();
      expect(
        await run({ command: 'printf %s "$PABLO_TASK_LABEL"', env: { PABLO_TASK_LABEL: "docs" } }),
      ).toMatchObject({
        ok: true,
        data: { stdout: "docs" },
      });
      for (const name of ["PATH", "LD_PRELOAD", "pablo_task_x", "PABLO_TASKX", "BASH_FUNC_ls%%"]) {
        const result = await run({ command: "true", env: { [name]: "x" } });
        expect(result, name).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
      }
    });

    it("exports the scratch directory when the host has one", async () => {
      const { run } = shell({ scratchDir: "/tmp/pablo-scratch-x" });
      expect(await run({ command: 'printf %s "$PABLO_SCRATCH_DIR"' })).toMatchObject({
        data: { stdout: "/tmp/pablo-scratch-x" },
      });
    });
  });

  describe("working directory", () => {
    it("runs in the workspace root by default and in a contained subdirectory on request", async () => {
      const { run, workspace } = shell();
      mkdirSync(`${workspace}/sub`);
      expect(await run({ command: "pwd" })).toMatchObject({ data: { stdout: `${workspace}\n` } });
      expect(await run({ command: "pwd", cwd: "sub" })).toMatchObject({
        data: { stdout: `${workspace}/sub\n` },
      });
    });

    it("refuses a cwd outside the workspace, through a parent step, or across a symlink, before running", async () => {
      const { run, workspace, audit } = shell();
      symlinkSync("/tmp", `${workspace}/link`);
      expect(await run({ command: "touch escaped", cwd: "/tmp" })).toMatchObject({
        ok: false,
        error: { code: "OUTSIDE_WORKSPACE" },
      });
      expect(await run({ command: "touch escaped", cwd: ".." })).toMatchObject({ ok: false });
      expect(await run({ command: "touch escaped", cwd: "link" })).toMatchObject({
        ok: false,
        error: { code: "SYMLINK_REFUSED" },
      });
      expect(await run({ command: "true", cwd: "missing" })).toMatchObject({
        ok: false,
        error: { code: "NOT_FOUND" },
      });
      expect(audit.records.every((r) => r.durationMs === 0)).toBe(true);
    });

    it("uses an injected containment port", async () => {
      const { run, workspace } = shell({
        resolveCwd: async (root, path) =>
          path === "."
            ? { ok: true, path: root }
            : { ok: false, error: { code: "NOPE", message: `no ${path}` } },
      });
      expect(await run({ command: "pwd" })).toMatchObject({ data: { stdout: `${workspace}\n` } });
      expect(await run({ command: "pwd", cwd: "x" })).toMatchObject({ error: { code: "NOPE" } });
    });
  });

  describe("output", () => {
    it("streams stdout and stderr to the host as progress events while the command runs", async () => {
      const { session, events } = shell();
      const started = Date.now();
      const call = session.call({
        tool: "shell_run",
        args: { command: "echo first; echo warn >&2; sleep 1; echo second" },
      });
      const firstSeen = await new Promise<number>((resolve) => {
        const poll = setInterval(() => {
          const seen = events.events.some((e) => e.type === "tool.progress" && e.data === "first\n");
          if (seen) {
            clearInterval(poll);
            resolve(Date.now());
          }
        }, 10);
      });
      const { result } = await call;
      const finished = Date.now();
      expect(result.ok).toBe(true);
      expect(firstSeen - started).toBeLessThan(finished - started - 500);
      const progress = events.events.filter((e) => e.type === "tool.progress");
      expect(progress.map((e) => [e.kind, e.data])).toEqual([
        ["stdout", "first\n"],
        ["stderr", "warn\n"],
        ["stdout", "second\n"],
      ]);
    });

    it("strips ANSI escapes and keeps the last lines with a marker, passing the exit status through", async () => {
      const { run } = shell({ options: { truncation: { max_lines: 3 } } });
      const result = await run({ command: "printf '\\033[31mred\\033[0m\\n'; seq 1 10; exit 4" });
      expect(result).toMatchObject({
        ok: false,
        error: { code: "TOOL_FAILED", details: { exitCode: 4, stdout: "8\n9\n10\n…[truncated 8 lines]" } },
      });
    });

    it("keeps the head and tail of each stream within max_output_bytes and says how much was dropped", async () => {
      const { run } = shell({ options: { truncation: { max_lines: 1000 } } });
      const result = await run({ command: "seq 1 100000", max_output_bytes: 1024 });
      expect(result).toMatchObject({ ok: true, data: { stdoutBytes: 588895 } });
      const stdout = result.ok ? (result.data as { stdout: string }).stdout : "";
      expect(stdout.startsWith("1\n2\n3\n")).toBe(true);
      expect(stdout).toMatch(/\n\[… 587871 bytes dropped …\]\n/);
      expect(stdout.endsWith("99999\n100000\n")).toBe(true);
    });

    it("counts every line the model does not see, those past the capture's byte cut too", async () => {
      const { run } = shell();
      const result = await run({ command: "seq 1 300000" });
      expect(result).toMatchObject({ ok: true, data: { stdoutBytes: 1_988_895 } });
      const stdout = result.ok ? (result.data as { stdout: string }).stdout : "";
      expect(stdout.split("\n").slice(0, 2)).toEqual(["299801", "299802"]);
      // 300,000 lines, 200 shown; 1,988,895 bytes, 1 MiB captured.
      expect(
        stdout.endsWith(
          "\n300000\n…[truncated 299800 lines; 940319 bytes over max_output_bytes were not captured]",
        ),
      ).toBe(true);
    });
  });

  it("runs bash when the deployment pins it", async () => {
    const { run } = shell({ options: { shell: "bash" } });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template.
    const result = await run({ command: "echo ${BASH_VERSION:+bash}" });
    expect(result).toMatchObject({ ok: true, data: { stdout: "bash\n" } });
  });

  it("accepts a timeout_ms only from 1 s to 300 s, naming the bound it broke", async () => {
    const { run } = shell();
    for (const [timeout_ms, bound] of [
      [1, ">= 1000"],
      [999, ">= 1000"],
      [300_001, "<= 300000"],
      [900_000, "<= 300000"],
    ] as const) {
      const result = await run({ command: "true", timeout_ms });
      expect(result, String(timeout_ms)).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
      expect(result.ok ? "" : result.error.message).toContain(`/timeout_ms must be ${bound}`);
    }
    expect(await run({ command: "true", timeout_ms: 1_000 })).toMatchObject({ ok: true });
    expect(await run({ command: "true", timeout_ms: 300_000 })).toMatchObject({ ok: true });
  });

  it("caps timeout_ms at a deadline below 300 s and refuses any unknown argument", async () => {
    const { run } = shell({ options: { deadline_ms: 2_000, default_timeout_ms: 1_000 } });
    expect(await run({ command: "true", timeout_ms: 2_001 })).toMatchObject({
      error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("<= 2000") },
    });
    expect(await run({ command: "true", shell: "/bin/bash" })).toMatchObject({
      error: { code: "INVALID_ARGUMENT" },
    });
    expect(await run({ command: "true", timeout_ms: 2_000 })).toMatchObject({ ok: true });
  });

  it("refuses an out-of-bounds timeout with the bounds named even when the schema is bypassed", async () => {
    const workspace = useWorkspace();
    const tool = createShellTool({ workspace, options: { deadline_ms: 120_000 } });
    const ctx = {
      turnId: "t",
      promptId: "p",
      state: <T>(_key: string, init: () => T): T => init(),
    } as unknown as Parameters<NonNullable<typeof tool.accesses>>[1];
    for (const timeout_ms of [10, 120_001]) {
      const planned = await tool.accesses?.({ command: "true", timeout_ms }, ctx);
      expect(planned).toMatchObject({
        ok: false,
        error: {
          code: "INVALID_ARGUMENT",
          message: `timeout_ms must be between 1000 and 120000 ms, got ${timeout_ms} (the bound is 1000 to 300000 ms, capped by the shell deadline of 120000 ms)`,
          details: { minimumMs: 1_000, maximumMs: 120_000, deadlineMs: 120_000 },
        },
      });
    }
  });

  it("is refused when the deployment disables it", async () => {
    const { session } = shell({ options: { enabled: false } });
    const decision = await session.dryRun({ tool: "shell_run", args: { command: "true" } });
    expect(decision).toMatchObject({ decision: "deny", code: "TOOL_DENIED" });
  });

  it("shows the model a closed schema, a high-risk process tool and a summary", () => {
    const tool = createShellTool({ workspace: "/w" });
    expect({
      name: tool.name,
      risk: tool.risk,
      effects: tool.effects,
      category: tool.category,
      mutates: tool.mutates,
    }).toEqual({ name: "shell.run", risk: "high", effects: ["process"], category: "process", mutates: true });
    expect(toJsonSchema(tool.inputSchema)).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "command": {
            "description": "Command line run non-interactively by the pinned shell (\`/bin/sh -c\` by default), stdin closed.",
            "minLength": 1,
            "type": "string",
          },
          "cwd": {
            "description": "Working directory inside the workspace, relative to its root. Default: the workspace root.",
            "minLength": 1,
            "type": "string",
          },
          "env": {
            "additionalProperties": false,
            "description": "Environment additions; only names beginning with PABLO_TASK_ are accepted.",
            "patternProperties": {
              "^PABLO_TASK_[A-Za-z0-9_]*$": {
                "type": "string",
              },
            },
            "type": "object",
          },
          "max_output_bytes": {
            "description": "Bytes of each stream kept (first and last halves) before truncation. Default 1048576.",
            "maximum": 8388608,
            "minimum": 1024,
            "type": "integer",
          },
          "timeout_ms": {
            "description": "Milliseconds before the command and everything it started are ended, 1000 to 300000. Default 60000.",
            "maximum": 300000,
            "minimum": 1000,
            "type": "integer",
          },
        },
        "required": [
          "command",
        ],
        "type": "object",
      }
    `);
    expect(tool.summary).toMatchInlineSnapshot(`"Run a non-interactive shell command in the workspace"`);
    expect(tool.description).toMatchInlineSnapshot(`
      "Runs a command line non-interactively with the pinned shell (/bin/sh -c by default) in the workspace.
      stdin is closed; the environment is small and clean (fixed PATH, UTF-8 locale, no HOME or credentials); only PABLO_TASK_* variables may be added.
      stdout and stderr are returned separately, ANSI escapes removed, each cut to its last lines; a non-zero exit status is an error that keeps exitCode, stdout and stderr.
      The timeout is 60000 ms unless timeout_ms asks for 1000 to 300000 ms; the command and everything it starts are ended at the timeout.
      Command rules may allow only some commands: globbing, expansions, substitutions, redirections and other dynamic shell constructs are then refused.
      A failed patch command (apply_patch, git apply, patch) may be retried once after re-reading its target; a second failure for the same file in one user prompt ends the turn."
    `);
    expect(findShell("sh")).toEqual({ id: "sh", path: "/bin/sh", dialect: "posix", args: ["-c"] });
  });

  it("tells the model where the scratch directory is, when there is one, and this deployment's timeout bounds", () => {
    const tool = createShellTool({
      workspace: "/w",
      scratchDir: "/state/scratch/s1",
      options: { deadline_ms: 120_000, default_timeout_ms: 30_000 },
    });
    expect(tool.description).toMatchInlineSnapshot(`
      "Runs a command line non-interactively with the pinned shell (/bin/sh -c by default) in the workspace.
      stdin is closed; the environment is small and clean (fixed PATH, UTF-8 locale, no HOME or credentials); only PABLO_TASK_* variables may be added.
      PABLO_SCRATCH_DIR holds the absolute path of this session's scratch directory, outside the workspace: put temporary files (one-off scripts, downloads, drafts) there rather than in the workspace.
      stdout and stderr are returned separately, ANSI escapes removed, each cut to its last lines; a non-zero exit status is an error that keeps exitCode, stdout and stderr.
      The timeout is 30000 ms unless timeout_ms asks for 1000 to 120000 ms; the command and everything it starts are ended at the timeout.
      Command rules may allow only some commands: globbing, expansions, substitutions, redirections and other dynamic shell constructs are then refused.
      A failed patch command (apply_patch, git apply, patch) may be retried once after re-reading its target; a second failure for the same file in one user prompt ends the turn."
    `);
    expect(toJsonSchema(tool.inputSchema)).toMatchObject({
      properties: { timeout_ms: { minimum: 1_000, maximum: 120_000 } },
    });
  });
});
