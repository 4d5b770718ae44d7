import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCatalog, createKernel, MemoryAuditSink } from "@pablo/kernel";
import { pnpmPack } from "@pablo/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { checkPlugin, loadPlugins, packPlugin, scaffoldPlugin } from "../index.js";
import { packageDir } from "../test-support/distribution.js";

const workspaceRoot = join(packageDir, "..", "..");
const scratch = realpathSync(mkdtempSync(join(tmpdir(), "pablo-publish-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--silent"], {
    cwd,
    encoding: "utf8",
  });
}

describe("a third-party plugin from scaffold to a distribution", () => {
  it("scaffolds, builds, tests, checks, packs, installs, loads and calls a plugin through a kernel session", async () => {
    // The SDK and kernel as a third party gets them: tarballs packed from this workspace.
    const tarballs = join(scratch, "tarballs");
    mkdirSync(tarballs);
    pnpmPack(join(workspaceRoot, "packages", "kernel"), tarballs);
    pnpmPack(packageDir, tarballs);
    const sdk = readdirSync(tarballs).map((f) => join(tarballs, f));
    expect(sdk.map((f) => f.split("/").pop())).toEqual(["pablo-kernel-0.1.0.tgz", "pablo-plugins-0.1.0.tgz"]);

    const pluginDir = join(scratch, "greeter");
    const scaffolded = await scaffoldPlugin(pluginDir, "@acme/pablo-plugin-greeter");
    expect(scaffolded).toMatchObject({ ok: true, pluginId: "greeter" });
    expect(await scaffoldPlugin(pluginDir, "@acme/pablo-plugin-greeter")).toMatchObject({ ok: false });

    // The author installs the SDK and builds with TypeScript (the workspace's, to stay offline).
    npm(["install", "--no-save", "--omit=dev", ...sdk], pluginDir);
    mkdirSync(join(pluginDir, "node_modules", "@types"), { recursive: true });
    symlinkSync(
      join(workspaceRoot, "node_modules", "typescript"),
      join(pluginDir, "node_modules", "typescript"),
    );
    symlinkSync(
      join(workspaceRoot, "node_modules", "@types", "node"),
      join(pluginDir, "node_modules", "@types", "node"),
    );
    execFileSync(
      process.execPath,
      [join(pluginDir, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"],
      {
        cwd: pluginDir,
      },
    );
    const testRun = execFileSync(process.execPath, ["--test", "dist/index.test.js"], {
      cwd: pluginDir,
      encoding: "utf8",
    });
    expect(testRun).toMatch(/# pass 3/);

    const checked = await checkPlugin(pluginDir);
    expect(checked.messages).toEqual([]);
    expect(checked.valid).toBe(true);

    const packed = await packPlugin(pluginDir, join(scratch, "out"));
    expect(packed).toMatchObject({ ok: true, filename: "acme-pablo-plugin-greeter-0.1.0.tgz" });
    expect(packed.files).toContain("dist/index.js");
    expect(packed.files).toContain("README.md");
    expect(packed.files?.some((f) => f.includes(".test."))).toBe(false);

    // A distribution installs the published tarballs and lists the plugin in its deployment.
    const distribution = join(scratch, "distribution");
    mkdirSync(distribution);
    writeFileSync(
      join(distribution, "package.json"),
      JSON.stringify({ name: "distribution", private: true, type: "module" }),
    );
    npm(["install", ...sdk, packed.tarball ?? ""], distribution);
    const loaded = await loadPlugins(
      [{ name: "greeter", package: "@acme/pablo-plugin-greeter", grants: ["agent.tool.register"] }],
      { resolveFrom: distribution },
    );
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.tools.map((t) => [t.name, t.providerName])).toEqual([
      ["plugin.greeter.greet", "plugin_greeter_greet"],
    ]);

    const audit = new MemoryAuditSink();
    // A plugin tool is confirmed under ask whatever its manifest's risk: the user says yes once.
    const asked: string[] = [];
    const broker = {
      request: async (request: { tool: string }) => {
        asked.push(request.tool);
        return "allow-once" as const;
      },
    };
    const session = createKernel({ audit, broker }).openSession({
      catalog: createCatalog(loaded.tools),
      permission: { mode: "ask" },
    });
    const { result } = await session.call({ tool: "plugin_greeter_greet", args: '{"name":"Grace"}' });
    expect(result).toEqual({ ok: true, data: { greeting: "Hello, Grace!" } });
    expect(asked).toEqual(["plugin.greeter.greet"]);
    expect(audit.records).toMatchObject([{ tool: "plugin.greeter.greet", decision: "allow", ok: true }]);
  }, 240_000);
});
