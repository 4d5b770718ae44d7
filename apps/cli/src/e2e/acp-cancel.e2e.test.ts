import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { type AcpProcess, startAcp } from "./acp-harness.js";
import { freshHome, type Home, loopbackModel, personEnv, processesWith } from "./harness.js";

/** Asks before writes and commands; the shell may run sleep. */
function deployment(home: Home): string {
  return home.write(
    "pablo/deployment.toml",
    [
      "[options.permission]",
      'mode = "ask"',
      "[options.shell]",
      "enabled = true",
      "[options.shell.commands]",
      'allow = [{ id = "e2e.sleep", executable = "/usr/bin/sleep", args = [], match = "prefix" }]',
      "",
    ].join("\n"),
  );
}

/** A model response that never starts until the test ends: the turn waits for its first token. */
function stalled(): { kind: "sse"; frames: string[]; hold: Promise<void> } {
  let release = () => {};
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  onTestFinished(() => release());
  return { kind: "sse", frames: [], hold };
}

async function open(home: Home, steps: Parameters<typeof loopbackModel>[0], args: string[] = []) {
  const workspace = home.dir("project");
  const model = await loopbackModel(steps);
  const acp = await startAcp({
    args: ["--config", deployment(home), "--allow-write", "--model", "anthropic:claude-e2e", ...args],
    cwd: workspace,
    env: personEnv(home, model.env),
  });
  const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  return { workspace, model, acp, sessionId };
}

const prompt = (acp: AcpProcess, sessionId: string, text = "go") =>
  acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
const cancel = (acp: AcpProcess, sessionId: string) => acp.agent.notify("session/cancel", { sessionId });

describe("session/cancel ends the turn with stop reason cancelled, once, without a hang", () => {
  it("before the first token: the model is still silent", async () => {
    const home = freshHome();
    const { model, acp, sessionId } = await open(home, [stalled(), { text: "Later prompt." }]);
    const turn = prompt(acp, sessionId);
    await expect.poll(() => model.server.requests.length).toBe(1);
    await cancel(acp, sessionId);
    expect(await turn).toEqual({ stopReason: "cancelled" });
    // The session is still usable: the next prompt runs to its own single stop reason.
    expect((await prompt(acp, sessionId, "again")).stopReason).toBe("end_turn");
  });

  it("right after the prompt, before anything happened", async () => {
    const home = freshHome();
    const { model, acp, sessionId } = await open(home, [{ text: "Only the second prompt reads this." }]);
    const turn = prompt(acp, sessionId);
    await cancel(acp, sessionId);
    expect(await turn).toEqual({ stopReason: "cancelled" });
    // The cancel covered the prompt before it reached the model; the next prompt is the first to.
    expect((await prompt(acp, sessionId, "again")).stopReason).toBe("end_turn");
    expect(model.server.requests).toHaveLength(1);
  });

  it("during a tool: the running command's process is gone when the turn answers", async () => {
    const home = freshHome();
    const marker = `${20 + Math.floor(Math.random() * 1000)}.5`;
    const { acp, sessionId } = await open(
      home,
      [{ toolCalls: [{ id: "s1", name: "shell_run", input: { command: `sleep ${marker}` } }] }],
      ["--permission", "auto"],
    );
    const turn = prompt(acp, sessionId);
    await expect.poll(() => processesWith(`sleep ${marker}`).length, { timeout: 15_000 }).toBeGreaterThan(0);
    await cancel(acp, sessionId);
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
    expect(acp.updates.map((u) => u.update)).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "s1", status: "failed" }),
    );
  });

  it("during a permission card: the card is withdrawn and nothing runs", async () => {
    const home = freshHome();
    const { workspace, acp, sessionId } = await open(home, [
      {
        toolCalls: [
          { id: "w1", name: "fs_write", input: { path: "never.txt", content: "x", expected_revision: null } },
        ],
      },
    ]);
    const turn = prompt(acp, sessionId);
    await expect.poll(() => acp.cards.length, { timeout: 15_000 }).toBe(1);
    await cancel(acp, sessionId);
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(acp.withdrawn).toEqual(["w1"]);
    expect(existsSync(join(workspace, "never.txt"))).toBe(false);
  });
});

describe("no process is left behind", () => {
  it("exits 0 when the editor closes stdin while idle", async () => {
    const home = freshHome();
    const { acp } = await open(home, []);
    acp.child.stdin.end();
    expect(await acp.exited).toBe(0);
    expect(acp.stderr()).toBe("");
  });

  for (const how of ["closes stdin", "is killed", "sends SIGTERM"] as const) {
    it(`stops a running command and exits when the editor ${how} mid-turn`, async () => {
      const home = freshHome();
      const marker = `${1000 + Math.floor(Math.random() * 1000)}.5`;
      const { acp, sessionId } = await open(
        home,
        [{ toolCalls: [{ id: "s1", name: "shell_run", input: { command: `sleep ${marker}` } }] }],
        ["--permission", "auto"],
      );
      void prompt(acp, sessionId).catch(() => undefined);
      await expect
        .poll(() => processesWith(`sleep ${marker}`).length, { timeout: 15_000 })
        .toBeGreaterThan(0);
      if (how === "closes stdin") acp.child.stdin.end();
      else if (how === "sends SIGTERM") acp.child.kill("SIGTERM");
      else {
        // What a killed editor leaves: both pipes gone at once, no goodbye.
        acp.child.stdin.destroy();
        acp.child.stdout.destroy();
      }
      expect(await acp.exited).toBe(how === "sends SIGTERM" ? 130 : 0);
      expect(processesWith(`sleep ${marker}`)).toEqual([]);
    });
  }
});
