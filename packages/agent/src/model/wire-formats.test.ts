import { afterEach, describe, expect, it } from "vitest";
import { bodyOf } from "../test-support/requests.js";
import { anthropicEvent, anthropicFrames, anthropicRateLimited } from "../testing/anthropic-wire.js";
import { type LoopbackReply, type LoopbackServer, startLoopbackServer } from "../testing/loopback-server.js";
import { openaiFrames, openaiRateLimited } from "../testing/openai-wire.js";
import { createModel } from "./create-model.js";
import type { Model, ModelEvent, ModelRequest } from "./types.js";

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Provider = "anthropic" | "openai-compatible";

async function serve(provider: Provider, replies: LoopbackReply[]) {
  const server = await startLoopbackServer(
    (_request, index) => replies[Math.min(index, replies.length - 1)] as LoopbackReply,
  );
  servers.push(server);
  const env =
    provider === "anthropic"
      ? { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-loopback-secret" }
      : { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-openai-loopback-secret" };
  const created = createModel(`${provider}:loopback-model`, env, undefined, {
    retry: { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 5000 },
  });
  if (!created.ok) throw new Error(created.message);
  return { server, model: created.model };
}

const request: ModelRequest = {
  agent: "root",
  system: "You are a test.",
  messages: [{ role: "user", content: "Read a.txt" }],
  tools: [
    {
      name: "fs_read",
      description: "Read a file",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
        additionalProperties: false,
      },
    },
  ],
  deadline: Date.now() + 60_000,
};

async function collect(model: Model): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of model.stream(request, new AbortController().signal)) events.push(event);
  return events;
}

const text = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
const last = (events: ModelEvent[]) => events[events.length - 1];

describe.each<Provider>(["anthropic", "openai-compatible"])("%s wire format", (provider) => {
  const frames = provider === "anthropic" ? anthropicFrames : openaiFrames;

  it("streams text in pieces and reports a tool call with its raw argument text", async () => {
    const { server, model } = await serve(provider, [
      {
        kind: "sse",
        frames: frames({
          text: "Let me read it.",
          toolCalls: [{ id: "call_a", name: "fs_read", input: { path: "a.txt" } }],
          chunk: 4,
        }),
      },
    ]);
    const events = await collect(model);
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    expect(text(events)).toBe("Let me read it.");
    expect(events.filter((e) => e.type === "tool-call")).toEqual([
      { type: "tool-call", call: { id: "call_a", name: "fs_read", input: '{"path":"a.txt"}' } },
    ]);
    expect(last(events)).toMatchObject({ type: "finish", reason: "tool-calls" });
    const sent = server.requests[0];
    expect(sent?.path).toBe(provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions");
    expect(bodyOf(sent)["stream"]).toBe(true);
    if (provider === "anthropic") {
      expect(sent?.headers["x-api-key"]).toBe("sk-ant-loopback-secret");
      expect(bodyOf(sent)["tools"]).toMatchObject([
        { name: "fs_read", description: "Read a file", input_schema: request.tools[0]?.inputSchema },
      ]);
    } else {
      expect(sent?.headers["authorization"]).toBe("Bearer sk-openai-loopback-secret");
      expect(bodyOf(sent)["tools"]).toMatchObject([{ type: "function", function: { name: "fs_read" } }]);
    }
  });

  it("passes invalid argument JSON through as raw text for the kernel to reject", async () => {
    const { model } = await serve(provider, [
      { kind: "sse", frames: frames({ toolCalls: [{ id: "call_b", name: "fs_read", input: '{"path": ' }] }) },
    ]);
    const events = await collect(model);
    expect(events.find((e) => e.type === "tool-call")).toEqual({
      type: "tool-call",
      call: { id: "call_b", name: "fs_read", input: '{"path": ' },
    });
  });

  it("reports a refusal as its own finish reason", async () => {
    const { model } = await serve(provider, [
      { kind: "sse", frames: frames({ text: "I won't do that.", stop: "refusal" }) },
    ]);
    expect(last(await collect(model))).toMatchObject({ type: "finish", reason: "refusal" });
  });

  it("reports a stream with a line that is not JSON as malformed", async () => {
    const good = frames({ text: "Hello there" });
    const bad =
      provider === "anthropic" ? "event: content_block_delta\ndata: {not json\n\n" : "data: {not json\n\n";
    const { model } = await serve(provider, [
      { kind: "sse", frames: [...good.slice(0, 3), bad, ...good.slice(3)] },
    ]);
    const events = await collect(model);
    expect(last(events)).toMatchObject({ type: "error", code: "MODEL_STREAM_MALFORMED" });
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });

  it("reports a connection cut mid-stream as incomplete", async () => {
    const all = frames({ text: "This answer will be cut off somewhere in the middle.", chunk: 5 });
    const { model } = await serve(provider, [{ kind: "sse", frames: all, truncate: 6, delayMs: 5 }]);
    const events = await collect(model);
    expect(last(events)).toMatchObject({ type: "error", code: "MODEL_STREAM_INCOMPLETE" });
  });

  it("reports a stream that ends cleanly before the provider's end as incomplete", async () => {
    const all = frames({ text: "Cut short before the end event." });
    const { model } = await serve(provider, [{ kind: "sse", frames: all.slice(0, 4) }]);
    const events = await collect(model);
    expect(last(events)).toMatchObject(
      provider === "anthropic"
        ? { type: "finish", reason: "incomplete" }
        : { type: "error", code: "MODEL_STREAM_INCOMPLETE" },
    );
  });

  it("waits what retry-after asks on a 429, then succeeds", async () => {
    const limited = provider === "anthropic" ? anthropicRateLimited(1) : openaiRateLimited(1);
    const { server, model } = await serve(provider, [
      limited,
      { kind: "sse", frames: frames({ text: "Done." }) },
    ]);
    const started = Date.now();
    const events = await collect(model);
    const elapsed = Date.now() - started;
    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, delayMs: 1000, status: 429 });
    expect(text(events)).toBe("Done.");
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it("gives up on a 429 after the retry budget and names the status", async () => {
    const limited = provider === "anthropic" ? anthropicRateLimited(0) : openaiRateLimited(0);
    const { server, model } = await serve(provider, [limited]);
    const events = await collect(model);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(last(events)).toMatchObject({ type: "error", code: "MODEL_HTTP_ERROR", status: 429 });
    expect(server.requests).toHaveLength(3);
  });
});

describe("provider error events and non-retryable statuses", () => {
  it("reports an Anthropic error event inside the stream without retrying", async () => {
    const good = anthropicFrames({ text: "Hi" });
    const overloaded = anthropicEvent("error", {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    const { server, model } = await serve("anthropic", [
      { kind: "sse", frames: [...good.slice(0, 3), overloaded] },
    ]);
    const events = await collect(model);
    expect(last(events)).toMatchObject({ type: "error", code: "MODEL_STREAM_MALFORMED" });
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 400 and never puts the key in what it reports", async () => {
    const { server, model } = await serve("anthropic", [
      {
        kind: "http",
        status: 400,
        body: JSON.stringify({
          type: "error",
          error: { type: "invalid_request_error", message: "bad request" },
        }),
      },
    ]);
    const events = await collect(model);
    expect(last(events)).toMatchObject({ type: "error", code: "MODEL_HTTP_ERROR", status: 400 });
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain("sk-ant-loopback-secret");
    expect(model.id).toBe("anthropic:loopback-model");
  });
});
