import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { pnpmPack } from "./index.js";

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-test-support-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("pnpmPack", () => {
  it("packs a scoped package into a tarball beside others and returns that tarball's path", () => {
    const root = scratch();
    const pkg = join(root, "pkg");
    const out = join(root, "out");
    mkdirSync(pkg);
    mkdirSync(out);
    writeFileSync(join(out, "other-1.0.0.tgz"), "not ours");
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "@acme/demo", version: "1.2.3", type: "module", files: ["index.js"] }),
    );
    writeFileSync(join(pkg, "index.js"), "export const answer = 42;\n");
    writeFileSync(join(pkg, "left-out.js"), "not in files\n");

    const tarball = pnpmPack(pkg, out);

    expect(basename(tarball)).toBe("acme-demo-1.2.3.tgz");
    const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").sort();
    expect(listing.filter(Boolean)).toEqual(["package/index.js", "package/package.json"]);
  });

  it("throws with pnpm's own message when the directory is no package", () => {
    const root = scratch();
    expect(() => pnpmPack(root, root)).toThrow(/pnpm|package\.json/i);
  });
});
