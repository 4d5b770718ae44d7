import { createCatalog, createKernel, defineLayer, MemoryAuditSink } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { createToolSearch, type ToolSearchOptions } from "./index.js";
import { sampleTools } from "./test-support/tools.js";

function setup(options: ToolSearchOptions = {}, mode: "agent" | "plan" = "agent") {
  const search = createToolSearch(options);
  const catalog = createCatalog([...sampleTools(), search.tool]);
  const audit = new MemoryAuditSink();
  const policy = defineLayer({
    id: "deployment",
    tool: { deny: [{ id: "no-secrets", match: "secrets.*" }] },
  });
  const session = createKernel({ audit }).openSession({
    catalog,
    layers: [policy],
    mode,
    permission: { mode: "auto" },
  });
  search.attach(session);
  const names = () => search.toolsForTurn(session).map((e) => e.providerName);
  return { search, session, audit, names };
}

describe("ToolSearch", () => {
  it("is a low-risk control tool with no effects, visible in every mode", () => {
    const { search, session } = setup({}, "plan");
    expect(search.tool).toMatchObject({
      providerName: "ToolSearch",
      category: "control",
      risk: "low",
      effects: [],
    });
    expect(session.visibleTools().map((e) => e.providerName)).toContain("ToolSearch");
  });

  it("lists visible deferred tools in the on-demand catalog and sends only always-on tools at first", () => {
    const { search, session, names } = setup();
    expect(names()).toEqual(["fs_read", "ToolSearch"]);
    expect(
      search
        .catalogText(session)
        .split("\n")
        .filter((l) => l.startsWith("- ")),
    ).toEqual([
      "- fs_glob: List files by pattern",
      "- fs_grep: Search file contents",
      "- plugin_tracker_issue_create: Open a new issue in the tracker",
      "- plugin_tracker_issue_close: Close an issue",
      "- plugin_web_fetch: Fetch a web page",
    ]);
  });

  it("loads matches for the next turn, records them in the audit, and resets at a new prompt", async () => {
    const { search, session, audit, names } = setup();
    expect(names()).toEqual(["fs_read", "ToolSearch"]);
    const { result } = await session.call({
      tool: "ToolSearch",
      args: { query: "open a new bug ticket", limit: 1 },
    });
    expect(result).toEqual({
      ok: true,
      data: {
        loaded: [{ name: "plugin_tracker_issue_create", summary: "Open a new issue in the tracker" }],
        note: "These tools can be called from your next turn.",
      },
    });
    expect(audit.records.at(-1)?.notes).toEqual({ loaded: ["plugin_tracker_issue_create"], matches: 1 });
    // The same turn's tool list does not change; the next turn's does.
    expect(search.catalogText(session)).toContain("plugin_tracker_issue_create");
    expect(names()).toEqual(["plugin_tracker_issue_create", "fs_read", "ToolSearch"]);
    expect(search.catalogText(session)).not.toContain("plugin_tracker_issue_create");
    expect(names()).toEqual(["plugin_tracker_issue_create", "fs_read", "ToolSearch"]);

    session.beginPrompt();
    expect(names()).toEqual(["fs_read", "ToolSearch"]);
    expect(search.catalogText(session)).toContain("plugin_tracker_issue_create");
  });

  it("loads exact names, several at once", async () => {
    const { session, names } = setup();
    const { result } = await session.call({
      tool: "ToolSearch",
      args: { query: "select:fs_glob, plugin.web.fetch" },
    });
    expect(result).toMatchObject({
      ok: true,
      data: { loaded: [{ name: "fs_glob" }, { name: "plugin_web_fetch" }] },
    });
    expect(names()).toEqual(["fs_glob", "plugin_web_fetch", "fs_read", "ToolSearch"]);
  });

  it("never lists, finds or loads a tool that policy denies", async () => {
    const { search, session, names, audit } = setup();
    expect(search.catalogText(session)).not.toContain("secrets");
    const { result } = await session.call({
      tool: "ToolSearch",
      args: { query: "dump every stored secret from the vault" },
    });
    expect(JSON.stringify(result)).not.toContain("secrets");
    expect(audit.records.flatMap((r) => r.notes?.["loaded"] ?? [])).not.toContain("secrets_dump");
    expect(names()).not.toContain("secrets_dump");
  });

  it("answers an exact name that policy excludes with its rule, and loads nothing in its place", async () => {
    for (const query of ["secrets_dump", "secrets.dump", "select:secrets_dump", "SECRETS_DUMP"]) {
      const { session, names, audit } = setup();
      const { result } = await session.call({ tool: "ToolSearch", args: { query } });
      expect(result).toEqual({
        ok: true,
        data: {
          loaded: [],
          unavailable: [
            { name: query.replace("select:", ""), reason: "not available: deployment/no-secrets" },
          ],
          note: "Nothing was loaded: the tools you named are not available in this session.",
        },
      });
      expect(audit.records.at(-1)?.notes).toMatchObject({ loaded: [], matches: 0 });
      expect(names()).toEqual(["fs_read", "ToolSearch"]);
    }
  });

  it("loads the admitted names of a list and reports the excluded and always-on ones", async () => {
    const { session, names } = setup();
    const { result } = await session.call({
      tool: "ToolSearch",
      args: { query: "fs_glob, secrets_dump, fs_read" },
    });
    expect(result).toEqual({
      ok: true,
      data: {
        loaded: [{ name: "fs_glob", summary: "List files by pattern" }],
        unavailable: [
          { name: "secrets_dump", reason: "not available: deployment/no-secrets" },
          { name: "fs_read", reason: "already available: it is not an on-demand tool" },
        ],
        note: "These tools can be called from your next turn.",
      },
    });
    expect(names()).toEqual(["fs_glob", "fs_read", "ToolSearch"]);
  });

  it("hides plugin tools in Plan mode, and drops loaded ones when the mode changes", async () => {
    const plan = setup({}, "plan");
    expect(plan.search.catalogText(plan.session)).not.toContain("plugin_");
    const { result } = await plan.session.call({ tool: "ToolSearch", args: { query: "plugin_web_fetch" } });
    expect(result).toMatchObject({
      ok: true,
      data: {
        loaded: [],
        unavailable: [{ name: "plugin_web_fetch", reason: "not available: mode/mode.plan.plugin" }],
      },
    });
    expect(plan.names()).not.toContain("plugin_web_fetch");

    const agent = setup();
    await agent.session.call({ tool: "ToolSearch", args: { query: "plugin_web_fetch" } });
    expect(agent.names()).toContain("plugin_web_fetch");
    agent.session.setMode("plan");
    expect(agent.names()).not.toContain("plugin_web_fetch");
  });

  it("can answer with Anthropic-style tool_reference blocks", async () => {
    const { session } = setup({ output: "tool_reference" });
    const { result } = await session.call({ tool: "ToolSearch", args: { query: "fs_grep" } });
    expect(result).toEqual({ ok: true, data: [{ type: "tool_reference", tool_name: "fs_grep" }] });
  });

  it("says so when nothing matches, and fails for a session that was never attached", async () => {
    const { session, search } = setup();
    const none = await session.call({ tool: "ToolSearch", args: { query: "zebra xylophone" } });
    expect(none.result).toMatchObject({ ok: true, data: { loaded: [] } });
    const other = createKernel().openSession({ catalog: createCatalog([search.tool]) });
    const { result } = await other.call({ tool: "ToolSearch", args: { query: "x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    expect(() => search.toolsForTurn(other)).toThrow(/not attached/);
  });
});
