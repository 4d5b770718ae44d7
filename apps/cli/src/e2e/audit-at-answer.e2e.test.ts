/**
 * A host that says a turn is over has written that turn's audit records: whoever reads the log on
 * the answer finds every call. The audit log is read the moment the answer arrives, never after a
 * wait; the model is a recorded one (`--model replay:FILE`), which answers without I/O, so nothing
 * gives the program's event loop a turn between the last call and the answer and the order the
 * test sees is the program's own.
 */
import { describe, expect, it } from "vitest";
import { startAcp } from "./acp-harness.js";
import { freshHome, type Home, personEnv } from "./harness.js";

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
});
