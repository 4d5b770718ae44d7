import { describe, expect, it } from "vitest";
import { harness } from "../test-support/harness.js";
import { scripted } from "../test-support/providers.js";
import { anthropicSystem, anthropicToolResults, toolNames } from "../test-support/requests.js";
import { useWorkspace } from "../test-support/workspace.js";
import { Agent } from "./agent.js";

describe("deferred tools and ToolSearch", () => {
  it("load for the next turn of the prompt that searched, and reset at the next prompt", async () => {
    const h = await harness({ workspace: useWorkspace(), deferGlob: true });
    const { server, model } = await scripted("anthropic", [
      {
        toolCalls: [
          { id: "g0", name: "fs_glob", input: { pattern: "*.md" } },
          { id: "s1", name: "ToolSearch", input: { query: "fs_glob" } },
        ],
      },
      { toolCalls: [{ id: "g1", name: "fs_glob", input: { pattern: "*.md" } }] },
      { text: "Found them." },
      { text: "Second prompt done." },
    ]);
    const agent = new Agent({ session: h.session, model, control: h.provider, kernel: h.kernel });
    const first = await agent.prompt("Find the Markdown files");
    expect(first.status).toBe("completed");

    expect(toolNames(server.requests[0])).not.toContain("fs_glob");
    expect(toolNames(server.requests[0])).toContain("ToolSearch");
    expect(anthropicSystem(server.requests[0])).toContain("# On-demand tools");
    expect(anthropicSystem(server.requests[0])).toContain("- fs_glob: List files matching a glob pattern");
    const firstResults = anthropicToolResults(server.requests[1]);
    expect(JSON.parse(firstResults.get("g0")?.content ?? "{}")).toMatchObject({
      ok: false,
      error: { code: "TOOL_NOT_LOADED" },
    });
    expect(JSON.parse(firstResults.get("s1")?.content ?? "{}")).toMatchObject({
      ok: true,
      data: { loaded: [{ name: "fs_glob" }] },
    });

    expect(toolNames(server.requests[1])).toContain("fs_glob");
    expect(anthropicSystem(server.requests[1])).not.toContain("- fs_glob:");
    expect(JSON.parse(anthropicToolResults(server.requests[2]).get("g1")?.content ?? "{}")).toMatchObject({
      ok: true,
    });

    const second = await agent.prompt("Now something else");
    expect(second.status).toBe("completed");
    expect(toolNames(server.requests[3])).not.toContain("fs_glob");
    expect(anthropicSystem(server.requests[3])).toContain("- fs_glob:");
    // Loading changed no permission: the audit shows ordinary decisions for the loaded tool.
    expect(h.audit.records.find((r) => r.callId === "g1")).toMatchObject({
      decision: "allow",
      tool: "fs.glob",
    });
    expect(h.audit.records.find((r) => r.callId === "s1")?.notes).toMatchObject({ loaded: ["fs_glob"] });
  });

  it("are offered directly when the catalog has no ToolSearch", async () => {
    const h = await harness({ workspace: useWorkspace(), deferGlob: true, toolSearch: false });
    const { server, model } = await scripted("anthropic", [{ text: "ok" }]);
    await new Agent({ session: h.session, model, control: h.provider }).prompt("x");
    expect(toolNames(server.requests[0])).toContain("fs_glob");
    expect(anthropicSystem(server.requests[0])).not.toContain("On-demand");
  });
});
