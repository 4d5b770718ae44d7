import { defineLayer } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { startServer } from "./test-support/server.js";
import { WEB_GRANTS, webSession } from "./test-support/session.js";

const names = (session: { catalog: { entries: readonly { definition: { name: string } }[] } }) =>
  session.catalog.entries.map((e) => e.definition.name);

/** A search endpoint on a real loopback server, so web.search has something to call. */
async function searchServer() {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ results: [] }));
  });
  return { server, options: { search: { endpoint: `${server.origin}/search` } } };
}

describe("web.fetch and web.search are granted separately", () => {
  it("loads both when the deployment grants net, net.fetch and net.search", async () => {
    const { session, diagnostics } = await webSession({ grants: WEB_GRANTS });
    expect(diagnostics).toEqual([]);
    expect(names(session)).toEqual(["plugin.web.fetch", "plugin.web.search"]);
  });

  it("refuses a plain net grant: it grants neither capability", async () => {
    const { session, diagnostics } = await webSession({ grants: ["agent.tool.register", "net"] });
    expect(diagnostics.map((d) => [d.severity, d.code, d.tool, d.message])).toEqual([
      [
        "error",
        "GRANT_MISSING",
        "fetch",
        "tool fetch uses effect net.fetch, which the deployment does not grant",
      ],
      [
        "error",
        "GRANT_MISSING",
        "search",
        "tool search uses effect net.search, which the deployment does not grant",
      ],
    ]);
    expect(session.catalog.entries).toEqual([]);
  });

  it("refuses a capability without the kernel's net effect", async () => {
    const { session, diagnostics } = await webSession({
      grants: ["agent.tool.register", "net.fetch", "net.search"],
    });
    expect(diagnostics.map((d) => [d.code, d.tool, d.message])).toEqual([
      ["GRANT_MISSING", "fetch", "tool fetch uses effect net, which the deployment does not grant"],
      ["GRANT_MISSING", "search", "tool search uses effect net, which the deployment does not grant"],
    ]);
    expect(session.catalog.entries).toEqual([]);
  });

  it.each([
    ["net.fetch", "fetch", "search", "net.search"],
    ["net.search", "search", "fetch", "net.fetch"],
  ])(
    "granting only %s gives the %s tool and no %s tool, with a warning naming %s",
    async (grant, present, absent, missing) => {
      const { session, diagnostics } = await webSession({ grants: ["agent.tool.register", "net", grant] });
      expect(names(session)).toEqual([`plugin.web.${present}`]);
      expect(diagnostics.map((d) => [d.severity, d.code, d.tool, d.path, d.message])).toEqual([
        [
          "warning",
          "GRANT_MISSING",
          absent,
          `/pablo/tools/${absent === "fetch" ? 0 : 1}/effects`,
          `tool ${absent} uses effect ${missing}, which the deployment does not grant; the tool is left out`,
        ],
      ]);
    },
  );

  it.each([
    ["net.search", "plugin.web.fetch", "plugin.web.search"],
    ["net.fetch", "plugin.web.search", "plugin.web.fetch"],
  ])("a deployment rule refusing %s hides only %s's sibling", async (effect, visible, hidden) => {
    const layer = defineLayer({ id: "deployment", effect: { deny: [{ id: "one-only", match: effect }] } });
    const { server, options } = await searchServer();
    const { session } = await webSession({ layers: [layer], options });
    const seen = session.visibility().map((v) => [v.entry.definition.name, v.visible, v.decision.rule]);
    expect(seen).toEqual(
      [
        [visible, true, "default"],
        [hidden, false, "one-only"],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    const run = (name: string) =>
      session.call({
        tool: name.replaceAll(".", "_"),
        args: name.endsWith("fetch") ? { url: `${server.origin}/page` } : { query: "q" },
      });
    expect((await run(visible)).result.ok).toBe(true);
    expect((await run(hidden)).decision).toMatchObject({
      verdict: "deny",
      layer: "deployment",
      rule: "one-only",
    });
    expect(server.hits).toHaveLength(1);
  });

  it("a deployment rule refusing net refuses both", async () => {
    const layer = defineLayer({ id: "deployment", effect: { deny: [{ id: "offline", match: "net" }] } });
    const { session } = await webSession({ layers: [layer] });
    expect(session.visibility().map((v) => [v.visible, v.decision.rule])).toEqual([
      [false, "offline"],
      [false, "offline"],
    ]);
  });

  it("the read-only profile allows exactly the capabilities it grants, and only with net", async () => {
    const { server, options } = await searchServer();
    const call = async (grants: string[]) => {
      const { session } = await webSession({ options, permission: { mode: "read-only", grants } });
      const fetch = await session.call({ tool: "plugin_web_fetch", args: { url: `${server.origin}/page` } });
      const search = await session.call({ tool: "plugin_web_search", args: { query: "q" } });
      return [fetch.decision.verdict, search.decision.verdict];
    };
    expect(await call([])).toEqual(["deny", "deny"]);
    expect(await call(["net"])).toEqual(["deny", "deny"]);
    expect(await call(["net.fetch", "net.search"])).toEqual(["deny", "deny"]);
    expect(await call(["net", "net.fetch"])).toEqual(["allow", "deny"]);
    expect(await call(["net", "net.search"])).toEqual(["deny", "allow"]);
    expect(await call(["net", "net.fetch", "net.search"])).toEqual(["allow", "allow"]);
    expect(server.hits).toEqual(["/page", "/search?q=q&limit=5", "/page", "/search?q=q&limit=5"]);
  });
});
