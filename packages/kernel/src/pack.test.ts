import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const scratch = mkdtempSync(join(tmpdir(), "pablo-pack-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function pnpm(args: string[], cwd: string): string {
  // pnpm 12 sets npm_execpath to its native binary, older pnpm to a JavaScript entry; under npm or
  // npx it names npm, which cannot pack a workspace package, so fall back to pnpm on PATH.
  const execpath = process.env["npm_execpath"] ?? "";
  const isPnpm = execpath.includes("pnpm");
  const viaNode = isPnpm && /\.[cm]?js$/.test(execpath);
  const command = viaNode ? process.execPath : isPnpm ? execpath : "pnpm";
  const prefix = viaNode ? [execpath] : [];
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: "utf8" });
}

describe("publishing", () => {
  it("packs @pablo/kernel into a tarball that installs and imports outside the workspace", () => {
    pnpm(["pack", "--pack-destination", scratch], packageDir);
    const tarball = readdirSync(scratch).find((f) => f.endsWith(".tgz"));
    expect(tarball).toMatch(/^pablo-kernel-\d+\.\d+\.\d+\.tgz$/);
    const listing = execFileSync("tar", ["-tzf", join(scratch, tarball ?? "")], { encoding: "utf8" });
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
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(scratch, tarball ?? "")], {
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
