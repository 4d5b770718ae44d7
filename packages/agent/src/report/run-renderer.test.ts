import { describe, expect, it } from "vitest";
import type { AgentRunResult } from "../loop/events.js";
import { RunRenderer } from "./run-renderer.js";

function capture(json: boolean) {
  const out = { stdout: "", stderr: "" };
  const renderer = new RunRenderer(
    { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
    { json },
  );
  return { out, renderer };
}

const result: AgentRunResult = {
  status: "completed",
  text: "done",
  turns: 2,
  calls: [],
  denials: [
    {
      agent: "task:reader",
      callId: "c2",
      tool: "fs.write",
      code: "TOOL_DENIED",
      layer: "task.reader",
      rule: "default",
    },
  ],
  changes: [{ path: "CHANGELOG.md", reviewId: "r-1", callId: "c1", tool: "fs.edit" }],
  artifacts: [],
  committed: ["c1"],
  budgets: {
    modelCalls: 2,
    toolCalls: 2,
    elapsedMs: 1500,
    remainingMs: 3_598_500,
    events: 12,
    eventsDropped: 0,
    outputBytes: 2048,
    largestRequestBytes: 4096,
    compactions: 0,
  },
};

describe("the run renderer", () => {
  it("prefixes each line of streamed shell output and ends the model's line first", () => {
    const { out, renderer } = capture(false);
    renderer.agent({ type: "model.text", agent: "root", text: "Counting" });
    renderer.agent({
      type: "tool.progress",
      agent: "root",
      callId: "c1",
      tool: "shell.run",
      kind: "stdout",
      data: "one\ntwo",
    });
    renderer.agent({
      type: "tool.progress",
      agent: "root",
      callId: "c1",
      tool: "shell.run",
      kind: "stdout",
      data: " more\nthree\n",
    });
    expect(out.stdout).toBe("Counting\n");
    expect(out.stderr).toBe("  │ one\n  │ two more\n  │ three\n");
  });

  it("prints the summary with denials, rule IDs and review IDs", () => {
    const { out, renderer } = capture(false);
    renderer.finish(result, "anthropic:m", 0);
    expect(out.stderr).toMatchInlineSnapshot(`
      "── summary ──
      status: completed
      model: anthropic:m, 2 turns
      calls: 0 (0 ok, 0 failed, 1 denied)
      denied:
        fs.write  task.reader/default  TOOL_DENIED  (task:reader)
      changed (roll back with: pablo review rollback ID):
        CHANGELOG.md  review r-1
      budgets: 2 model calls, 2 tool calls, 2.0 KiB output, largest request 4.0 KiB, 12 events, 1.5 s elapsed, 60 min left
      "
    `);
  });

  it("scrubs secrets, raw and JSON-escaped, from every line", () => {
    const { out, renderer } = capture(true);
    renderer.addSecrets(['sk-"quoted"-secret']);
    renderer.agent({ type: "model.text", agent: "root", text: 'echo sk-"quoted"-secret' });
    renderer.note('key sk-"quoted"-secret');
    expect(out.stdout).not.toContain("quoted");
    expect(out.stdout).toContain("[REDACTED]");
  });
});
