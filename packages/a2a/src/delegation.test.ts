import { createAgentProvider, createModel, runAgent } from "@pablo/agent";
import { anthropicReply, type RecordedRequest, startLoopbackServer } from "@pablo/agent/testing";
import { CatalogBuilder, createKernel, MemoryAuditSink } from "@pablo/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openA2aRemotes } from "./remotes.js";
import { startAgentServer } from "./test-support/remote-server.js";
import { credentialsOf, loopbackRemote } from "./test-support/session.js";

type AgentServer = Awaited<ReturnType<typeof startAgentServer>>;
let remote: AgentServer;
beforeAll(async () => {
  remote = await startAgentServer();
});
afterAll(() => remote.close());

function toolResults(request: RecordedRequest | undefined): Map<string, string> {
  const body = (request?.body ?? {}) as {
    messages?: Array<{ content: Array<{ type: string; tool_use_id?: string; content?: unknown }> | string }>;
  };
  const out = new Map<string, string>();
  for (const message of body.messages ?? [])
    if (Array.isArray(message.content))
      for (const block of message.content)
        if (block.type === "tool_result" && block.tool_use_id)
          out.set(
            block.tool_use_id,
            typeof block.content === "string"
              ? block.content
              : (block.content as Array<{ text: string }>).map((c) => c.text).join(""),
          );
  return out;
}

describe("an agent delegates to a remote and promotes its artifact", () => {
  it("loads the deferred tool, calls it, and gets the artifact only through child_handoff", async () => {
    const turns = [
      { toolCalls: [{ id: "s1", name: "ToolSearch", input: { query: "a2a_reviewer" } }] },
      { toolCalls: [{ id: "a1", name: "a2a_reviewer", input: { message: "echo: LGTM with two nits" } }] },
      { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "r1" } }] },
      { text: "The reviewer approved." },
    ];
    const model = await startLoopbackServer((_request, index) =>
      anthropicReply(turns[index] ?? { text: "no more turns" }),
    );
    try {
      const remotes = await openA2aRemotes({
        remotes: { reviewer: loopbackRemote(remote) },
        credentials: credentialsOf({}),
      });
      const provider = createAgentProvider({ workspace: process.cwd(), handoff: true });
      const builder = new CatalogBuilder();
      expect(await builder.addProviders([...remotes.providers, provider])).toEqual([]);
      const kernel = createKernel({ audit: new MemoryAuditSink() });
      const session = kernel.openSession({
        catalog: builder.build(),
        layers: [],
        mode: "agent",
        permission: { mode: "auto" },
      });
      const created = createModel("anthropic:loopback", {
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "sk-ant-test",
      });
      if (!created.ok) throw new Error(created.message);
      const result = await runAgent({
        session,
        model: created.model,
        kernel,
        control: provider,
        prompt: "review it",
      });
      expect(result.status).toBe("completed");
      const results = toolResults(model.requests.at(-1));
      expect(results.get("a1")).not.toContain("LGTM");
      expect(JSON.parse(results.get("a1") ?? "{}")).toMatchObject({
        ok: true,
        data: { state: "completed", artifact: { retained: "r1", bytes: 18 } },
      });
      expect(JSON.parse(results.get("h1") ?? "{}")).toMatchObject({
        ok: true,
        data: { source: "a2a/reviewer", content: "LGTM with two nits", media_type: "text/markdown" },
      });
    } finally {
      await model.close();
    }
  });

  it("is refused in Plan mode before anything is sent", async () => {
    const remotes = await openA2aRemotes({
      remotes: { reviewer: loopbackRemote(remote) },
      credentials: credentialsOf({}),
    });
    const builder = new CatalogBuilder();
    await builder.addProviders([...remotes.providers]);
    const session = createKernel({}).openSession({
      catalog: builder.build(),
      layers: [],
      mode: "plan",
      permission: { mode: "auto" },
    });
    const before = remote.log.messages.length;
    const { result } = await session.call({ tool: "a2a_reviewer", args: { message: "echo: x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "DISABLED_IN_MODE" } });
    expect(remote.log.messages.length).toBe(before);
  });
});
