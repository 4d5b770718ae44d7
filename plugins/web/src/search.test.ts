import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createCatalog, createKernel, defineLayer } from "@pablo/kernel";
import { instantiatePlugin } from "@pablo/plugins";
import { describe, expect, it } from "vitest";
import { createWebPlugin, type SearchBackend } from "./index.js";
import { startServer } from "./test-support/server.js";
import { packageDir, WEB_GRANTS, webSession } from "./test-support/session.js";

const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).pablo;

class RecordingBackend implements SearchBackend {
  readonly queries: string[] = [];
  destination(query: string, limit: number): string {
    return `https://search.example/api?q=${encodeURIComponent(query)}&n=${limit}`;
  }
  async search(query: string, limit: number) {
    this.queries.push(query);
    return Array.from({ length: limit + 3 }, (_, i) => ({
      title: `Result ${i}`,
      url: `https://r.example/${i}`,
      snippet: "x".repeat(900),
    }));
  }
}

async function injected(backend: SearchBackend, layers = [defineLayer({ id: "deployment" })]) {
  const { tools, diagnostics } = await instantiatePlugin(
    createWebPlugin({ searchBackend: backend }),
    manifest,
    {
      name: "web",
      grants: WEB_GRANTS,
    },
  );
  expect(diagnostics).toEqual([]);
  return createKernel().openSession({ catalog: createCatalog(tools), layers, permission: { mode: "auto" } });
}

describe("web.search", () => {
  it("searches through an injected backend and bounds what comes back", async () => {
    const backend = new RecordingBackend();
    const session = await injected(backend);
    const { result } = await session.call({
      tool: "plugin_web_search",
      args: { query: "typebox closed schemas", limit: 2 },
    });
    expect(backend.queries).toEqual(["typebox closed schemas"]);
    expect(result).toMatchObject({
      ok: true,
      data: { query: "typebox closed schemas", results: [{ title: "Result 0" }, { title: "Result 1" }] },
    });
    const snippet = result.ok ? (result.data as { results: { snippet: string }[] }).results[0]?.snippet : "";
    expect(snippet).toHaveLength(500);
  });

  it("declares the backend's URL, so network policy decides the search too", async () => {
    const backend = new RecordingBackend();
    const layer = defineLayer({
      id: "deployment",
      net: { deny: [{ id: "no-search", prefix: "https://search.example/" }] },
    });
    const session = await injected(backend, [layer]);
    const { decision } = await session.call({ tool: "plugin_web_search", args: { query: "anything" } });
    expect(decision).toMatchObject({ verdict: "deny", rule: "no-search" });
    expect(backend.queries).toEqual([]);
  });

  it("uses the HTTP JSON endpoint from the options when no backend is injected", async () => {
    const server = await startServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          results: [{ title: `About ${url.searchParams.get("q")}`, url: "https://a.example/", snippet: "s" }],
        }),
      );
    });
    const { session } = await webSession({ options: { search: { endpoint: `${server.origin}/search` } } });
    const { result } = await session.call({
      tool: "plugin_web_search",
      args: { query: "pablo kernel", limit: 3 },
    });
    expect(result).toEqual({
      ok: true,
      data: {
        query: "pablo kernel",
        results: [{ title: "About pablo kernel", url: "https://a.example/", snippet: "s" }],
      },
    });
    expect(server.hits).toEqual(["/search?q=pablo+kernel&limit=3"]);
  });

  it("refuses before running when no backend is configured", async () => {
    const { session } = await webSession();
    const { result, decision } = await session.call({ tool: "plugin_web_search", args: { query: "x" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", message: "web.search has no search backend configured" },
    });
    expect(decision.verdict).toBe("deny");
  });
});
