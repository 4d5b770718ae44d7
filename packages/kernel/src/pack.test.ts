import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pnpmPack } from "@pablo/test-support";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const scratch = mkdtempSync(join(tmpdir(), "pablo-pack-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("publishing", () => {
  it("packs @pablo/kernel into a tarball that installs and imports outside the workspace", () => {
    const tarball = basename(pnpmPack(packageDir, scratch));
    expect(tarball).toMatch(/^pablo-kernel-\d+\.\d+\.\d+\.tgz$/);
    const listing = execFileSync("tar", ["-tzf", join(scratch, tarball)], { encoding: "utf8" });
    expect(listing).toContain("package/dist/index.js");
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing).toContain("package/README.md");
    expect(listing).not.toMatch(/\.test\.|test-support|\/src\//);

    const project = join(scratch, "consumer");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(scratch, tarball)], {
      cwd: project,
    });
    const script = `
      import { createCatalog, createKernel, defineTool, ok } from "@pablo/kernel";
      import { JsonlAuditSink } from "@pablo/kernel/node";
      import Type from "typebox";
      const tool = defineTool({ name: "demo.echo", description: "d", summary: "s", risk: "low", effects: [], category: "read",
        mutates: false, inputSchema: Type.Object({ t: Type.String() }, { additionalProperties: false }),
        execute: async (a) => ok(a.t) });
      const session = createKernel({ audit: new JsonlAuditSink("audit.jsonl") }).openSession({ catalog: createCatalog([tool]) });
      const { result } = await session.call({ tool: "demo_echo", args: { t: "packed" } });
      let internal = "blocked";
      try { await import("@pablo/kernel/dist/session.js"); internal = "reachable"; } catch {}
      console.log(JSON.stringify({ result, internal }));
    `;
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", "typebox@1"], { cwd: project });
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ result: { ok: true, data: "packed" }, internal: "blocked" });
  });
});
