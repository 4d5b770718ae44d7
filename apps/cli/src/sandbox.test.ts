import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsTools } from "@pablo/fs";
import { createCatalog, createKernel } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { exportChanges, planSandbox, sandboxChanges } from "./sandbox.js";

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pablo-cli-sandbox-")));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("[options.sandbox] in the CLI", () => {
  it("attaches shell.run under local containment and explains it", () => {
    const plan = planSandbox(undefined, { workspace: tempDir() });
    expect(plan.attachShell).toBe(true);
    expect(plan.io).toBeUndefined();
    expect(plan.capabilities).toEqual(["read", "write", "glob", "shell"]);
    expect(plan.explain).toMatch(/^sandbox local: each command runs in a new PID namespace/);
  });

  it("refuses a missing bubblewrap at admission with SANDBOX_UNAVAILABLE", () => {
    expect(() =>
      planSandbox(
        { kind: "bubblewrap", bubblewrap: { bwrap_path: "/nonexistent/bwrap" } },
        { workspace: tempDir() },
      ),
    ).toThrow(expect.objectContaining({ code: "SANDBOX_UNAVAILABLE" }));
  });

  it("virtual: no shell tool, fs tools work in memory seeded from a directory, and the disk is untouched", async () => {
    const seed = tempDir();
    writeFileSync(join(seed, "README.md"), "hello\n");
    mkdirSync(join(seed, "docs"));
    writeFileSync(join(seed, "docs", "old.md"), "old\n");
    const workspace = tempDir();
    const plan = planSandbox({ kind: "virtual" }, { workspace, seed });
    expect(plan.attachShell).toBe(false);
    expect(plan.capabilities).not.toContain("shell");
    expect(plan.explain).toContain("shell.run is not attached");

    const tools = await createFsTools({ workspace, io: plan.io });
    const session = createKernel().openSession({
      catalog: createCatalog(tools),
      permission: { mode: "auto" },
    });
    const read = await session.call({ tool: "fs_read", args: { path: "README.md" } });
    expect(read.result).toMatchObject({ ok: true, data: { content: "hello\n" } });
    const wrote = await session.call({
      tool: "fs_write",
      args: { path: "NEW.md", content: "new\n", expected_revision: null },
    });
    expect(wrote.result).toMatchObject({ ok: true });

    // Nothing reached the disk: neither the workspace nor the seed.
    expect(readdirSync(workspace)).toEqual([]);
    expect(existsSync(join(seed, "NEW.md"))).toBe(false);
    expect(sandboxChanges(plan)).toEqual([{ path: "NEW.md", kind: "added" }]);

    const out = tempDir();
    expect(exportChanges(plan, out)).toEqual([{ path: "NEW.md", kind: "added" }]);
    expect(readFileSync(join(out, "NEW.md"), "utf8")).toBe("new\n");
  });

  it("refuses --seed outside a virtual sandbox", () => {
    expect(() => planSandbox(undefined, { workspace: tempDir(), seed: tempDir() })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTIONS" }),
    );
  });
});
