import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  anthropicReply,
  type LoopbackReply,
  type LoopbackServer,
  openaiReply,
  type RecordedRequest,
  type ScriptedTurn,
  startLoopbackServer,
} from "@pablo/agent/testing";
import type { PermissionBroker } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseCommand } from "../args.js";
import { openTask } from "../distribution.js";
import { captureIo, useSandbox } from "../test-support/cli-harness.js";
import { createRunSink, runCommand } from "./run.js";

type Sandbox = ReturnType<typeof useSandbox>;
type Step = ScriptedTurn | LoopbackReply | ((request: RecordedRequest) => ScriptedTurn | LoopbackReply);

/** A deployment for these runs: automatic approvals unless told, two allowed commands; no content capture. */
function deployment(sandbox: Sandbox, permission = 'mode = "auto"'): string {
  return sandbox.write(
    "deployment.toml",
    [
      "[options.permission]",
      permission,
      "[options.fs]",
      'revisions = "explicit"',
      "[options.shell]",
      "enabled = true",
      "[options.shell.commands]",
      "allow = [",
      '  { id = "test.wc", executable = "/usr/bin/wc", args = [], match = "prefix" },',
      '  { id = "test.sleep", executable = "/usr/bin/sleep", args = [], match = "prefix" },',
      "]",
      "",
    ].join("\n"),
  );
}

async function provider(
  kind: "anthropic" | "openai-compatible",
  steps: Step[],
): Promise<{ server: LoopbackServer; env: Record<string, string> }> {
  const server = await startLoopbackServer((request, index) => {
    const step = steps[index];
    if (!step)
      return {
        kind: "http",
        status: 400,
        body: JSON.stringify({ error: { message: `no step ${index + 1}` } }),
      };
    const resolved = typeof step === "function" ? step(request) : step;
    if ("kind" in resolved) return resolved;
    return kind === "anthropic" ? anthropicReply(resolved) : openaiReply(resolved);
  });
  onTestFinished(() => server.close());
  const env: Record<string, string> =
    kind === "anthropic"
      ? { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-run-test-key" }
      : { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-openai-run-test-key" };
  return { server, env };
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `pablo run ARGS` in-process: openTask with the run's sink, then runCommand. */
async function pabloRun(
  sandbox: Sandbox,
  argv: string[],
  options: { env?: Record<string, string>; broker?: PermissionBroker; signal?: AbortSignal } = {},
): Promise<Run> {
  const parsed = parseCommand(argv, { model: { type: "string" }, record: { type: "string" } });
  const { io, output } = captureIo(sandbox, {
    ...(options.env ? { env: options.env } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const sink = createRunSink(io, { json: parsed.global.json });
  const task = await openTask(parsed.global, {
    cwd: io.cwd,
    env: io.env,
    events: sink,
    ...(options.broker ? { broker: options.broker } : {}),
  });
  try {
    const code = await runCommand(io, task, {
      prompt: parsed.positionals.join(" "),
      model: parsed.values["model"] as string | undefined,
      json: parsed.global.json,
      sink,
      ...(parsed.values["record"] ? { record: parsed.values["record"] as string } : {}),
    });
    return { code, ...output() };
  } finally {
    await task.close();
  }
}

/** The tool results an Anthropic request carries, parsed. */
function toolResult(
  request: RecordedRequest,
  id: string,
): { ok: boolean; data?: Record<string, unknown>; error?: { code: string } } {
  const messages = (request.body as { messages: Array<{ content: unknown }> }).messages;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block["type"] === "tool_result" && block["tool_use_id"] === id) {
        const content = block["content"];
        const text =
          typeof content === "string"
            ? content
            : (content as Array<{ text: string }>).map((c) => c.text).join("");
        return JSON.parse(text);
      }
    }
  }
  throw new Error(`no tool result ${id}`);
}

/** Processes whose command line contains `needle`. */
function processesWith(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmdline.includes(needle)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

describe("pablo run", () => {
  it("runs a multi-turn task: reads, edits at revisions (a stale one refused), runs an allowed command", async () => {
    const sandbox = useSandbox({
      "CHANGELOG.md": "# Changelog\n\n## Unreleased\n",
      "release-notes.md": "- Added replay models\n",
    });
    const config = deployment(sandbox);
    const { server, env } = await provider("anthropic", [
      {
        text: "I'll read both files.",
        toolCalls: [
          { id: "r1", name: "fs_read", input: { path: "CHANGELOG.md" } },
          { id: "r2", name: "fs_read", input: { path: "release-notes.md" } },
        ],
      },
      {
        toolCalls: [
          {
            id: "e1",
            name: "fs_edit",
            input: {
              path: "CHANGELOG.md",
              old_string: "## Unreleased\n",
              new_string: "## Unreleased\n\n- Added replay models\n",
              expected_revision: "0".repeat(64),
            },
          },
        ],
      },
      (request) => {
        const revision = toolResult(request, "r1").data?.["revision"];
        return {
          toolCalls: [
            {
              id: "e2",
              name: "fs_edit",
              input: {
                path: "CHANGELOG.md",
                old_string: "## Unreleased\n",
                new_string: "## Unreleased\n\n- Added replay models\n",
                expected_revision: revision,
              },
            },
          ],
        };
      },
      { toolCalls: [{ id: "s1", name: "shell_run", input: { command: "wc -l CHANGELOG.md" } }] },
      { text: "CHANGELOG.md now lists the replay models." },
    ]);
    const run = await pabloRun(
      sandbox,
      [
        "Update CHANGELOG.md from the release notes.",
        "--allow-write",
        "--config",
        config,
        "--model",
        "anthropic:claude-loopback",
      ],
      { env },
    );
    expect(run.code).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "CHANGELOG.md"), "utf8")).toBe(
      "# Changelog\n\n## Unreleased\n\n- Added replay models\n",
    );
    expect(toolResult(server.requests[2] as RecordedRequest, "e1")).toMatchObject({
      ok: false,
      error: { code: "REVISION_CONFLICT" },
    });
    expect(toolResult(server.requests[4] as RecordedRequest, "s1")).toMatchObject({ ok: true });
    expect(run.stdout).toContain("I'll read both files.");
    expect(run.stdout).toContain("CHANGELOG.md now lists the replay models.");
    expect(run.stderr).toMatch(/▸ fs\.edit\n {2}✗ REVISION_CONFLICT · \d+ ms\n/);
    expect(run.stderr).toMatch(/▸ fs\.edit\n {2}✓ \d+ ms · review \S+\n/);
    expect(run.stderr).toMatch(
      /▸ shell\.run\n {2}│ 5 CHANGELOG\.md\n {2}✓ \d+ ms · allowed by deployment\.shell\/test\.wc\n/,
    );
    expect(run.stderr.match(/model warning/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(run.stderr).toContain("status: completed");
    expect(run.stderr).toMatch(
      /changed \(roll back with: pablo review rollback ID\):\n {2}CHANGELOG\.md {2}review \S+/,
    );
    expect(run.stderr).toMatch(/budgets: 5 model calls, 5 tool calls/);
    expect(`${run.stdout}${run.stderr}`).not.toContain("sk-ant-run-test-key");
  });

  it("denies a write in Plan mode with the mode's rule, before any prompt", async () => {
    const sandbox = useSandbox();
    const config = deployment(sandbox, 'mode = "ask"');
    const { server, env } = await provider("openai-compatible", [
      {
        toolCalls: [
          { id: "w1", name: "fs_write", input: { path: "PLAN.md", content: "x", expected_revision: null } },
        ],
      },
      { text: "Writes are not available in Plan mode." },
    ]);
    const run = await pabloRun(
      sandbox,
      [
        "Write PLAN.md",
        "--mode",
        "plan",
        "--allow-write",
        "--config",
        config,
        "--model",
        "openai-compatible:loopback",
      ],
      { env },
    );
    expect(run.code).toBe(0);
    const body = server.requests[0]?.body as { tools?: Array<{ function: { name: string } }> } | undefined;
    const offered = (body?.tools ?? []).map((t) => t.function.name);
    expect(offered).not.toContain("fs_write");
    expect(run.stderr).toContain("✗ denied by mode/mode.plan.write · DISABLED_IN_MODE");
    expect(run.stderr).toMatch(/denied:\n {2}fs\.write {2}mode\/mode\.plan\.write {2}DISABLED_IN_MODE/);
    expect(existsSync(join(sandbox.workspace, "PLAN.md"))).toBe(false);
  });

  it("denies a call whose permission request is not answered in time", async () => {
    const sandbox = useSandbox({ "a.txt": "a\n" });
    const config = deployment(sandbox, 'mode = "ask"\ntimeout_ms = 300');
    let asked = 0;
    const broker: PermissionBroker = {
      request: (_request, signal) =>
        new Promise((resolve) => {
          asked++;
          signal.addEventListener("abort", () => resolve("deny"), { once: true });
        }),
    };
    const { env } = await provider("anthropic", [
      { toolCalls: [{ id: "s1", name: "shell_run", input: { command: "wc -l a.txt" } }] },
      { text: "The command was not approved." },
    ]);
    const run = await pabloRun(sandbox, ["Count lines", "--config", config, "--model", "anthropic:m"], {
      env,
      broker,
    });
    expect(asked).toBe(1);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /✗ denied by permission\/permission\.ask\.high, asked 0\.[34] s · TOOL_DENIED/,
    );
    expect(run.stderr).toMatch(/denied:\n {2}shell\.run {2}permission\/permission\.ask\.high {2}TOOL_DENIED/);
  });

  it("stops on cancellation mid-command, leaving no process, and reports what committed", async () => {
    const sandbox = useSandbox({ "a.txt": "a\n" });
    const config = deployment(sandbox);
    const { env } = await provider("anthropic", [
      { toolCalls: [{ id: "s1", name: "shell_run", input: { command: "sleep 37.421" } }] },
      { text: "never reached" },
    ]);
    const controller = new AbortController();
    const running = pabloRun(sandbox, ["Wait", "--config", config, "--model", "anthropic:m"], {
      env,
      signal: controller.signal,
    });
    const deadline = Date.now() + 15_000;
    while (processesWith("37.421").length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(processesWith("37.421").length).toBeGreaterThan(0);
    controller.abort();
    const run = await running;
    expect(run.code).toBe(130);
    expect(processesWith("37.421")).toEqual([]);
    // The shell in the command's PID namespace may report the signal that ended it ("Terminated").
    expect(run.stderr).toMatch(/▸ shell\.run\n(?: {2}│ .*\n)* {2}✗ TOOL_CANCELLED · [\d.]+ m?s/);
    expect(run.stderr).toContain("status: cancelled");
    expect(run.stderr).toContain("committed before the stop: nothing");
  });

  it("writes JSON Lines with --json, and a recorded transcript replays the same run", async () => {
    const sandbox = useSandbox({ "a.txt": "alpha\n" });
    const config = deployment(sandbox);
    const { env } = await provider("anthropic", [
      { text: "Reading a.txt.", toolCalls: [{ id: "r1", name: "fs_read", input: { path: "a.txt" } }] },
      { text: "a.txt says alpha." },
    ]);
    const transcript = join(sandbox.root, "run.replay.json");
    const live = await pabloRun(
      sandbox,
      ["Read a.txt", "--config", config, "--model", "anthropic:m", "--record", transcript],
      { env },
    );
    expect(live.code).toBe(0);
    expect(JSON.parse(readFileSync(transcript, "utf8"))).toMatchObject({
      format: "pablo.replay/1",
      responses: [{ toolCalls: [{ name: "fs_read" }] }, { text: "a.txt says alpha." }],
    });

    const replayed = await pabloRun(sandbox, [
      "Read a.txt",
      "--json",
      "--config",
      config,
      "--model",
      `replay:${transcript}`,
    ]);
    expect(replayed.code).toBe(0);
    const lines = replayed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ source: "run", type: "run.note", model: `replay:${transcript}` });
    expect(lines).toContainEqual(
      expect.objectContaining({
        source: "agent",
        type: "tool.result",
        tool: "fs.read",
        ok: true,
        decision: "allow",
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ source: "kernel", type: "tool.finished", tool: "fs.read", ok: true }),
    );
    expect(lines.at(-1)).toMatchObject({
      source: "run",
      type: "run.finished",
      exitCode: 0,
      status: "completed",
      text: "a.txt says alpha.",
    });
    expect(replayed.stderr).toBe("");
  });

  it("exits 2 without a usable model and 1 when the provider fails", async () => {
    const sandbox = useSandbox();
    const config = deployment(sandbox);
    expect((await pabloRun(sandbox, ["x", "--config", config])).code).toBe(2);
    const noKey = await pabloRun(sandbox, ["x", "--config", config, "--model", "anthropic:m"]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("ANTHROPIC_API_KEY");
    const { env } = await provider("anthropic", [
      {
        kind: "http",
        status: 400,
        body: JSON.stringify({
          type: "error",
          error: { type: "invalid_request_error", message: "bad model" },
        }),
      },
    ]);
    const failed = await pabloRun(sandbox, ["x", "--config", config, "--model", "anthropic:m"], { env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/status: model-error \(MODEL_HTTP_ERROR: HTTP 400: bad model\)/);
  });
});
