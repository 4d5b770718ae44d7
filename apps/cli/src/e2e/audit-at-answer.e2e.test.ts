/**
 * A host that says a turn is over has written that turn's audit records: whoever reads the log on
 * the answer finds every call. The audit log is read the moment the answer arrives, never after a
 * wait; the model is a recorded one (`--model replay:FILE`), which answers without I/O, so nothing
 * gives the program's event loop a turn between the last call and the answer and the order the
 * test sees is the program's own.
 */
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { startAcp } from "./acp-harness.js";
import { freshHome, type Home, PABLO_BIN, personEnv } from "./harness.js";

/** `count` turns of two reads of notes.txt and a sentence; call IDs `t{turn}a` and `t{turn}b`. */
function twoReadsPerTurn(home: Home, count: number): string {
  const responses = Array.from({ length: count }, (_, turn) => [
    {
      toolCalls: [
        { id: `t${turn}a`, name: "fs_read", input: { path: "notes.txt" } },
        { id: `t${turn}b`, name: "fs_read", input: { path: "notes.txt" } },
      ],
    },
    { text: `Read twice (${turn}).`, finish: "stop" },
  ]).flat();
  const file = home.write("model.replay.json", JSON.stringify({ format: "pablo.replay/1", responses }));
  return `replay:${file}`;
}

/** The call IDs and decisions of the audit log, as it is on disk now. */
const recorded = (home: Home) => home.audit().map((r) => [r["callId"], r["decision"]]);

/** Runs pablo; resolves with the audit log as it was the moment stdout first satisfied `answered`. */
function recordedWhen(
  home: Home,
  args: readonly string[],
  cwd: string,
  answered: (stdout: string) => boolean,
): Promise<unknown[][]> {
  const child = spawn(process.execPath, [PABLO_BIN, ...args], {
    cwd,
    env: personEnv(home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (answered(stdout)) resolve(recorded(home));
    });
    child.on("close", (code) => reject(new Error(`no answer (exit ${code})\n${stdout}\n${stderr}`)));
  });
}

describe("the audit log holds a turn's calls when the program answers it", () => {
  it("pablo acp: on each prompt's response, prompt after prompt", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "hello\n" });
    const prompts = 20;
    const acp = await startAcp({
      args: ["--model", twoReadsPerTurn(home, prompts)],
      cwd: workspace,
      env: personEnv(home),
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const expected: string[][] = [];
    for (let turn = 0; turn < prompts; turn++) {
      const response = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: `read it (${turn})` }],
      });
      const onResponse = recorded(home);
      expect(response.stopReason).toBe("end_turn");
      expected.push([`t${turn}a`, "allow"], [`t${turn}b`, "allow"]);
      expect({ turn, onResponse }).toEqual({ turn, onResponse: expected });
    }
  });

  it("pablo run: when --json prints run.finished, run after run", async () => {
    for (let run = 0; run < 6; run++) {
      const home = freshHome();
      const workspace = home.dir("project", { "notes.txt": "hello\n" });
      const model = twoReadsPerTurn(home, 1);
      const onFinished = await recordedWhen(
        home,
        ["run", "read it", "--model", model, "--json"],
        workspace,
        (out) => out.includes('"type":"run.finished"'),
      );
      expect({ run, onFinished }).toEqual({
        run,
        onFinished: [
          ["t0a", "allow"],
          ["t0b", "allow"],
        ],
      });
    }
  });

  it("pablo mcp serve: on each tools/call result, call after call", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "hello\n" });
    const client = new Client({ name: "audit-at-answer", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [PABLO_BIN, "mcp", "serve"],
        cwd: workspace,
        env: personEnv(home),
        stderr: "ignore",
      }),
    );
    onTestFinished(() => client.close());
    for (let call = 1; call <= 20; call++) {
      const result = await client.callTool({ name: "fs_read", arguments: { path: "notes.txt" } });
      const onResult = home.audit().map((r) => r["decision"]);
      expect(result.isError ?? false).toBe(false);
      expect({ call, onResult }).toEqual({ call, onResult: Array(call).fill("allow") });
    }
  });

  it("pablo call --json: when the outcome is printed, call after call", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.txt": "hello\n" });
    for (let call = 1; call <= 6; call++) {
      const onOutcome = await recordedWhen(
        home,
        ["call", "fs.read", "--args", '{"path":"notes.txt"}', "--json"],
        workspace,
        (out) => out.includes("\n"),
      );
      expect({ call, onOutcome: onOutcome.map((r) => r[1]) }).toEqual({
        call,
        onOutcome: Array(call).fill("allow"),
      });
    }
  });
});
