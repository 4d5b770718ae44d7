import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgent } from "../loop/agent.js";
import { harness } from "../test-support/harness.js";
import { scripted } from "../test-support/providers.js";
import { useWorkspace } from "../test-support/workspace.js";
import { createModel } from "./create-model.js";
import { recordingModel } from "./recording-model.js";
import { REPLAY_FORMAT } from "./replay-format.js";
import { parseReplay, replayModel } from "./replay-model.js";

describe("replay transcripts", () => {
  it("play a recorded run back with the same calls and answer", async () => {
    const workspace = useWorkspace();
    writeFileSync(join(workspace, "a.txt"), "alpha\n");
    const { model: live } = await scripted("anthropic", [
      { text: "Reading.", toolCalls: [{ id: "c1", name: "fs_read", input: { path: "a.txt" } }] },
      { text: "a.txt says alpha." },
    ]);
    const recorder = recordingModel(live);
    const first = await harness({ workspace });
    const recorded = await runAgent({
      session: first.session,
      model: recorder,
      prompt: "Read a.txt",
      control: first.provider,
    });
    const transcript = recorder.transcript();
    expect(transcript).toEqual({
      format: REPLAY_FORMAT,
      model: "anthropic:loopback",
      responses: [
        {
          text: "Reading.",
          toolCalls: [{ id: "c1", name: "fs_read", input: { path: "a.txt" } }],
          finish: "tool-calls",
        },
        { text: "a.txt says alpha.", finish: "stop" },
      ],
    });
    const file = join(workspace, "run.replay.json");
    writeFileSync(file, JSON.stringify(transcript, null, 2));
    const created = createModel(`replay:${file}`, {});
    if (!created.ok) throw new Error(created.message);
    const second = await harness({ workspace });
    const replayed = await runAgent({
      session: second.session,
      model: created.model,
      prompt: "Read a.txt",
      control: second.provider,
    });
    expect(replayed.text).toBe(recorded.text);
    expect(replayed.calls.map((c) => [c.callId, c.tool, c.ok])).toEqual(
      recorded.calls.map((c) => [c.callId, c.tool, c.ok]),
    );
  });

  it("stop a run that asks for more than was recorded", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const model = replayModel({
      format: REPLAY_FORMAT,
      responses: [{ toolCalls: [{ name: "fs_glob", input: { pattern: "*" } }] }],
    });
    const result = await runAgent({ session: h.session, model, prompt: "x", control: h.provider });
    expect(result.status).toBe("model-error");
    expect(result.reason).toBe("REPLAY_MISMATCH: the transcript has no response 2 for root");
    expect(result.calls[0]).toMatchObject({ callId: "replay_root_1_1", tool: "fs.glob", ok: true });
  });

  it("replay raw argument text, finish reasons and provider errors", async () => {
    const h = await harness({ workspace: useWorkspace() });
    const model = replayModel({
      format: REPLAY_FORMAT,
      responses: [
        { toolCalls: [{ id: "bad", name: "fs_glob", input: '{"pattern": ' }] },
        { error: { code: "MODEL_HTTP_ERROR", message: "HTTP 529: Overloaded", status: 529 } },
      ],
    });
    const result = await runAgent({ session: h.session, model, prompt: "x", control: h.provider });
    expect(result.calls[0]).toMatchObject({ callId: "bad", ok: false, code: "INVALID_ARGUMENT" });
    expect(result.status).toBe("model-error");
    expect(result.reason).toBe("MODEL_HTTP_ERROR: HTTP 529: Overloaded");
  });

  it("are validated against the format, naming the first problem", () => {
    expect(parseReplay("{")).toMatchObject({ ok: false, error: expect.stringMatching(/^not JSON/) });
    expect(
      parseReplay(JSON.stringify({ format: "pablo.replay/1", responses: [{ txt: "typo" }] })),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining("/responses/0"),
    });
    expect(parseReplay(JSON.stringify({ format: "other", responses: [] }))).toMatchObject({ ok: false });
    expect(createModel("replay:/nonexistent/file.json", {})).toMatchObject({ ok: false, code: "MODEL_SPEC" });
  });
});
