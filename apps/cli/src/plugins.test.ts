import { cpSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

const require = createRequire(import.meta.url);
const webPlugin = dirname(require.resolve("@pablo/plugin-web/package.json"));

async function loopbackServer(): Promise<{ base: string; hits: string[] }> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? "");
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    response.end(`page at ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

function deployment(base: string): string {
  return `[options.plugins.web]
package = ${JSON.stringify(webPlugin)}
grants = ["agent.tool.register", "net", "net.fetch", "net.search"]

[options.plugins.web.options]
allowLoopback = true

[options.network]
default = "deny"
allow = [{ id = "docs", prefix = "${base}/docs/" }]
`;
}

describe("plugins listed by the deployment", () => {
  it("load, and their tools run through pablo call under the network policy", async () => {
    const sandbox = useSandbox();
    const server = await loopbackServer();
    const config = sandbox.write("deployment.toml", deployment(server.base));
    const call = (url: string, ...flags: string[]) =>
      pablo(
        [
          "call",
          "plugin_web_fetch",
          "--config",
          config,
          "--permission",
          "auto",
          "--json",
          ...flags,
          "--args",
          JSON.stringify({ url }),
        ],
        sandbox,
      );

    const allowed = await call(`${server.base}/docs/intro`);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      ok: true,
      data: { status: 200, text: "page at /docs/intro" },
    });

    const denied = await call(`${server.base}/admin`);
    expect(denied.code).toBe(3);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { layer: "deployment" } },
    });

    const tricked = await call(`${server.base}/docs/%2e%2e/admin`);
    expect(tricked.code).toBe(3);

    const dry = await call(`${server.base}/docs/a`, "--dry-run");
    expect(JSON.parse(dry.stdout)).toMatchObject({ decision: "allow", layer: "deployment", rule: "docs" });

    const plan = await call(`${server.base}/docs/intro`, "--mode", "plan");
    expect(plan.code).toBe(3);
    expect(JSON.parse(plan.stdout)).toMatchObject({ ok: false, error: { code: "PLUGIN_DISABLED_IN_PLAN" } });
    expect(server.hits).toEqual(["/docs/intro"]);
  });

  it("are refused with a diagnostic when a grant is missing, and never scanned when not listed", async () => {
    const sandbox = useSandbox();
    const server = await loopbackServer();
    const config = sandbox.write(
      "deployment.toml",
      deployment(server.base).replace(', "net.fetch", "net.search"]', "]"),
    );
    const { code, stdout } = await pablo(["tools", "--json", "--explain", "--config", config], sandbox);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as {
      tools: Array<{ name: string }>;
      diagnostics: Array<{ source: string; code: string }>;
    };
    expect(parsed.tools.map((t) => t.name)).not.toContain("plugin.web.fetch");
    expect(parsed.diagnostics).toContainEqual(
      expect.objectContaining({ source: "plugin/web", code: "GRANT_MISSING" }),
    );
    const unlisted = await pablo(["tools", "--json"], sandbox);
    expect(unlisted.stdout).not.toContain("plugin.web.fetch");
  });
});

describe("pablo plugin", () => {
  it("scaffolds a package, checks a valid and an invalid plugin, and packs one", async () => {
    const sandbox = useSandbox();
    const scaffold = await pablo(
      ["plugin", "scaffold", "@acme/pablo-hello", "--dir", join(sandbox.root, "hello")],
      sandbox,
    );
    expect(scaffold.code).toBe(0);
    expect(existsSync(join(sandbox.root, "hello", "package.json"))).toBe(true);
    expect(existsSync(join(sandbox.root, "hello", "README.md"))).toBe(true);

    const valid = await pablo(["plugin", "check", webPlugin], sandbox);
    expect(valid.code).toBe(0);
    const broken = sandbox.write(
      "broken/package.json",
      JSON.stringify({ name: "broken", version: "1.0.0", type: "module" }),
    );
    const invalid = await pablo(["plugin", "check", dirname(broken), "--json"], sandbox);
    expect(invalid.code).toBe(1);
    expect((JSON.parse(invalid.stdout) as { valid: boolean }).valid).toBe(false);

    // Inside the workspace its dependency is `workspace:^`, which npm would publish as is.
    const out = join(sandbox.root, "out");
    const refused = await pablo(["plugin", "pack", webPlugin, "--out", out, "--json"], sandbox);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("UNPUBLISHABLE_DEPENDENCY");

    // The same package as a third party keeps it, with a version range: it packs.
    const standalone = join(sandbox.root, "standalone-web");
    cpSync(webPlugin, standalone, { recursive: true, filter: (source) => !source.includes("node_modules") });
    symlinkSync(join(webPlugin, "node_modules"), join(standalone, "node_modules"), "dir");
    const manifest = JSON.parse(readFileSync(join(standalone, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    manifest.dependencies["@pablo/plugins"] = "^0.1.0";
    manifest.dependencies["typebox"] = "^1.4.3";
    writeFileSync(join(standalone, "package.json"), JSON.stringify(manifest, null, 2));
    const packed = await pablo(["plugin", "pack", standalone, "--out", out], sandbox);
    expect(packed.code).toBe(0);
    expect(readdirSync(out).some((f) => f.endsWith(".tgz"))).toBe(true);
  });
});
