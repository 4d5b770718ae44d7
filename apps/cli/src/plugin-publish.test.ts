import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { pnpmPack } from "@pablo/test-support";
import { describe, expect, it, onTestFinished } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

const repo = resolve(import.meta.dirname, "..", "..", "..");

describe("a published plugin", () => {
  it("is packed, installed into a distribution from its tarball, loaded by configuration and called through pablo call", async () => {
    const sandbox = useSandbox();
    const tarballs = join(sandbox.root, "tarballs");
    mkdirSync(tarballs);
    const kernel = pnpmPack(join(repo, "packages", "kernel"), tarballs);
    const plugins = pnpmPack(join(repo, "packages", "plugins"), tarballs);
    // Packed as the workspace publishes it: pnpm turns its workspace: dependency into a version.
    const web = pnpmPack(join(repo, "plugins", "web"), tarballs);
    const checked = await pablo(["plugin", "check", join(repo, "plugins", "web")], sandbox);
    expect(checked.code).toBe(0);

    const distribution = join(sandbox.root, "distribution");
    mkdirSync(distribution);
    writeFileSync(
      join(distribution, "package.json"),
      JSON.stringify({
        name: "acme-distribution",
        private: true,
        type: "module",
        dependencies: {
          "@pablo/kernel": `file:${kernel}`,
          "@pablo/plugins": `file:${plugins}`,
          "@pablo/plugin-web": `file:${web}`,
        },
      }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts"], {
      cwd: distribution,
      stdio: "pipe",
    });

    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("installed plugin reached me");
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    writeFileSync(
      join(distribution, "deployment.toml"),
      `[options.plugins.web]\npackage = "@pablo/plugin-web"\ngrants = ["agent.tool.register", "net", "net.fetch", "net.search"]\n\n[options.plugins.web.options]\nallowLoopback = true\n\n[options.network]\nallow = [{ id = "local", prefix = "${base}/" }]\n`,
    );
    const { code, stdout, stderr } = await pablo(
      [
        "call",
        "plugin_web_fetch",
        "--config",
        join(distribution, "deployment.toml"),
        "--permission",
        "auto",
        "--json",
        "--args",
        JSON.stringify({ url: `${base}/hello` }),
      ],
      sandbox,
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, data: { text: "installed plugin reached me" } });
  }, 240_000);
});
